package preimage

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// KRR is a learned pre-image map: kernel ridge regression from scores to points,
// scikit-learn's KernelPCA(fit_inverse_transform=True).inverse_transform. It holds
// the n training score vectors sᵢ (of k components) and the n×d dual coefficients
//
//	A = (K_S + α·I)⁻¹·X,   (K_S)ᵢⱼ = k(sᵢ, sⱼ),
//
// for the training points X, and maps a score vector y to the point k(y, S)·A
// (docs/design.md, "Pre-images"). The kernel is the model's, applied to the score
// vectors: an RBF of γ = 0.1 is exp(−0.1·‖y − sᵢ‖²) on scores, as in scikit-learn.
//
// Create one with FitKRR, kpca.Model.Inverse or nystrom.Model.Inverse; a zero KRR is
// not usable (InverseTransform returns ErrArgument). A KRR is never changed once made,
// and InverseTransform may run on several goroutines at once.
type KRR struct {
	kern    kernel.Kernel
	alpha   float64
	n, k, d int
	scores  *mat.Dense    // n×k training scores
	coef    *mat.Dense    // n×d dual coefficients A
	cross   *kernel.Cross // the scores prepared for kernel blocks
	rcond   float64
}

// FitKRR fits the pre-image map from the n training score vectors, the rows of scores
// (n×k), to the n training points, the rows of X (n×d), with the kernel k and the
// ridge alpha ≥ 0: it forms K_S = k(scores, scores) (kernel.Matrix), adds alpha to its
// diagonal and solves (K_S + α·I)·A = X by Cholesky (LAPACK dpotrf and dpotrs), as
// scikit-learn's _fit_inverse_transform does with scipy.linalg.solve(assume_a="pos").
// A matrix that is not numerically positive definite — α = 0 with coinciding scores,
// or a kernel that is not positive semi-definite — is solved by LU with partial
// pivoting instead (dgetrf), where scipy raises LinAlgError. A system singular to
// working precision (its reciprocal condition number, LAPACK's estimate, below 2⁻⁵³)
// is an error wrapping ErrArgument, where scikit-learn warns and returns what the
// solve gave: give a larger alpha. scikit-learn's default alpha is 1.
//
// It costs O(n²) memory — K_S, n² numbers: n is at most 2¹⁵ = 32768 points, whose
// K_S takes 8 GiB (docs/design.md, "Sizes"); beyond, fit the map on a subset of the
// training points and their scores — and O(n²·(k + d) + n³/3) flops. scores and X are
// copied.
//
// A nil k or a kernel that kernel.Validate refuses, an alpha that is negative, NaN or
// infinite, a nil scores or X, and n beyond 2¹⁵ are errors wrapping ErrArgument;
// scores or X without rows or columns ErrEmpty, a different number of rows
// ErrDimension, and a NaN or an infinity in either, a kernel value or a coefficient
// ErrNonFinite.
func FitKRR(k kernel.Kernel, scores, X mat.Matrix, alpha float64) (*KRR, error) {
	if err := kinds.Kernel(kernel.Validate(k)); err != nil {
		return nil, err
	}
	if !(alpha >= 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("%w: ridge alpha %g, want a finite alpha ≥ 0", ErrArgument, alpha)
	}
	scores, n, kc, err := kinds.Data(scores)
	if err != nil {
		return nil, fmt.Errorf("%w (the scores)", err)
	}
	X, nx, d, err := kinds.Data(X)
	if err != nil {
		return nil, fmt.Errorf("%w (the points)", err)
	}
	if nx != n {
		return nil, fmt.Errorf("%w: %d score vectors and %d points", ErrDimension, n, nx)
	}
	if _, err := kinds.Floats("the scores' kernel matrix", n, n); err != nil {
		return nil, err
	}
	S := mat.DenseCopyOf(scores)
	coef := mat.DenseCopyOf(X)
	K := kernel.Matrix(k, S)
	raw := K.RawSymmetric()
	for i := range n {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: kernel value of score vectors %d and %d is %g", ErrNonFinite, i, i+j, v)
			}
		}
		row[0] += alpha
	}
	// A copy of the upper triangle for the LU fallback, made only if Cholesky fails:
	// dpotrf overwrites it. The fallback forms the full matrix from K again.
	b := coef.RawMatrix()
	rcond, ok := native.Posv(raw, b)
	if !ok {
		full := mat.NewDense(n, n, nil)
		K = kernel.Matrix(k, S)
		for i := range n {
			for j := i; j < n; j++ {
				v := K.At(i, j)
				if i == j {
					v += alpha
				}
				full.Set(i, j, v)
				full.Set(j, i, v)
			}
		}
		rcond, ok = native.Gesv(full.RawMatrix(), b)
	}
	// A reciprocal condition number below the unit roundoff is singular to working
	// precision: the test of LAPACK's expert drivers (dposvx, dgesvx) and of
	// scipy.linalg.solve's warning.
	if !ok || !(rcond >= vec.Roundoff) {
		return nil, fmt.Errorf("%w: the scores' kernel matrix plus %g·I is singular to working precision (reciprocal condition number %.3g): give a larger alpha", ErrArgument, alpha, rcond)
	}
	for i := range n {
		for j, v := range coef.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: dual coefficient (%d, %d) is %g", ErrNonFinite, i, j, v)
			}
		}
	}
	return &KRR{kern: k, alpha: alpha, n: n, k: kc, d: d, scores: S, coef: coef,
		cross: kernel.NewCross(k, S), rcond: rcond}, nil
}

