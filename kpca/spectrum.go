package kpca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// basis describes the decomposition as the rest of the package reads it: the columns of
// the stored eigenvector matrix (ascending eigenvalues) that make up the reported
// spectrum, and how a stored vector maps to an eigenvector of K or K'.
//
// Centred, bordered: the stored matrix is W (eigenvectors of M = QᵀKQ), order m−1, and
// the eigenvectors of K' are Q·W. Uncentred: the eigenvectors of K themselves. Centred,
// rank-one: the eigenvectors of K' (order m) including the trivial one along 1, which is
// left out.
type basis struct {
	values  []float64 // all stored eigenvalues, ascending
	skip    int       // stored column left out (the trivial one), or −1
	helmert bool      // stored vectors are in Helmert coordinates
}

func (md *Model) basis() basis {
	b := basis{values: md.sym.Values(nil), skip: -1, helmert: md.opts.Mode == Centred && md.opts.Method == Bordered}
	if md.opts.Mode == Centred && md.opts.Method == RankOne && md.m > 0 {
		// The trivial eigenvector is the one most aligned with 1: the largest |uⱼᵀ1|.
		n := md.sym.Len()
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		proj := make([]float64, n)
		u := md.sym.Vectors().(*mat.Dense).RawMatrix()
		native.Gemv(blas.Trans, 1, u, blas64.Vector{N: n, Inc: 1, Data: ones}, 0, blas64.Vector{N: n, Inc: 1, Data: proj})
		best := 0
		for j, v := range proj {
			if math.Abs(v) > math.Abs(proj[best]) {
				best = j
			}
		}
		b.skip = best
	}
	return b
}

// order returns the stored columns of the reported spectrum in descending order of
// eigenvalue.
func (b basis) order() []int {
	idx := make([]int, 0, len(b.values))
	for j := len(b.values) - 1; j >= 0; j-- {
		if j != b.skip {
			idx = append(idx, j)
		}
	}
	return idx
}

// Values returns the eigenvalues of the reported spectrum in descending order: all m
// eigenvalues of K (uncentred), or the m−1 of K' other than its trivial zero along 1
// (centred). If dst is nil a slice is allocated; otherwise it must have the right length
// (Values panics otherwise, like gonum's EigenSym.Values).
func (md *Model) Values(dst []float64) []float64 {
	b := md.basis()
	idx := b.order()
	if dst == nil {
		dst = make([]float64, len(idx))
	}
	if len(dst) != len(idx) {
		panic(mat.ErrSliceLengthMismatch)
	}
	for q, j := range idx {
		dst[q] = b.values[j]
	}
	return dst
}

// Components returns the number of eigenvalues Values reports: m uncentred, m−1 centred.
func (md *Model) Components() int {
	if md.opts.Mode == Centred {
		return max(md.m-1, 0)
	}
	return md.m
}

// ExplainedVariance returns each component's share λⱼ/Σλ of the total variance (the
// trace of K or K'), in the order of Values. Eigenvalues that rounding made slightly
// negative count as zero. dst follows the rules of Values.
func (md *Model) ExplainedVariance(dst []float64) []float64 {
	dst = md.Values(dst)
	var sum float64
	for _, v := range dst {
		sum += math.Max(v, 0)
	}
	for i, v := range dst {
		if sum > 0 {
			dst[i] = math.Max(v, 0) / sum
		} else {
			dst[i] = 0
		}
	}
	return dst
}

// VectorsTo stores the unit eigenvectors of K (uncentred) or K' (centred) as the columns
// of dst, in the order of Values: dst is m×Components(), resized if empty (VectorsTo
// panics on a wrong non-empty size, like gonum's VectorsTo).
func (md *Model) VectorsTo(dst *mat.Dense) {
	b := md.basis()
	idx := b.order()
	m := md.m
	if dst.IsEmpty() {
		if len(idx) == 0 {
			return
		}
		dst.ReuseAs(m, len(idx))
	} else if r, c := dst.Dims(); r != m || c != len(idx) {
		panic(mat.ErrShape)
	}
	u := md.sym.Vectors()
	n := md.sym.Len()
	w := make([]float64, n)
	out := make([]float64, m)
	// Element loops rather than mat.Col and SetCol, which copy through the blas64
	// registry (package native is the library's only route to BLAS).
	for q, j := range idx {
		for i := range w {
			w[i] = u.At(i, j)
		}
		col := w
		if b.helmert {
			helmert(out, w, md.alpha)
			col = out
		}
		for i, v := range col {
			dst.Set(i, q, v)
		}
	}
}

