package kpca

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// vector points the header h at x and returns it: package update takes its vectors as
// mat.Vector, and a header kept in the model passes a scratch slice without allocating
// (a *mat.VecDense of increment 1 is read in place).
func vector(h *mat.VecDense, x []float64) *mat.VecDense {
	h.SetRawVector(blas64.Vector{N: len(x), Inc: 1, Data: x})
	return h
}