// Len returns the number n of training score vectors and points the map was fitted on.
func (r *KRR) Len() int { return r.n }

// Components returns the number k of components of a score vector, the columns
// InverseTransform's Y must have.
func (r *KRR) Components() int { return r.k }

// Dim returns the dimension d of the points, the columns of InverseTransform's result.
func (r *KRR) Dim() int { return r.d }

// Kernel returns the kernel applied to the score vectors.
func (r *KRR) Kernel() kernel.Kernel { return r.kern }

// Alpha returns the ridge α.
func (r *KRR) Alpha() float64 { return r.alpha }

// RCond returns LAPACK's estimate of the reciprocal 1-norm condition number of
// K_S + α·I (dpocon, or dgecon after the LU fallback): the dual coefficients carry a
// relative error of about 2⁻⁵³/RCond() (docs/design.md, "Pre-images").
func (r *KRR) RCond() float64 { return r.rcond }

// DualCoefTo copies the n×d dual coefficients A = (K_S + α·I)⁻¹·X into dst:
// scikit-learn's dual_coef_. An n×d dst is written in place, an empty one resized, and
// one of another shape replaced by a new matrix, as a model's VectorsTo does (nothing
// panics). A zero KRR, and a nil dst, leave dst as it is.
func (r *KRR) DualCoefTo(dst *mat.Dense) {
	if r.coef == nil || !check.Vectors(dst, r.n, r.d) {
		return
	}
	dst.Copy(r.coef)
}

// InverseTransform writes to the rows of dst the pre-images of the score vectors in the
// rows of Y (k = Components() columns): k(y, S)·A, scikit-learn's inverse_transform.
// The kernel values come a block of 512 rows at a time (blocks.Rows, kernel.Cross),
// each block multiplied by A in one dgemm: n kernel values and 2·n·d flops a row. dst
// is resized if empty, otherwise it must be rows×Dim(). A zero KRR, a nil dst or a
// nil Y are errors wrapping ErrArgument, Y without rows ErrEmpty, Y of other than k
// columns or a dst of another shape ErrDimension, and a NaN or an infinity in Y, a
// kernel value or a result ErrNonFinite; on error dst is unchanged.
func (r *KRR) InverseTransform(dst *mat.Dense, Y mat.Matrix) error {
	if r.coef == nil {
		return fmt.Errorf("%w: a zero KRR: make one with FitKRR or a model's Inverse", ErrArgument)
	}
	Y, rows, err := kinds.Points(Y, r.k)
	if err != nil {
		return err
	}
	if err := kinds.Dst(dst, rows, r.d); err != nil {
		return err
	}
	res := mat.NewDense(rows, r.d, nil)
	kbuf := make([]float64, min(blocks.Size, rows)*r.n)
	var work kernel.BlockWork
	err = blocks.Rows(Y, r.k, func(lo, hi int, yb *mat.Dense) error {
		kb := mat.NewDense(hi-lo, r.n, kbuf[:(hi-lo)*r.n])
		r.cross.BlockTo(kb, yb, &work)
		for i := range hi - lo {
			for j, v := range kb.RawRowView(i) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: kernel value of score vector %d with training score %d is %g", ErrNonFinite, lo+i, j, v)
				}
			}
		}
		out := res.Slice(lo, hi, 0, r.d).(*mat.Dense)
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, kb.RawMatrix(), r.coef.RawMatrix(), 0, out.RawMatrix())
		for i := range hi - lo {
			for j, v := range out.RawRowView(i) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: coordinate %d of pre-image %d is %g", ErrNonFinite, j, lo+i, v)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	check.Reuse(dst, rows, r.d)
	dst.Copy(res)
	return nil
}

// general returns the r×c row-major matrix held in data.
func general(r, c int, data []float64) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: max(c, 1), Data: data[:r*c]}
}
