//go:build !(cgo && openblas)

package native

import (
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"

	"github.com/ikpca/ikpca/internal/backend"
)

// Compiled is the name of the backend compiled into this binary: "gonum"
// (this pure-Go build) or "openblas" (-tags openblas with cgo).
const Compiled = "gonum"

// compiledBLAS and compiledLAPACK return the implementations this package calls
// directly (blas.go).
func compiledBLAS() blas.Float64     { return gonumblas.Implementation{} }
func compiledLAPACK() lapack.Float64 { return gonumlapack.Implementation{} }

func register() {
	backend.Register(compiledBLAS(), compiledLAPACK())
}

func classify(blas.Float64) (Info, bool) { return Info{}, false }

// SetThreads sets the number of OpenBLAS threads in the openblas build. In
// this pure-Go build it always returns [ErrFixedThreads] (after rejecting
// n < 1 with an error wrapping [ErrArgument]; both wrap ikpca.ErrArgument): gonum's
// BLAS has no thread setting, its parallelism follows runtime.GOMAXPROCS.
func SetThreads(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: SetThreads(%d): thread count must be at least 1", ErrArgument, n)
	}
	return ErrFixedThreads
}

// Threads returns the number of threads OpenBLAS uses in the openblas build.
// In this pure-Go build it returns runtime.GOMAXPROCS(0).
func Threads() int {
	return runtime.GOMAXPROCS(0)
}

// eigenSym runs gonum's Dsyev (gonumEigenSym); arguments have been validated by
// EigenSymInPlace.
func eigenSym(n int, a []float64, lda int, w []float64, vectors bool) error {
	return gonumEigenSym(n, a, lda, w, vectors)
}

// svdLeft runs gonum's Dgesvd (gonumSVDLeft); arguments have been validated by SVDLeft.
func svdLeft(m, n int, a []float64, lda int, s, u []float64, ldu int) error {
	return gonumSVDLeft(m, n, a, lda, s, u, ldu)
}

// eigenSymTop runs the pure-Go partial eigensolver (gonumEigenSymTop); arguments have
// been validated by EigenSymTopInPlace, 1 ≤ r < n.
func eigenSymTop(n, r int, a []float64, lda int, w, z []float64, ldz int) error {
	return gonumEigenSymTop(n, r, a, lda, w, z, ldz)
}

// choleskyLower factorises the symmetric positive definite n×n matrix whose row-major
// lower triangle a holds (stride lda) as L·Lᵀ, L over that triangle (gonum's Dpotrf),
// and reports whether it completed. n ≥ 1.
func choleskyLower(n int, a []float64, lda int) bool {
	return lapackImpl().Dpotrf(blas.Lower, n, a, lda)
}
