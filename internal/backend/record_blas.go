package backend

// Every method of blas.Float64 (gonum v0.17) notes the caller, then delegates to gonum's
// pure-Go implementation. The assertion below stops the build if gonum adds a method.

import (
	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

var _ blas.Float64 = recordBLAS{}

func (rec recordBLAS) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	rec.note()
	return gonumblas.Implementation{}.Ddot(n, x, incX, y, incY)
}

func (rec recordBLAS) Dnrm2(n int, x []float64, incX int) float64 {
	rec.note()
	return gonumblas.Implementation{}.Dnrm2(n, x, incX)
}

func (rec recordBLAS) Dasum(n int, x []float64, incX int) float64 {
	rec.note()
	return gonumblas.Implementation{}.Dasum(n, x, incX)
}

func (rec recordBLAS) Idamax(n int, x []float64, incX int) int {
	rec.note()
	return gonumblas.Implementation{}.Idamax(n, x, incX)
}

func (rec recordBLAS) Dswap(n int, x []float64, incX int, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Dswap(n, x, incX, y, incY)
}

func (rec recordBLAS) Dcopy(n int, x []float64, incX int, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Dcopy(n, x, incX, y, incY)
}

func (rec recordBLAS) Daxpy(n int, alpha float64, x []float64, incX int, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Daxpy(n, alpha, x, incX, y, incY)
}

func (rec recordBLAS) Drotg(a, b float64) (c, s, r, z float64) {
	rec.note()
	return gonumblas.Implementation{}.Drotg(a, b)
}

func (rec recordBLAS) Drotmg(d1, d2, b1, b2 float64) (p blas.DrotmParams, rd1, rd2, rb1 float64) {
	rec.note()
	return gonumblas.Implementation{}.Drotmg(d1, d2, b1, b2)
}

func (rec recordBLAS) Drot(n int, x []float64, incX int, y []float64, incY int, c float64, s float64) {
	rec.note()
	gonumblas.Implementation{}.Drot(n, x, incX, y, incY, c, s)
}

func (rec recordBLAS) Drotm(n int, x []float64, incX int, y []float64, incY int, p blas.DrotmParams) {
	rec.note()
	gonumblas.Implementation{}.Drotm(n, x, incX, y, incY, p)
}

func (rec recordBLAS) Dscal(n int, alpha float64, x []float64, incX int) {
	rec.note()
	gonumblas.Implementation{}.Dscal(n, alpha, x, incX)
}

func (rec recordBLAS) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

func (rec recordBLAS) Dgbmv(tA blas.Transpose, m, n, kL, kU int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Dgbmv(tA, m, n, kL, kU, alpha, a, lda, x, incX, beta, y, incY)
}

func (rec recordBLAS) Dtrmv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	rec.note()
	gonumblas.Implementation{}.Dtrmv(ul, tA, d, n, a, lda, x, incX)
}

func (rec recordBLAS) Dtbmv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n, k int, a []float64, lda int, x []float64, incX int) {
	rec.note()
	gonumblas.Implementation{}.Dtbmv(ul, tA, d, n, k, a, lda, x, incX)
}

func (rec recordBLAS) Dtpmv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, ap []float64, x []float64, incX int) {
	rec.note()
	gonumblas.Implementation{}.Dtpmv(ul, tA, d, n, ap, x, incX)
}

func (rec recordBLAS) Dtrsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	rec.note()
	gonumblas.Implementation{}.Dtrsv(ul, tA, d, n, a, lda, x, incX)
}

func (rec recordBLAS) Dtbsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n, k int, a []float64, lda int, x []float64, incX int) {
	rec.note()
	gonumblas.Implementation{}.Dtbsv(ul, tA, d, n, k, a, lda, x, incX)
}

func (rec recordBLAS) Dtpsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, ap []float64, x []float64, incX int) {
	rec.note()
	gonumblas.Implementation{}.Dtpsv(ul, tA, d, n, ap, x, incX)
}

func (rec recordBLAS) Dsymv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
}

func (rec recordBLAS) Dsbmv(ul blas.Uplo, n, k int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Dsbmv(ul, n, k, alpha, a, lda, x, incX, beta, y, incY)
}

func (rec recordBLAS) Dspmv(ul blas.Uplo, n int, alpha float64, ap []float64, x []float64, incX int, beta float64, y []float64, incY int) {
	rec.note()
	gonumblas.Implementation{}.Dspmv(ul, n, alpha, ap, x, incX, beta, y, incY)
}

func (rec recordBLAS) Dger(m, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64, lda int) {
	rec.note()
	gonumblas.Implementation{}.Dger(m, n, alpha, x, incX, y, incY, a, lda)
}

func (rec recordBLAS) Dsyr(ul blas.Uplo, n int, alpha float64, x []float64, incX int, a []float64, lda int) {
	rec.note()
	gonumblas.Implementation{}.Dsyr(ul, n, alpha, x, incX, a, lda)
}

func (rec recordBLAS) Dspr(ul blas.Uplo, n int, alpha float64, x []float64, incX int, ap []float64) {
	rec.note()
	gonumblas.Implementation{}.Dspr(ul, n, alpha, x, incX, ap)
}

func (rec recordBLAS) Dsyr2(ul blas.Uplo, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64, lda int) {
	rec.note()
	gonumblas.Implementation{}.Dsyr2(ul, n, alpha, x, incX, y, incY, a, lda)
}

func (rec recordBLAS) Dspr2(ul blas.Uplo, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64) {
	rec.note()
	gonumblas.Implementation{}.Dspr2(ul, n, alpha, x, incX, y, incY, a)
}

func (rec recordBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	rec.note()
	gonumblas.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (rec recordBLAS) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	rec.note()
	gonumblas.Implementation{}.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (rec recordBLAS) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	rec.note()
	gonumblas.Implementation{}.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
}

func (rec recordBLAS) Dsyr2k(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	rec.note()
	gonumblas.Implementation{}.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (rec recordBLAS) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	rec.note()
	gonumblas.Implementation{}.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

func (rec recordBLAS) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	rec.note()
	gonumblas.Implementation{}.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}