// zeroTolerance is the eigenvalue below which a component is treated as zero in
// projections: m·ε times the largest eigenvalue magnitude.
func zeroTolerance(values []float64, m int) float64 {
	var big float64
	for _, v := range values {
		big = math.Max(big, math.Abs(v))
	}
	return float64(max(m, 1)) * 0x1p-52 * big
}

// Scores returns the training scores of the top k components, U_k·Λ_k^½ (m×k), the
// coordinates of the points in the kernel PCA basis. Components whose eigenvalue is zero
// or numerically zero (at most m·ε·λmax, or negative) score zero. dst is resized if
// empty, otherwise it must be m×k.
func (md *Model) Scores(dst *mat.Dense, k int) error {
	if k < 1 || k > md.Components() {
		return fmt.Errorf("%w: %d components requested of %d", ErrArgument, k, md.Components())
	}
	if err := shape(dst, md.m, k); err != nil {
		return err
	}
	var u mat.Dense
	md.VectorsTo(&u)
	values := md.Values(nil)
	tol := zeroTolerance(values, md.m)
	for j := range k {
		f := 0.0
		if values[j] > tol {
			f = math.Sqrt(values[j])
		}
		for i := range md.m {
			dst.Set(i, j, u.At(i, j)*f)
		}
	}
	return nil
}

// Transform projects the rows of X (new points of dimension Dim()) onto the top k
// components: score_j(x) = uⱼᵀk'ₓ/√λⱼ with k'ₓ the kernel column of x against the points,
// centred like K' (DESIGN.md §4.8; since uⱼ ⊥ 1 it is uⱼᵀ(kₓ − K1/m)), or kₓ itself
// uncentred. For a training point this is its training score (Scores), so incremental
// and batch kernel PCA agree. Components with a zero or numerically zero eigenvalue
// score zero (no division). dst is resized if empty, otherwise it must be rows×k.
func (md *Model) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if X == nil {
		return fmt.Errorf("%w: nil points", ErrEmpty)
	}
	rows, c := X.Dims()
	if rows == 0 {
		return fmt.Errorf("%w: no points to transform", ErrEmpty)
	}
	if c != md.d {
		return fmt.Errorf("%w: points have dimension %d, the model %d", ErrDimension, c, md.d)
	}
	if k < 1 || k > md.Components() {
		return fmt.Errorf("%w: %d components requested of %d", ErrArgument, k, md.Components())
	}
	for i := range rows {
		for j := range c {
			if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: point %d, coordinate %d is %g", ErrNonFinite, i, j, v)
			}
		}
	}
	if err := shape(dst, rows, k); err != nil {
		return err
	}

	b := md.basis()
	idx := b.order()[:k]
	m, n := md.m, md.sym.Len()
	// The top k stored vectors, as columns of a n×k matrix, and their scales 1/√λ.
	top := mat.NewDense(n, k, nil)
	u := md.sym.Vectors()
	tol := zeroTolerance(b.values, m)
	scale := make([]float64, k)
	for q, j := range idx {
		for i := range n {
			top.Set(i, q, u.At(i, j))
		}
		if b.values[j] > tol {
			scale[q] = 1 / math.Sqrt(b.values[j])
		}
	}
	// Kernel columns, centred, in the stored coordinates: a block of rows at a time.
	const block = 256
	x := make([]float64, c)
	kx := make([]float64, m)
	coords := mat.NewDense(min(block, rows), n, nil)
	var out mat.Dense
	centred := md.opts.Mode == Centred
	fm := float64(m)
	for lo := 0; lo < rows; lo += block {
		hi := min(lo+block, rows)
		cb := coords.Slice(0, hi-lo, 0, n).(*mat.Dense)
		for i := lo; i < hi; i++ {
			mat.Row(x, i, X)
			kernel.Column(kx, md.kern, &md.view, x)
			if centred {
				for j := range kx {
					kx[j] -= md.rowSum[j] / fm
				}
			}
			row := cb.RawRowView(i - lo)
			if b.helmert {
				helmertT(row, kx, md.alpha)
			} else {
				copy(row, kx)
			}
		}
		out.Reset()
		native.Mul(&out, cb, top)
		for i := lo; i < hi; i++ {
			for q := range k {
				dst.Set(i, q, out.At(i-lo, q)*scale[q])
			}
		}
	}
	return nil
}

// shape resizes an empty dst to r×c or checks its size.
func shape(dst *mat.Dense, r, c int) error {
	if dst == nil {
		return fmt.Errorf("%w: nil destination", ErrArgument)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
		return nil
	}
	if rr, cc := dst.Dims(); rr != r || cc != c {
		return fmt.Errorf("%w: destination is %d×%d, want %d×%d", ErrDimension, rr, cc, r, c)
	}
	return nil
}
