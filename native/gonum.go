package native

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// gonumEigenSym runs gonum's Dsyev directly (not through lapack64): the pure-Go
// build's eigensolver, and the openblas build's under internal/backend.WithGonum. gonum's
// LAPACK takes its BLAS from the blas64 registry. Arguments have been validated by
// EigenSymInPlace; n >= 1.
func gonumEigenSym(n int, a []float64, lda int, w []float64, vectors bool) error {
	var impl gonumlapack.Implementation
	jobz := lapack.EVNone
	if vectors {
		jobz = lapack.EVCompute
	}
	query := make([]float64, 1)
	impl.Dsyev(jobz, blas.Upper, n, a, lda, w, query, -1)
	lwork := max(int(query[0]), 3*n-1, 1)
	work := make([]float64, lwork)
	if !impl.Dsyev(jobz, blas.Upper, n, a, lda, w, work, lwork) {
		return fmt.Errorf("native: gonum Dsyev failed to converge (n=%d)", n)
	}
	return nil
}

// gonumSVDLeft runs gonum's Dgesvd (JOBU = 'S', JOBVT = 'N'): gonum has no divide-and-conquer
// SVD. Arguments have been validated by SVDLeft; m, n >= 1.
func gonumSVDLeft(m, n int, a []float64, lda int, s, u []float64, ldu int) error {
	var impl gonumlapack.Implementation
	query := make([]float64, 1)
	impl.Dgesvd(lapack.SVDStore, lapack.SVDNone, m, n, a, lda, s, u, ldu, nil, 1, query, -1)
	work := make([]float64, max(int(query[0]), 1))
	if !impl.Dgesvd(lapack.SVDStore, lapack.SVDNone, m, n, a, lda, s, u, ldu, nil, 1, work, len(work)) {
		return fmt.Errorf("native: Dgesvd did not converge (%d×%d)", m, n)
	}
	return nil
}
