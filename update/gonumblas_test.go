package update

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// useGonumBLAS registers gonum's pure-Go BLAS and returns a function that restores the
// previous implementation. Tests using it must not run in parallel with others.
func useGonumBLAS(t *testing.T) (restore func()) {
	t.Helper()
	prev := blas64.Implementation()
	blas64.Use(gonum.Implementation{})
	return func() { blas64.Use(prev) }
}
