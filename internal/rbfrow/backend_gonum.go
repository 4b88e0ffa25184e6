//go:build !(cgo && openblas)

package rbfrow

import "gonum.org/v1/gonum/blas/blas64"

// expNeg is ExpNeg: the pure-Go table exponential.
func expNeg(x []float64) { expNegGo(x) }

// finish is Finish: the Go loop, then dgemv.
func finish(row, yn []float64, xn, inv, g2, coef, under float64, p blas64.General, dots []float64) bool {
	return finishGo(row, yn, xn, inv, g2, coef, under, p, dots)
}
