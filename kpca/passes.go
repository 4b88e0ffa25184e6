package kpca

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// A pass is one product of the matrix of the points, K′ (centred: C·K·C) or K, with a
// block of vectors, computed from the stored points a block of rows of K at a time and
// never formed (docs/design.md, "Passes over the points"): O(m²·(d + c)) flops for c
// vectors, at the speed of the kernel blocks' dgemm, in O(m·c) memory beyond the
// points. Polish and Certify are made of passes.

// passer computes passes over a model's points: the points prepared for kernel blocks
// once (kernel.Cross: for an RBF a shifted copy of the points), and one block of kernel
// rows and its scratch reused by every pass, so that a Polish of several passes
// allocates them once.
type passer struct {
	md    *Model
	cross *kernel.Cross
	work  kernel.BlockWork
	kb    []float64
}

// passRowsBytes is the size of the block of kernel rows a pass computes at a time: 16
// MiB, enough rows for the product with the vectors to run at dgemm speed (256 at m =
// 8,192, 30 at m = 70,000) and little next to the points. (A variable, so that tests
// can cancel a pass between blocks of a small model.)
var passRowsBytes = 16 << 20

func (md *Model) passer() *passer {
	return &passer{md: md, cross: kernel.NewCross(md.kern, &md.view)}
}

// pass sets W (m×c, resized if empty) to K′·Q for the m×c matrix Q, whose columns must
// be orthogonal to 1 when the model is centred: then C·Q = Q and K′Q = C·(K·Q), so the
// pass computes K·Q a block of rows at a time — the kernel block of the rows against
// all the points (kernel.Cross.BlockTo, a dgemm of distances for an RBF) times Q, one
// dgemm — and subtracts each column's mean. (Not ProjectTo, which projects each kernel
// row by a dgemv while it is in cache: right for a Transform's few components, but here
// Q has m·c entries, far beyond the cache, and each row would read all of them from
// memory.) It checks ctx before each block and returns its error, and ErrNonFinite for
// a kernel value that is not finite; W is then partly written, and the callers, which
// own it as scratch, discard it. (Written in place: a copy for an all-or-nothing W was
// m·c numbers of garbage a pass.)
func (p *passer) pass(ctx context.Context, W, Q *mat.Dense) error {
	md := p.md
	m, c := Q.Dims()
	rows := max(1, min(m, passRowsBytes/(8*m)))
	if cap(p.kb) < rows*m {
		p.kb = make([]float64, rows*m)
	}
	if W.IsEmpty() {
		W.ReuseAs(m, c)
	}
	out := W
	for lo := 0; lo < m; lo += rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+rows, m)
		kb := mat.NewDense(hi-lo, m, p.kb[:(hi-lo)*m])
		p.cross.BlockTo(kb, md.view.Slice(lo, hi, 0, md.d).(*mat.Dense), &p.work)
		for i := range hi - lo {
			if !vec.Finite(kb.RawRowView(i)) {
				return blocks.NonFinite(ErrNonFinite, p.cross, &md.view, lo+i, "point")
			}
		}
		native.Mul(out.Slice(lo, hi, 0, c).(*mat.Dense), kb, Q)
	}
	if !md.opts.Uncentred {
		centreColumns(out)
	}
	return nil
}

// pass is one pass with a passer of its own (tests, and a single pass).
func (md *Model) pass(ctx context.Context, W, Q *mat.Dense) error {
	return md.passer().pass(ctx, W, Q)
}

// centreColumns subtracts from each column of A its mean: A ← C·A.
func centreColumns(A *mat.Dense) {
	r, c := A.Dims()
	mean := make([]float64, c)
	for i := range r {
		for j, v := range A.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(r)
	}
	for i := range r {
		row := A.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
}

// orthonormalise returns an orthonormal basis (m×c′, c′ ≤ c) of the span of the columns
// of Z with their parts along the columns of prev (orthonormal, or nil) and, if
// centred, along 1 removed; nil if nothing is left. Directions whose singular value
// falls to tol or below after the first removal are dropped: they are what rounding
// leaves of vectors already in span(prev), which a block Krylov space reaches when it
// becomes invariant. Classical Gram–Schmidt twice ("twice is enough", Giraud et al.
// 2005), each round followed by an SVD of what remains (native.SVDLeft), whose left
// singular vectors are orthonormal to working precision whatever the conditioning of Z;
// the second round repairs the orthogonality to prev that the first loses in
// directions of small singular value. Z is overwritten.
func orthonormalise(Z, prev *mat.Dense, centred bool, tol float64) *mat.Dense {
	m, c := Z.Dims()
	nu := min(m, c)
	s := make([]float64, nu)
	// The SVD writes its left vectors to the other buffer: Z and u take turns, and the
	// result is the buffer the second round wrote.
	u := mat.NewDense(m, nu, nil)
	for round := range 2 {
		if centred {
			centreColumns(Z)
		}
		if prev != nil {
			// Z ← Z − prev·(prevᵀZ), the product subtracted by one dgemm in place.
			var pz mat.Dense
			native.Mul(&pz, prev.T(), Z)
			native.Gemm(blas.NoTrans, blas.NoTrans, -1, prev.RawMatrix(), pz.RawMatrix(), 1, Z.RawMatrix())
		}
		_, c = Z.Dims()
		nu = min(m, c)
		raw := Z.RawMatrix()
		ur := u.RawMatrix()
		if err := native.SVDLeft(m, c, raw.Data, raw.Stride, s[:nu], ur.Data, ur.Stride); err != nil {
			return nil // a non-finite vector: the caller's products are checked finite first
		}
		cut := tol
		if round == 1 {
			cut = 0.5 // orthonormal columns: singular values 1 to rounding
		}
		keep := 0
		for keep < nu && s[keep] > cut {
			keep++
		}
		if keep == 0 {
			return nil
		}
		// The kept vectors become the next round's input, and the destroyed input the
		// next round's output buffer.
		next := u.Slice(0, m, 0, keep).(*mat.Dense)
		spare := mat.NewDense(m, keep, raw.Data[:m*keep])
		Z, u = next, spare
	}
	return Z
}

// maxColumnNorm returns the largest Euclidean norm of a column of A: ‖A‖₂ within a
// factor √c.
func maxColumnNorm(A *mat.Dense) float64 {
	_, c := A.Dims()
	var best float64
	for j := range c {
		best = math.Max(best, mat.Norm(A.ColView(j), 2))
	}
	return best
}
