package native

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
)

// The linear solvers of pre-images (package preimage): a symmetric positive definite
// system by Cholesky, as scipy.linalg.solve(assume_a="pos") solves it for
// scikit-learn's KernelPCA.inverse_transform (LAPACK dpotrf, dpotrs and the condition
// estimate dpocon), and a general one by LU with partial pivoting (dgetrf, dgetrs,
// dgecon) for a matrix that is not numerically positive definite. Like the rest of the
// package they call the compiled-in backend and panic on inconsistent dimensions.

// Posv solves A·X = B in place for the symmetric positive definite n×n matrix A, whose
// triangle a.Uplo it overwrites with the Cholesky factor (LAPACK dpotrf), B holding
// n×nrhs right-hand sides overwritten by X (dpotrs). It returns the reciprocal of the
// 1-norm condition number of A as LAPACK's dpocon estimates it, from ‖A‖₁ computed
// before the factorisation (dlansy), and ok = false, leaving B unchanged, if A is not
// numerically positive definite (a non-positive pivot: dpotrf's info > 0).
func Posv(a blas64.Symmetric, b blas64.General) (rcond float64, ok bool) {
	n := a.N
	if b.Rows != n {
		panic("native: Posv: B has the wrong number of rows")
	}
	if n == 0 {
		return 1, true
	}
	impl := lapackImpl()
	anorm := impl.Dlansy(lapack.MaxColumnSum, a.Uplo, n, a.Data, a.Stride, make([]float64, n))
	if !impl.Dpotrf(a.Uplo, n, a.Data, a.Stride) {
		return 0, false
	}
	rcond = impl.Dpocon(a.Uplo, n, a.Data, a.Stride, anorm, make([]float64, 3*n), make([]int, n))
	if b.Cols > 0 {
		impl.Dpotrs(a.Uplo, n, b.Cols, a.Data, a.Stride, b.Data, max(1, b.Stride))
	}
	return rcond, true
}

// Gesv solves A·X = B in place for the general n×n matrix A, which it overwrites with
// its LU factors (LAPACK dgetrf, partial pivoting), B holding n×nrhs right-hand sides
// overwritten by X (dgetrs). It returns the reciprocal of the 1-norm condition number
// of A as LAPACK's dgecon estimates it, and ok = false, leaving B unchanged, if a pivot
// is exactly zero (dgetrf's info > 0).
func Gesv(a blas64.General, b blas64.General) (rcond float64, ok bool) {
	n := a.Rows
	if a.Cols != n || b.Rows != n {
		panic("native: Gesv: A is not square or B has the wrong number of rows")
	}
	if n == 0 {
		return 1, true
	}
	impl := lapackImpl()
	anorm := impl.Dlange(lapack.MaxColumnSum, n, n, a.Data, a.Stride, make([]float64, n))
	ipiv := make([]int, n)
	if !impl.Dgetrf(n, n, a.Data, a.Stride, ipiv) {
		return 0, false
	}
	rcond = impl.Dgecon(lapack.MaxColumnSum, n, a.Data, a.Stride, anorm, make([]float64, 4*n), make([]int, n))
	if b.Cols > 0 {
		impl.Dgetrs(blas.NoTrans, n, b.Cols, a.Data, a.Stride, ipiv, b.Data, max(1, b.Stride))
	}
	return rcond, true
}
