//go:build !(cgo && openblas)

package native

import (
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Compiled is the name of the backend compiled into this binary: "gonum"
// (this pure-Go build) or "openblas" (-tags openblas with cgo).
const Compiled = "gonum"

// compiledBLAS is the BLAS implementation called directly by Gemm.
var compiledBLAS blas.Float64 = gonumblas.Implementation{}

func register() {
	blas64.Use(gonumblas.Implementation{})
	lapack64.Use(gonumlapack.Implementation{})
}

func classify(blas.Float64) (Info, bool) { return Info{}, false }

// SetThreads sets the number of OpenBLAS threads in the openblas build. In
// this pure-Go build it always returns [ErrFixedThreads] (after rejecting
// n < 1): gonum's BLAS has no thread setting, its parallelism follows
// runtime.GOMAXPROCS.
func SetThreads(n int) error {
	if n < 1 {
		return fmt.Errorf("native: SetThreads(%d): thread count must be at least 1", n)
	}
	return ErrFixedThreads
}

// Threads returns the number of threads OpenBLAS uses in the openblas build.
// In this pure-Go build it returns runtime.GOMAXPROCS(0).
func Threads() int {
	return runtime.GOMAXPROCS(0)
}

// eigenSym runs gonum's native Dsyev directly (not through lapack64).
// Arguments have been validated by EigenSymInPlace; n >= 1.
func eigenSym(n int, a []float64, lda int, w []float64, vectors bool) error {
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

// svdLeft runs gonum's Dgesvd (JOBU = 'S', JOBVT = 'N'): gonum has no divide-and-conquer
// SVD. Arguments have been validated by SVDLeft; m, n >= 1.
func svdLeft(m, n int, a []float64, lda int, s, u []float64, ldu int) error {
	var impl gonumlapack.Implementation
	query := make([]float64, 1)
	impl.Dgesvd(lapack.SVDStore, lapack.SVDNone, m, n, a, lda, s, u, ldu, nil, 1, query, -1)
	work := make([]float64, max(int(query[0]), 1))
	if !impl.Dgesvd(lapack.SVDStore, lapack.SVDNone, m, n, a, lda, s, u, ldu, nil, 1, work, len(work)) {
		return fmt.Errorf("native: Dgesvd did not converge (%d×%d)", m, n)
	}
	return nil
}
