package kpca

import (
	"math"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
)

// blockRowChunk is the number of rows of a chunk of blockRows' pass: native's chunk of
// a split product (docs/design.md, "Who owns the cores").
const blockRowChunk = 512

// blockRows is a block step's pass over the rows of its kernel block A (m×b, the new
// points' kernel columns against the model's m points): in one pass over each row,
// whether its values are finite, its sum (the row sums the model keeps for centring),
// its part of the column sums s = Aᵀ1 and of ‖A‖_F, and, centred, the row of the border
// B = A·F + (K1)·αᵀ of the Helmert directions (helmertRow) and its part of ‖B‖_F. The
// rows run in chunks of blockRowChunk on several goroutines, whatever their number, each
// chunk's column sums and norms its own and then added in the chunks' order, so that the
// results do not depend on the number of goroutines. The loop is a method value bound
// once: a block step allocates nothing once the chunks' scratch has grown. (Five passes
// over A, on one core, were a tenth of a tracked fit at m in the tens of thousands; the
// four that were left — the finiteness, the two norms, each a pass for the largest value
// and one for the scaled squares, and the border's rank-one term — were 8% of it on
// MAGIC.)
type blockRows struct {
	team    parallel.Team
	a, b    blas64.General // A, and B (centred) or nothing
	alpha   []float64      // the Helmert αⱼ, centred
	diag    []float64      // Fⱼⱼ = −(m+j)·αⱼ
	k1      []float64      // the model's row sums K1 (m), centred
	rowSum  []float64      // out: the rows' sums
	colSums []float64      // chunk i's column sums at i·b
	normA   []float64      // chunk i's part of ‖A‖_F
	normB   []float64      // chunk i's part of ‖B‖_F (centred)
	bad     atomic.Bool
	fn      func(lo, hi int)
}

// blockPass is what blockRows.run returns: the norms of A and of the border B (‖A‖_F
// again uncentred, where B = A) and whether every value of A is finite.
type blockPass struct {
	normA, normB float64
	finite       bool
}

// run makes the pass over A: rowSum (m), the column sums s (b), and centred (alpha not
// nil) the border B from A, the Helmert αⱼ and diagonal and the model's row sums k1. On
// a value that is not finite the outputs are partial.
func (j *blockRows) run(a, b blas64.General, alpha, diag, k1, rowSum, s []float64) blockPass {
	if j.fn == nil {
		j.fn = j.rows
	}
	m, cols := a.Rows, a.Cols
	chunks := (m + blockRowChunk - 1) / blockRowChunk
	j.colSums = hugepage.Grow(j.colSums, chunks*cols)
	j.normA, j.normB = hugepage.Grow(j.normA, chunks), hugepage.Grow(j.normB, chunks)
	j.a, j.b, j.alpha, j.diag, j.k1, j.rowSum = a, b, alpha, diag, k1, rowSum
	j.bad.Store(false)
	j.team.Run(max(1, min(runtime.GOMAXPROCS(0), chunks)), chunks, 1, j.fn)
	j.a, j.b, j.alpha, j.diag, j.k1, j.rowSum = blas64.General{}, blas64.General{}, nil, nil, nil, nil
	if j.bad.Load() {
		return blockPass{}
	}
	clear(s[:cols])
	var p blockPass
	for ch := range chunks {
		for c, v := range j.colSums[ch*cols : (ch+1)*cols] {
			s[c] += v
		}
		p.normA = math.Hypot(p.normA, j.normA[ch])
		p.normB = math.Hypot(p.normB, j.normB[ch])
	}
	if alpha == nil {
		p.normB = p.normA
	}
	p.finite = true
	return p
}

// rows makes the pass over the chunks lo…hi−1.
func (j *blockRows) rows(lo, hi int) {
	a, b := j.a, j.b
	cols := a.Cols
	for ch := lo; ch < hi; ch++ {
		r0, r1 := ch*blockRowChunk, min((ch+1)*blockRowChunk, a.Rows)
		sums := j.colSums[ch*cols : (ch+1)*cols]
		clear(sums)
		var qa, qb float64 // the chunk's sums of squares of A and of B
		for r := r0; r < r1; r++ {
			row := a.Data[r*a.Stride : r*a.Stride+cols]
			var t, q float64
			for c, v := range row {
				t += v
				q += v * v
				sums[c] += v
			}
			j.rowSum[r] = t
			qa += q
			if j.alpha != nil {
				qb += helmertRow(b.Data[r*b.Stride:r*b.Stride+cols], row, j.alpha, j.diag, j.k1[r])
			}
		}
		if !finiteSquares(qa) || j.alpha != nil && !finiteSquares(qb) {
			// A value that is not finite, or a sum of squares out of range: check the
			// values, and take the norms of the chunk scaled (vec.Norm).
			if !finiteRows(a, r0, r1) {
				j.bad.Store(true)
				return
			}
			j.normA[ch] = rowsNorm(a, r0, r1)
			if j.alpha != nil {
				j.normB[ch] = rowsNorm(b, r0, r1)
			}
			continue
		}
		j.normA[ch], j.normB[ch] = math.Sqrt(qa), math.Sqrt(qb)
	}
}

// finiteSquares reports whether a sum of squares is the square of a norm to full
// accuracy: finite (no value overflowed, none was NaN or infinite) and at least 2⁻⁹⁰⁰,
// so that the squares that underflowed, each below 2⁻¹⁰²², add less than 2⁻¹⁰⁰ of it
// however many there are (2²² at most in a chunk). Otherwise — zero included, which
// values of 1e-170 give as well as zeros — the chunk's norms are taken again scaled
// (rowsNorm).
func finiteSquares(q float64) bool {
	return q >= 0x1p-900 && q <= math.MaxFloat64
}

// finiteRows reports whether rows r0…r1−1 of g are finite.
func finiteRows(g blas64.General, r0, r1 int) bool {
	for r := r0; r < r1; r++ {
		if !vec.Finite(g.Data[r*g.Stride : r*g.Stride+g.Cols]) {
			return false
		}
	}
	return true
}

// rowsNorm returns the Frobenius norm of rows r0…r1−1 of g, scaled against overflow
// and underflow (vec.Norm, the rows' norms combined by math.Hypot).
func rowsNorm(g blas64.General, r0, r1 int) float64 {
	var n float64
	for r := r0; r < r1; r++ {
		n = math.Hypot(n, vec.Norm(g.Data[r*g.Stride:r*g.Stride+g.Cols]))
	}
	return n
}
