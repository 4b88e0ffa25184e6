package native

import "gonum.org/v1/gonum/blas"

// TopFallbacks returns how many partial solves fell back to the full tridiagonal solve
// (topFallbacks), for the external tests.
func TopFallbacks() int64 { return topFallbacks.Load() }

// Stored is stored (the dimensions of the matrix stored for op(X)), for the external
// tests.
func Stored(t blas.Transpose, r, c int) (rows, cols int) { return stored(t, r, c) }
