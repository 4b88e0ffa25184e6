//go:build cgo && openblas

package native

/*
#include <stddef.h>

// LAPACK's own entry points, which OpenBLAS exports and LAPACKE calls. The trailing
// size_t arguments are the lengths of the character arguments, which gfortran-compiled
// routines take last; OpenBLAS's C routines (dpotrf) ignore them.
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
	double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
	size_t, size_t);
void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
	const int *lda, const double *vl, const double *vu, const int *il, const int *iu,
	const double *abstol, int *m, double *w, double *z, const int *ldz, int *isuppz,
	double *work, const int *lwork, int *iwork, const int *liwork, int *info,
	size_t, size_t, size_t);

// The wrappers take their scalars by value and return INFO, so that no Go variable's
// address reaches C (it would be moved to the heap: an allocation at every call).
static int ikpca_dpotrf(char uplo, int n, double *a, int lda) {
	int info = 0;
	dpotrf_(&uplo, &n, a, &lda, &info, 1);
	return info;
}

static int ikpca_dsyevd(char jobz, char uplo, int n, double *a, int lda, double *w,
		double *work, int lwork, int *iwork, int liwork) {
	int info = 0;
	dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
	return info;
}

static int ikpca_dsyevr(char jobz, char uplo, int n, double *a, int lda, int il, int iu,
		int *m, double *w, double *z, int ldz, int *isuppz, double *work, int lwork,
		int *iwork, int liwork) {
	int info = 0;
	char range = 'I';
	double vl = 0, vu = 0, abstol = 0;
	dsyevr_(&jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu, &abstol, m, w, z, &ldz,
		isuppz, work, &lwork, iwork, &liwork, &info, 1, 1, 1);
	return info;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"github.com/ikpca/ikpca/internal/backend"
)

// LAPACK in its own column-major layout (docs/design.md, "Backends"). LAPACKE's
// row-major entry points, which gonum's netlib bindings call, copy every matrix into a
// column-major array they allocate, call LAPACK and copy it back: for a Cholesky
// factorisation of order 4000, 0.6 s where dpotrf itself took 0.27 s, the copies and the
// first touch of LAPACKE's 128 MB taking the rest. A symmetric matrix needs no copy:
// its row-major upper triangle is its column-major lower one, and the row-major lower
// the column-major upper. Only the eigenvectors, which LAPACK writes as columns of a
// column-major array, are transposed: dsyevd's in place, dsyevr's r from an n×r array.

// choleskyLower factorises the symmetric positive definite n×n matrix whose row-major
// lower triangle a holds (stride lda) as L·Lᵀ, L over that triangle, as LAPACK's dpotrf
// with UPLO = 'L' in row-major layout, and reports whether it completed (A positive
// definite to working accuracy). n ≥ 1.
func choleskyLower(n int, a []float64, lda int) bool {
	if backend.Gonum() {
		return lapackImpl().Dpotrf(blas.Lower, n, a, lda)
	}
	spinOnce.Do(shortenSpin)
	// The column-major upper triangle: A = UᵀU, U = Lᵀ.
	return C.ikpca_dpotrf('U', C.int(n), (*C.double)(&a[0]), C.int(lda)) == 0
}

// dsyevdColumns runs LAPACK dsyevd on the symmetric n×n matrix whose row-major upper
// triangle a holds (stride lda), with the workspace of ws, leaving the eigenvalues in w
// (ascending) and, with vectors, the eigenvectors in the rows of a's column-major
// n×n block, that is the columns of its row-major transpose: eigenSym transposes them.
func dsyevdColumns(n int, a []float64, lda int, w []float64, vectors bool, ws *lapackWork) error {
	jobz := C.char('N')
	if vectors {
		jobz = 'V'
	}
	pa, pw := (*C.double)(&a[0]), (*C.double)(&w[0])
	if C.ikpca_dsyevd(jobz, 'L', C.int(n), pa, C.int(lda), pw, (*C.double)(&ws.query[0]), -1, (*C.int)(unsafe.Pointer(&ws.iquery[0])), -1) != 0 {
		return fmt.Errorf("%w: dsyevd workspace query failed (n=%d)", ErrNotConverged, n)
	}
	work, iwork := ws.sized(int(ws.query[0]), int(ws.iquery[0]))
	if C.ikpca_dsyevd(jobz, 'L', C.int(n), pa, C.int(lda), pw, (*C.double)(&work[0]), C.int(len(work)), (*C.int)(unsafe.Pointer(&iwork[0])), C.int(len(iwork))) != 0 {
		return fmt.Errorf("%w: LAPACK dsyevd (n=%d)", ErrNotConverged, n)
	}
	return nil
}

// dsyevdRows is dsyevdColumns with the eigenvectors transposed into the columns of the
// row-major a, as EigenSymInPlace gives them.
func dsyevdRows(n int, a []float64, lda int, w []float64, vectors bool, ws *lapackWork) error {
	if err := dsyevdColumns(n, a, lda, w, vectors, ws); err != nil {
		return err
	}
	if vectors {
		transposeSquare(n, a, lda)
	}
	return nil
}

// dsyevrColumns runs LAPACK dsyevr with an index range (the eigenvalues n−r+1 … n in
// LAPACK's numbering) on the symmetric n×n matrix whose row-major upper triangle a holds
// (stride lda), leaving the r values in w and, when zc is not nil, their vectors in the
// columns of the column-major n×r array zc (leading dimension n). 1 ≤ r < n.
func dsyevrColumns(n, r int, a []float64, lda int, w, zc []float64) error {
	jobz, pz := C.char('N'), (*C.double)(nil)
	if zc != nil {
		jobz, pz = 'V', (*C.double)(&zc[0])
	}
	il, iu := C.int(n-r+1), C.int(n)
	found := make([]int32, 1)
	all := make([]float64, n) // dsyevr may use all of W while it selects
	isuppz := make([]int32, 2*n)
	query, iquery := make([]float64, 1), make([]int32, 1)
	pa, pm, pw, ps := (*C.double)(&a[0]), (*C.int)(unsafe.Pointer(&found[0])), (*C.double)(&all[0]), (*C.int)(unsafe.Pointer(&isuppz[0]))
	if C.ikpca_dsyevr(jobz, 'L', C.int(n), pa, C.int(lda), il, iu, pm, pw, pz, C.int(n), ps, (*C.double)(&query[0]), -1, (*C.int)(unsafe.Pointer(&iquery[0])), -1) != 0 {
		return fmt.Errorf("%w: dsyevr workspace query failed (n=%d)", ErrNotConverged, n)
	}
	work := make([]float64, max(1, int(query[0])))
	iwork := make([]int32, max(1, int(iquery[0])))
	if C.ikpca_dsyevr(jobz, 'L', C.int(n), pa, C.int(lda), il, iu, pm, pw, pz, C.int(n), ps, (*C.double)(&work[0]), C.int(len(work)), (*C.int)(unsafe.Pointer(&iwork[0])), C.int(len(iwork))) != 0 {
		return fmt.Errorf("%w: LAPACK dsyevr (n=%d, r=%d)", ErrNotConverged, n, r)
	}
	if int(found[0]) != r {
		return fmt.Errorf("%w: LAPACK dsyevr found %d eigenvalues, want %d", ErrNotConverged, found[0], r)
	}
	copy(w[:r], all[:r])
	return nil
}

// transposeSquare transposes the leading n×n block of a (stride lda) in place, in tiles
// of 64×64 so that both the rows and the columns swapped stay in cache.
func transposeSquare(n int, a []float64, lda int) {
	const tile = 64
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := i0; j0 < n; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := max(j0, i+1); j < min(j0+tile, n); j++ {
					a[i*lda+j], a[j*lda+i] = a[j*lda+i], a[i*lda+j]
				}
			}
		}
	}
}
