package nystrom

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// components returns the number of eigenpairs the model reports: min(r', n−1), the
// rank the centred covariance of n points can have (none before the second point), or
// min(r', n) uncentred.
func (md *Model) components() int {
	if md.opts.Uncentred {
		return min(md.p, md.n)
	}
	if md.n < 2 {
		return 0
	}
	return min(md.p, md.n-1)
}

// settle computes the decomposition from the sums when points came since the last
// read: the mean s/n of the shifted features, C = S − s·sᵀ/n (each sum hi + lo rounded
// once; C = S = Σφφᵀ for an uncentred model, whose shift is zero), and C's eigenpairs by native.EigenSymInPlace, in descending order, each
// eigenvector's largest-magnitude entry made positive (package sign: for this model
// the vector signed is the direction vⱼ in the feature space Rʳ'). O(r'³).
//
// It is lazy, and not done at Add, because an r'×r' eigendecomposition per point would
// cost r' times the point itself. It cannot fail: C is finite (the sums are bounded by
// 2¹⁰⁰⁰, see sumLimit), it is scaled by a power of two so that its largest entry is
// about 1 and entries below 2⁻⁹⁰⁰ of it are set to zero — a change far below rounding
// that leaves no subnormal number for the eigensolver — and LAPACK's dsyevd (gonum's
// Dsyev in pure Go) does not fail on a finite symmetric matrix. Were it ever to,
// settle panics with the error rather than return a wrong spectrum.
func (md *Model) settle() {
	if md.fresh {
		return
	}
	p, n := md.p, md.n
	if n == 0 {
		clear(md.mean)
		md.fresh = true
		return
	}
	fn := float64(n)
	s := md.mean
	md.sum.value(s)
	var big float64
	centre := 1.0
	if md.opts.Uncentred {
		centre = 0
	}
	for i := range p {
		for j := i; j < p; j++ {
			v := md.sq.at(i, j) - centre*(s[i]*s[j]/fn)
			md.cmat[i*p+j] = v
			big = math.Max(big, math.Abs(v))
		}
	}
	for i := range s {
		s[i] /= fn
	}
	if md.components() == 0 {
		md.fresh = true
		return
	}
	// Scale by 2⁻ᵉ with big = f·2ᵉ, f ∈ [½, 1): exact (Ldexp, not a product by 2⁻ᵉ,
	// which overflows for e < −1023).
	_, e := math.Frexp(big)
	for i := range p {
		row := md.cmat[i*p+i : i*p+p]
		for j, v := range row {
			v = math.Ldexp(v, -e)
			if math.Abs(v) < 0x1p-900 {
				v = 0
			}
			row[j] = v
		}
	}
	if err := native.EigenSymInPlace(p, md.cmat, p, md.vals, true); err != nil {
		panic(fmt.Sprintf("nystrom: internal error: the eigendecomposition of a finite %d×%d matrix failed: %v", p, p, err))
	}
	// Ascending to descending, unscaled.
	for q := range p / 2 {
		md.vals[q], md.vals[p-1-q] = md.vals[p-1-q], md.vals[q]
	}
	for q, v := range md.vals {
		md.vals[q] = math.Ldexp(v, e)
	}
	for i := range p {
		src, dst := md.cmat[i*p:(i+1)*p], md.vecs[i*p:(i+1)*p]
		for q := range p {
			dst[q] = src[p-1-q]
		}
	}
	sign.Flip(mat.NewDense(p, p, md.vecs))
	// The map folded into the directions for Transform: (φ − φ̄)ᵀV = kᵀ(F·V) − (c + φ̄)ᵀV,
	// so that a point costs 2·r·k flops beyond its kernel values rather than the
	// 2·r·r' of its features. G = F·V is 2·r·r'² flops here, once per decomposition.
	// Uncentred, the scores are φᵀV = kᵀ(F·V): b = 0 (c is zero, and no mean is
	// subtracted).
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, general(md.r, p, md.f), general(p, p, md.vecs), 0, general(md.r, p, md.fold))
	clear(md.base)
	for j := range p {
		cj := md.shift[j] + centre*md.mean[j]
		for q, v := range md.vecs[j*p : (j+1)*p] {
			md.base[q] += cj * v
		}
	}
	md.fresh = true
}

// Values returns the eigenvalues of the centred Nyström-approximated kernel matrix
// CK̃C (K̃ = K_nL·K_LL⁺·K_Ln over the n points added, C = I − 11ᵀ/n), which are those
// of the feature covariance C = Σφφᵀ − n·φ̄φ̄ᵀ (not divided by n), in descending order:
// min(r', n−1) of them (none before the second point). An uncentred model's
// (Options.Uncentred) are those of K̃ and Σφφᵀ, min(r', n) of them. dst follows the rule
// of ikpca.Model.Values. The decomposition is computed here when points came since the
// last read (O(r'³)); it cannot fail.
func (md *Model) Values(dst []float64) []float64 {
	md.settle()
	c := md.components()
	dst = check.Room(dst, c)
	copy(dst, md.vals[:c])
	return dst
}

