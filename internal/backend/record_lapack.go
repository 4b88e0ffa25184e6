package backend

// Every method of lapack.Float64 (gonum v0.17) notes the caller, then delegates to gonum's
// pure-Go implementation. The assertion below stops the build if gonum adds a method.

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

var _ lapack.Float64 = recordLAPACK{}

func (rec recordLAPACK) Dgecon(norm lapack.MatrixNorm, n int, a []float64, lda int, anorm float64, work []float64, iwork []int) float64 {
	rec.note()
	return gonumlapack.Implementation{}.Dgecon(norm, n, a, lda, anorm, work, iwork)
}

func (rec recordLAPACK) Dgeev(jobvl lapack.LeftEVJob, jobvr lapack.RightEVJob, n int, a []float64, lda int, wr, wi []float64, vl []float64, ldvl int, vr []float64, ldvr int, work []float64, lwork int) (first int) {
	rec.note()
	return gonumlapack.Implementation{}.Dgeev(jobvl, jobvr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, work, lwork)
}

func (rec recordLAPACK) Dgels(trans blas.Transpose, m, n, nrhs int, a []float64, lda int, b []float64, ldb int, work []float64, lwork int) bool {
	rec.note()
	return gonumlapack.Implementation{}.Dgels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork)
}

func (rec recordLAPACK) Dgelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	rec.note()
	gonumlapack.Implementation{}.Dgelqf(m, n, a, lda, tau, work, lwork)
}

func (rec recordLAPACK) Dgeqp3(m, n int, a []float64, lda int, jpvt []int, tau, work []float64, lwork int) {
	rec.note()
	gonumlapack.Implementation{}.Dgeqp3(m, n, a, lda, jpvt, tau, work, lwork)
}

func (rec recordLAPACK) Dgeqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	rec.note()
	gonumlapack.Implementation{}.Dgeqrf(m, n, a, lda, tau, work, lwork)
}

func (rec recordLAPACK) Dgesvd(jobU, jobVT lapack.SVDJob, m, n int, a []float64, lda int, s, u []float64, ldu int, vt []float64, ldvt int, work []float64, lwork int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dgesvd(jobU, jobVT, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork)
}

func (rec recordLAPACK) Dgetrf(m, n int, a []float64, lda int, ipiv []int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dgetrf(m, n, a, lda, ipiv)
}

func (rec recordLAPACK) Dgetri(n int, a []float64, lda int, ipiv []int, work []float64, lwork int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dgetri(n, a, lda, ipiv, work, lwork)
}

func (rec recordLAPACK) Dgetrs(trans blas.Transpose, n, nrhs int, a []float64, lda int, ipiv []int, b []float64, ldb int) {
	rec.note()
	gonumlapack.Implementation{}.Dgetrs(trans, n, nrhs, a, lda, ipiv, b, ldb)
}

func (rec recordLAPACK) Dggsvd3(jobU, jobV, jobQ lapack.GSVDJob, m, n, p int, a []float64, lda int, b []float64, ldb int, alpha, beta, u []float64, ldu int, v []float64, ldv int, q []float64, ldq int, work []float64, lwork int, iwork []int) (k, l int, ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dggsvd3(jobU, jobV, jobQ, m, n, p, a, lda, b, ldb, alpha, beta, u, ldu, v, ldv, q, ldq, work, lwork, iwork)
}

func (rec recordLAPACK) Dlantr(norm lapack.MatrixNorm, uplo blas.Uplo, diag blas.Diag, m, n int, a []float64, lda int, work []float64) float64 {
	rec.note()
	return gonumlapack.Implementation{}.Dlantr(norm, uplo, diag, m, n, a, lda, work)
}

func (rec recordLAPACK) Dlange(norm lapack.MatrixNorm, m, n int, a []float64, lda int, work []float64) float64 {
	rec.note()
	return gonumlapack.Implementation{}.Dlange(norm, m, n, a, lda, work)
}

func (rec recordLAPACK) Dlansy(norm lapack.MatrixNorm, uplo blas.Uplo, n int, a []float64, lda int, work []float64) float64 {
	rec.note()
	return gonumlapack.Implementation{}.Dlansy(norm, uplo, n, a, lda, work)
}

func (rec recordLAPACK) Dlapmr(forward bool, m, n int, x []float64, ldx int, k []int) {
	rec.note()
	gonumlapack.Implementation{}.Dlapmr(forward, m, n, x, ldx, k)
}

