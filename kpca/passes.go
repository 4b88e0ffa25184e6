package kpca

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// A pass is one product of the matrix of the points, K′ (centred: C·K·C) or K, with a
// block of vectors, computed from the stored points a block of K at a time and never
// formed (docs/design.md, "Passes over the points"): K is symmetric, so a pass computes
// only its upper triangle, in strips of rows against the points at and after them —
// O(m²·(d + 2c)) flops for c vectors, m²·d for the distances where the full rows took
// 2m²·d, at the speed of the kernel blocks' dgemm, in O(m·c) memory beyond the points
// and one block. Polish and Certify are made of passes.

// passer computes passes over a model's points: the points prepared for kernel blocks
// once (kernel.NewCrossNoCopy: for an RBF the shift and the points' squared norms, m
// numbers, and no shifted copy of the points — each panel's points are shifted into the
// BlockWork, 2,048·d numbers, once a pass, when the pass reaches it), and one block of
// kernel values, its scratch and the headers that point into it, reused by every pass,
// so that a Polish of several passes allocates them once. The copy NewCross keeps would
// be m·d numbers, as large as the model's points (439 MB at 70,000 Fashion-MNIST
// images), for values that are the same bit for bit (docs/design.md, "Passes over the
// points").
type passer struct {
	md     *Model
	cross  *kernel.Cross
	work   kernel.BlockWork
	kb     []float64
	kd, xd mat.Dense // headers of the block and of its strip's points (SetRawMatrix: no allocation)
	mean   []float64 // centreColumns' scratch
}

// passStripRows is the number of rows b of a pass's strips, and passPanelBytes the size
// of the block of kernel values a pass holds at a time: the columns are taken in panels
// of passPanelBytes/(8b) points, 2,048 (docs/design.md, "Passes over the points"). 512
// rows keep the distance dgemm (b×d)·(d×2048) at speed, while the lower halves of the
// strips' diagonal blocks, the only values computed twice, add b/m to the triangle (2.6%
// at m = 20,000, 0.7% at 70,000); a block of 8 MiB stays in the third-level cache
// between the dgemm that writes it, the exponentials and the two products that read it,
// and does not grow with m. On Fashion-MNIST (d = 784), on a loaded machine, strips of
// 256 and 512 rows with blocks of 4 to 32 MiB ran a pass over 20,000 images in the same
// time to within the noise, 7.5–8.8 s, against 19.5 s for the full rows; over 70,000,
// strips of 512 rows and blocks of 8 MiB took 90 s, of 256 rows and 4 MiB 96 s (measured
// with the strips as the outer loop, before the panels were). Variables, so that tests
// can make strips of a single row and panels of a few points.
var (
	passStripRows  = 512
	passPanelBytes = 8 << 20
)

func (md *Model) passer() *passer {
	return &passer{md: md, cross: kernel.NewCrossNoCopy(md.kern, &md.view)}
}

