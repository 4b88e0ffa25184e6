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
//
// The matrix is first scaled by a power of two and cleared of negligible entries
// (gonumGuard), which gonum v0.17's Dsyev needs on tiny and subnormal inputs; a panic
// inside gonum's LAPACK, which would be a bug there, is returned as an error.
func gonumEigenSym(n int, a []float64, lda int, w []float64, vectors bool) (err error) {
	defer recoverLAPACK("Dsyev", &err)
	e := gonumGuard(n, a, lda)
	if err := gonumDsyev(n, a, lda, w, vectors); err != nil {
		return err
	}
	return unscale(w[:n], e)
}

// recoverLAPACK turns a panic of gonum's LAPACK routine name, deferred in its caller,
// into an error: the arguments have been checked, so a panic is a bug of gonum's, and
// the library does not panic on user input.
func recoverLAPACK(name string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: gonum %s failed: %v", ErrNotConverged, name, r)
	}
}

// gonumDsyev runs gonum's Dsyev on the upper triangle of a.
func gonumDsyev(n int, a []float64, lda int, w []float64, vectors bool) error {
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
		return fmt.Errorf("%w: gonum Dsyev (n=%d)", ErrNotConverged, n)
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
		return fmt.Errorf("%w: gonum Dgesvd (%d×%d)", ErrNotConverged, m, n)
	}
	return nil
}
