package kpca

import (
	"reflect"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// isNil reports whether x is nil or holds a nil pointer: a typed nil such as
// (*mat.Dense)(nil), whose methods would panic.
func isNil(x any) bool {
	if x == nil {
		return true
	}
	v := reflect.ValueOf(x)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// vector points the header h at x and returns it: package update takes its vectors as
// mat.Vector, and a header kept in the model passes a scratch slice without allocating
// (a *mat.VecDense of increment 1 is read in place).
func vector(h *mat.VecDense, x []float64) *mat.VecDense {
	h.SetRawVector(blas64.Vector{N: len(x), Inc: 1, Data: x})
	return h
}
