package native

import "gonum.org/v1/gonum/blas"

// TopFallbacks returns how many partial solves fell back to the full tridiagonal solve
// (topFallbacks), for the external tests.
func TopFallbacks() int64 { return topFallbacks.Load() }

// Stored is stored (the dimensions of the matrix stored for op(X)), for the external
// tests.
func Stored(t blas.Transpose, r, c int) (rows, cols int) { return stored(t, r, c) }

// TallSVD and TallChunkRows are tallSVD and tallChunkRows, and SVDTall and SVDLeftLAPACK
// the two ways SVDLeft factorises a tall matrix (svdTall, svdLeft), for the external
// tests.
var (
	TallSVD       = tallSVD
	TallChunkRows = tallChunkRows
	SVDTall       = svdTall
	SVDLeftLAPACK = svdLeft
)