func (rec recordLAPACK) Dlapmt(forward bool, m, n int, x []float64, ldx int, k []int) {
	rec.note()
	gonumlapack.Implementation{}.Dlapmt(forward, m, n, x, ldx, k)
}

func (rec recordLAPACK) Dorgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	rec.note()
	gonumlapack.Implementation{}.Dorgqr(m, n, k, a, lda, tau, work, lwork)
}

func (rec recordLAPACK) Dormqr(side blas.Side, trans blas.Transpose, m, n, k int, a []float64, lda int, tau, c []float64, ldc int, work []float64, lwork int) {
	rec.note()
	gonumlapack.Implementation{}.Dormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork)
}

func (rec recordLAPACK) Dorglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	rec.note()
	gonumlapack.Implementation{}.Dorglq(m, n, k, a, lda, tau, work, lwork)
}

func (rec recordLAPACK) Dormlq(side blas.Side, trans blas.Transpose, m, n, k int, a []float64, lda int, tau, c []float64, ldc int, work []float64, lwork int) {
	rec.note()
	gonumlapack.Implementation{}.Dormlq(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork)
}

func (rec recordLAPACK) Dpbcon(uplo blas.Uplo, n, kd int, ab []float64, ldab int, anorm float64, work []float64, iwork []int) float64 {
	rec.note()
	return gonumlapack.Implementation{}.Dpbcon(uplo, n, kd, ab, ldab, anorm, work, iwork)
}

func (rec recordLAPACK) Dpbtrf(uplo blas.Uplo, n, kd int, ab []float64, ldab int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dpbtrf(uplo, n, kd, ab, ldab)
}

func (rec recordLAPACK) Dpbtrs(uplo blas.Uplo, n, kd, nrhs int, ab []float64, ldab int, b []float64, ldb int) {
	rec.note()
	gonumlapack.Implementation{}.Dpbtrs(uplo, n, kd, nrhs, ab, ldab, b, ldb)
}

func (rec recordLAPACK) Dpocon(uplo blas.Uplo, n int, a []float64, lda int, anorm float64, work []float64, iwork []int) float64 {
	rec.note()
	return gonumlapack.Implementation{}.Dpocon(uplo, n, a, lda, anorm, work, iwork)
}

func (rec recordLAPACK) Dpotrf(ul blas.Uplo, n int, a []float64, lda int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dpotrf(ul, n, a, lda)
}

func (rec recordLAPACK) Dpotri(ul blas.Uplo, n int, a []float64, lda int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dpotri(ul, n, a, lda)
}

func (rec recordLAPACK) Dpotrs(ul blas.Uplo, n, nrhs int, a []float64, lda int, b []float64, ldb int) {
	rec.note()
	gonumlapack.Implementation{}.Dpotrs(ul, n, nrhs, a, lda, b, ldb)
}

func (rec recordLAPACK) Dpstrf(uplo blas.Uplo, n int, a []float64, lda int, piv []int, tol float64, work []float64) (rank int, ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dpstrf(uplo, n, a, lda, piv, tol, work)
}

func (rec recordLAPACK) Dsyev(jobz lapack.EVJob, uplo blas.Uplo, n int, a []float64, lda int, w, work []float64, lwork int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dsyev(jobz, uplo, n, a, lda, w, work, lwork)
}

func (rec recordLAPACK) Dtbtrs(uplo blas.Uplo, trans blas.Transpose, diag blas.Diag, n, kd, nrhs int, a []float64, lda int, b []float64, ldb int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dtbtrs(uplo, trans, diag, n, kd, nrhs, a, lda, b, ldb)
}

func (rec recordLAPACK) Dtrcon(norm lapack.MatrixNorm, uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int, work []float64, iwork []int) float64 {
	rec.note()
	return gonumlapack.Implementation{}.Dtrcon(norm, uplo, diag, n, a, lda, work, iwork)
}

func (rec recordLAPACK) Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dtrtri(uplo, diag, n, a, lda)
}

func (rec recordLAPACK) Dtrtrs(uplo blas.Uplo, trans blas.Transpose, diag blas.Diag, n, nrhs int, a []float64, lda int, b []float64, ldb int) (ok bool) {
	rec.note()
	return gonumlapack.Implementation{}.Dtrtrs(uplo, trans, diag, n, nrhs, a, lda, b, ldb)
}
