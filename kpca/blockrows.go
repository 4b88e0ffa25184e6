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
// B = A·F of the Helmert directions (helmertBorder). The rows run in chunks of
// blockRowChunk on several goroutines, whatever their number, each chunk's column sums
// and norm its own and then added in the chunks' order, so that the results do not
// depend on the number of goroutines. The loop is a method value bound once: a block
// step allocates nothing once the chunks' scratch has grown. (Five passes over A, on
// one core, were a tenth of a tracked fit at m in the tens of thousands.)
type blockRows struct {
	team    parallel.Team
	a, b    blas64.General // A, and B (centred) or nothing
	alpha   []float64      // the Helmert αⱼ, centred
	diag    []float64      // Fⱼⱼ = −(m+j)·αⱼ
	rowSum  []float64      // out: the rows' sums
	colSums []float64      // chunk i's column sums at i·b
	norms   []float64      // chunk i's ‖A‖_F
	bad     atomic.Bool
	fn      func(lo, hi int)
	normFn  func(lo, hi int)
}

// run makes the pass over A: rowSum (m), the column sums s (b), and returns ‖A‖_F and
// whether every value is finite. B and alpha are nil uncentred. On a value that is not
// finite the outputs are partial.
func (j *blockRows) run(a, b blas64.General, alpha, diag, rowSum, s []float64) (norm float64, finite bool) {
	if j.fn == nil {
		j.fn, j.normFn = j.rows, j.normRows
	}
	m, cols := a.Rows, a.Cols
	chunks := (m + blockRowChunk - 1) / blockRowChunk
	j.colSums = hugepage.Grow(j.colSums, chunks*cols)
	j.norms = hugepage.Grow(j.norms, chunks)
	j.a, j.b, j.alpha, j.diag, j.rowSum = a, b, alpha, diag, rowSum
	j.bad.Store(false)
	j.team.Run(max(1, min(runtime.GOMAXPROCS(0), chunks)), chunks, 1, j.fn)
	j.a, j.b, j.alpha, j.diag, j.rowSum = blas64.General{}, blas64.General{}, nil, nil, nil
	if j.bad.Load() {
		return 0, false
	}
	clear(s[:cols])
	for ch := range chunks {
		for c, v := range j.colSums[ch*cols : (ch+1)*cols] {
			s[c] += v
		}
		norm = math.Hypot(norm, j.norms[ch])
	}
	return norm, true
}

// rows makes the pass over the chunks lo…hi−1.
func (j *blockRows) rows(lo, hi int) {
	a, b := j.a, j.b
	cols := a.Cols
	for ch := lo; ch < hi; ch++ {
		r0, r1 := ch*blockRowChunk, min((ch+1)*blockRowChunk, a.Rows)
		sums := j.colSums[ch*cols : (ch+1)*cols]
		clear(sums)
		var norm float64
		for r := r0; r < r1; r++ {
			row := a.Data[r*a.Stride : r*a.Stride+cols]
			if !vec.Finite(row) {
				j.bad.Store(true)
				return
			}
			var t float64
			for c, v := range row {
				t += v
				sums[c] += v
			}
			j.rowSum[r] = t
			if j.alpha != nil {
				helmertRow(b.Data[r*b.Stride:r*b.Stride+cols], row, j.alpha, j.diag)
			}
			if a.Stride != cols {
				norm = math.Hypot(norm, vec.Norm(row))
			}
		}
		if a.Stride == cols { // contiguous: one scaled sum of squares for the chunk
			norm = vec.Norm(a.Data[r0*cols : r1*cols])
		}
		j.norms[ch] = norm
	}
}

// norm returns ‖A‖_F for the m×b matrix a (of stride b), in chunks of blockRowChunk rows
// on several goroutines, the chunks' norms then combined in their order: the border's
// norm, which the certificate's rounding allowance takes after BorderBlock.
func (j *blockRows) norm(a blas64.General) float64 {
	if j.fn == nil {
		j.fn, j.normFn = j.rows, j.normRows
	}
	chunks := (a.Rows + blockRowChunk - 1) / blockRowChunk
	j.norms = hugepage.Grow(j.norms, chunks)
	j.a = a
	j.team.Run(max(1, min(runtime.GOMAXPROCS(0), chunks)), chunks, 1, j.normFn)
	j.a = blas64.General{}
	var norm float64
	for _, v := range j.norms[:chunks] {
		norm = math.Hypot(norm, v)
	}
	return norm
}

// normRows sets j.norms[ch] to the norm of chunk ch of j.a's rows, for ch in lo…hi−1.
func (j *blockRows) normRows(lo, hi int) {
	a := j.a
	for ch := lo; ch < hi; ch++ {
		r0, r1 := ch*blockRowChunk, min((ch+1)*blockRowChunk, a.Rows)
		if a.Stride == a.Cols {
			j.norms[ch] = vec.Norm(a.Data[r0*a.Cols : r1*a.Cols])
			continue
		}
		var n float64
		for r := r0; r < r1; r++ {
			n = math.Hypot(n, vec.Norm(a.Data[r*a.Stride:r*a.Stride+a.Cols]))
		}
		j.norms[ch] = n
	}
}