// ExplainedVariance returns each component's share λⱼ/Σλ of the total variance, the
// trace of C, in the order of Values. Eigenvalues that rounding made slightly negative
// count as zero. dst follows the rule of Values.
func (md *Model) ExplainedVariance(dst []float64) []float64 {
	md.settle()
	c := md.components()
	dst = check.Room(dst, c)
	var total float64
	if c > 0 {
		for _, v := range md.vals {
			total += math.Max(v, 0)
		}
	}
	for i := range dst {
		dst[i] = 0
		if total > 0 {
			dst[i] = math.Max(md.vals[i], 0) / total
		}
	}
	return dst
}

// VectorsTo writes the principal directions in the feature space Rʳ' (unit columns,
// r'×k with k = len(Values)) to dst, in the order of Values: the score of a point x on
// component j is (φ(x) − φ̄)ᵀvⱼ, or φ(x)ᵀvⱼ uncentred. Each column's largest-magnitude entry is positive
// (package sign, docs/design.md, "Signs"). dst follows the rule for
// destinations of package ikpca: written in place if of that shape, resized if empty (and left
// empty if there is no component), replaced by a new matrix otherwise.
func (md *Model) VectorsTo(dst *mat.Dense) {
	md.settle()
	p, c := md.p, md.components()
	if !check.Vectors(dst, p, c) {
		return
	}
	for i := range p {
		for q, v := range md.vecs[i*p : i*p+c] {
			dst.Set(i, q, v)
		}
	}
}

// Transform writes the scores of the rows of X on the top k components to dst (rows×k,
// resized if empty): (φ(x) − φ̄)ᵀvⱼ with the unit directions vⱼ of VectorsTo, the
// convention of ikpca.Model.Transform for a centring model, or φ(x)ᵀvⱼ uncentred. For a point the model has
// seen, that is its coordinate in the kernel PCA of K̃. The rows go a block at a time
// through their kernel values against the landmarks (kernel.Cross: a dgemm for RBF,
// polynomial and linear kernels, every value within the accuracy docs/design.md,
// "Kernel blocks", states) and the products with the map folded into the directions,
// kᵀ(F·V_k) − (c + φ̄)ᵀV_k (Cross.ProjectTo: for RBF each row's as soon as it is
// computed): a point costs 2·r·k flops beyond its kernel values, and its first scores
// do not depend on k. Errors are those of ikpca.Model.Transform, and
// leave dst unchanged.
func (md *Model) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if md.r == 0 {
		return errZero
	}
	X, _, err := kinds.Transform(dst, X, md.d, k, md.components())
	if err != nil {
		return err
	}
	md.settle()
	r, p := md.r, md.p
	// The product with G = F·V_k goes with the kernel block (kernel.Cross.ProjectTo:
	// for RBF each row of the block projected as soon as it is computed), which takes
	// G's columns as the rows of a k×r matrix. Only the shared Cross, G and b are read,
	// and the scratch is KernelProjections' own, so that reads may run concurrently.
	gt := mat.NewDense(k, r, nil)
	for l := range r {
		for q, v := range md.fold[l*p : l*p+k] {
			gt.Set(q, l, v)
		}
	}
	return blocks.KernelProjections(dst, md.cross, X, gt, func(lo, hi, bad int, out *mat.Dense) error {
		if bad >= 0 {
			return blocks.NonFinite(ErrNonFinite, md.cross, X, lo+bad, "landmark")
		}
		for i := range hi - lo {
			row := out.RawRowView(i)
			for q, b := range md.base[:k] {
				row[q] -= b
			}
			for _, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: the score of point %d is %g", ErrNonFinite, lo+i, v)
				}
			}
		}
		return nil
	})
}

// Map returns the feature vector φ(x) = Σ^−½Wᵀk(L, x) ∈ Rʳ' of the point x, whose inner
// products are the Nyström approximation of the kernel: φ(x)ᵀφ(y) = k(x, L)·K_LL⁺·k(L, y)
// over the pairs kept. Its kernel values are a one-row kernel block, as Transform's
// (kernel.Cross). dst follows the rule of Values. A point of the wrong dimension is an
// ErrDimension, a non-finite coordinate or kernel value an ErrNonFinite.
func (md *Model) Map(dst, x []float64) ([]float64, error) {
	if md.r == 0 {
		return nil, errZero
	}
	if err := kinds.Point(x, md.d); err != nil {
		return nil, err
	}
	// A header over x (BlockTo does not write X) and scratch of its own, so that reads
	// may run concurrently.
	kv := mat.NewDense(1, md.r, nil)
	var work kernel.BlockWork
	md.cross.BlockTo(kv, mat.NewDense(1, md.d, x), &work)
	col := kv.RawMatrix().Data
	if err := finiteKernel(col, 0); err != nil {
		return nil, err
	}
	dst = check.Room(dst, md.p)
	native.Gemv(blas.Trans, 1, general(md.r, md.p, md.f), blas64.Vector{N: md.r, Inc: 1, Data: col},
		0, blas64.Vector{N: md.p, Inc: 1, Data: dst})
	return dst, nil
}