// pass sets W (m×c, resized if empty) to K′·Q for the m×c matrix Q, whose columns must
// be orthogonal to 1 when the model is centred: then C·Q = Q and K′Q = C·(K·Q), so the
// pass computes K·Q and subtracts each column's mean. K is symmetric, and K·Q is
// computed from its upper triangle alone: the rows in strips of b, each strip
// I = lo…hi−1 against the points at and after lo, taken a panel of points
// P = j0…j1−1 at a time (panels at multiples of their width, the outer loop) and,
// within a panel, a strip at a time, for every strip that starts before j1 — the
// strip's columns P′ = max(j0, lo)…j1−1 of the panel: the kernel block K_{I,P′}
// (kernel.Cross.BlockColumnsTo, a dgemm of distances for an RBF), then
//
//	W_I += K_{I,P′}·Q_P′    (the strip's rows of K·Q; the columns before lo are
//	                        added by the second products of the strips above)
//	W_R += K_{I,R}ᵀ·Q_I     (R = the panel's points at hi or after: the strip's
//	                        columns right of its diagonal block, by symmetry the
//	                        rows of K below the strip)
//
// two dgemms, so that every kernel value outside the strips' diagonal blocks is
// computed once, where the full rows computed it twice (docs/design.md, "Passes over
// the points"). Panels outside, strips inside: the Cross keeps no shifted copy of the
// points (NewCrossNoCopy), and the BlockWork shifts a panel once for all the strips
// that reach it, where strips outside would shift each point once a strip. (Not ProjectTo, which projects each kernel row by a dgemv while it is in
// cache: right for a Transform's few components, but here Q has m·c entries, far beyond
// the cache, and each row would read all of them from memory.) It checks ctx before
// each panel and returns its error, and ErrNonFinite for a kernel value that is not
// finite, naming a point of the pair (blocks.NonFinite: the first value of its row
// that is not finite). W is then partly written, and the callers, which own it as
// scratch, discard it. (Written in place: a copy for an all-or-nothing W was m·c
// numbers of garbage a pass.) W must not share storage with Q.
func (p *passer) pass(ctx context.Context, W, Q *mat.Dense) error {
	md := p.md
	m, c := Q.Dims()
	if W.IsEmpty() {
		W.ReuseAs(m, c)
	}
	w, q, v := W.RawMatrix(), Q.RawMatrix(), md.view.RawMatrix()
	for i := range m {
		clear(w.Data[i*w.Stride : i*w.Stride+c])
	}
	rowsOf := func(a blas64.General, lo, hi int) blas64.General {
		return blas64.General{Rows: hi - lo, Cols: a.Cols, Stride: a.Stride, Data: a.Data[lo*a.Stride:]}
	}
	panel := max(1, passPanelBytes/(8*passStripRows))
	for j0 := 0; j0 < m; j0 += panel {
		j1 := min(j0+panel, m)
		for lo := 0; lo < j1; lo += passStripRows {
			if err := ctx.Err(); err != nil {
				return err
			}
			hi := min(lo+passStripRows, m)
			b, c0 := hi-lo, max(j0, lo)
			n := j1 - c0
			if cap(p.kb) < b*n {
				p.kb = make([]float64, b*n)
			}
			kb := blas64.General{Rows: b, Cols: n, Stride: n, Data: p.kb[:b*n]}
			p.kd.SetRawMatrix(kb)
			p.xd.SetRawMatrix(rowsOf(v, lo, hi))
			p.cross.BlockColumnsTo(&p.kd, &p.xd, c0, j1, &p.work)
			for i := range b {
				if !vec.Finite(kb.Data[i*n : i*n+n]) {
					return blocks.NonFinite(ErrNonFinite, p.cross, &md.view, lo+i, "point")
				}
			}
			native.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, rowsOf(q, c0, j1), 1, rowsOf(w, lo, hi))
			if r := max(c0, hi); r < j1 {
				right := blas64.General{Rows: b, Cols: j1 - r, Stride: n, Data: kb.Data[r-c0:]}
				native.Gemm(blas.Trans, blas.NoTrans, 1, right, rowsOf(q, lo, hi), 1, rowsOf(w, r, j1))
			}
		}
	}
	if !md.opts.Uncentred {
		if cap(p.mean) < c {
			p.mean = make([]float64, c)
		}
		centreColumnsWith(W, p.mean[:c])
	}
	return nil
}

// pass is one pass with a passer of its own (tests, and a single pass).
func (md *Model) pass(ctx context.Context, W, Q *mat.Dense) error {
	return md.passer().pass(ctx, W, Q)
}

// centreColumns subtracts from each column of A its mean: A ← C·A.
func centreColumns(A *mat.Dense) {
	_, c := A.Dims()
	centreColumnsWith(A, make([]float64, c))
}

// centreColumnsWith is centreColumns with the scratch mean, of A's number of columns.
func centreColumnsWith(A *mat.Dense, mean []float64) {
	r, _ := A.Dims()
	clear(mean)
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
