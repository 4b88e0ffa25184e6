// Package rbfrow finishes the rows of an RBF kernel block computed from the distance
// identity — the exponents, the exponentials and the products with a few vectors — for
// package kernel's Cross and Matrix (docs/design.md, "Kernel blocks"). With OpenBLAS
// on a CPU with AVX2 and FMA it runs in one vectorised pass of C (libmvec's exp),
// compiled without contraction into FMAs so that its values and marks are the Go
// loop's bit for bit; otherwise, and in the pure-Go build, in Go.
//
// It is internal: it serves package kernel only, and its arguments are the block's
// intermediate quantities, not anything a user of the library holds.
package rbfrow

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
)

// Finish finishes a row of an RBF kernel block computed from the distance identity
// (kernel.Cross; docs/design.md, "Kernel blocks"), and takes its products with the rows
// of p. On entry row[j] holds −2x̃ᵀỹⱼ, and yn[j] (len(yn) ≥ len(row)) and xn the squared
// norms ‖ỹⱼ‖² and ‖x̃‖². With s = xn + yn[j] and D̂ = s + row[j], the squared distance:
//
//   - where the identity's error bound coef·s + under is at most max(g2, D̂) and D̂ is
//     not NaN, row[j] becomes exp(−max(D̂, 0)·inv), as ExpNeg computes it: inv is the
//     exponent's scale, 1/(2σ²) or γ, and g2 its unit, 2σ² or 1/γ;
//   - elsewhere row[j] becomes e = exp(1), a value above 1 that no kernel value takes:
//     a mark, for the caller to evaluate that entry directly. Finish reports
//     whether it marked one.
//
// If it marked none, dots[q] (q < p.Rows, p having len(row) columns) becomes the product
// Σⱼ row[j]·p[q][j] of the finished row with row q of p, to the accuracy of a dot
// product (the summation order is the backend's); if it marked one, dots[:p.Rows] holds
// nothing meaningful, for the caller evaluates the marked entries and takes the
// products itself. A p without rows asks for no product. Finish panics if p or dots do
// not fit the row.
//
// With OpenBLAS, on a CPU with AVX2 and FMA, and for up to 32 rows of p, all of it runs
// four values at a time in one pass over the row — the Go loop's exponents, uncontracted,
// libmvec's exp as ExpNeg, and the products — where the pure-Go path takes the
// exponents, then ExpNeg, then one dgemv: the exponents cost as much as the
// exponentials, and a dgemv over a row of a thousand values as much again.
func Finish(row, yn []float64, xn, inv, g2, coef, under float64, p blas64.General, dots []float64) (marked bool) {
	if p.Rows > 0 && (p.Cols != len(row) || len(dots) < p.Rows) {
		panic(fmt.Sprintf("rbfrow: Finish: p is %d×%d and dots has %d values for a row of %d", p.Rows, p.Cols, len(dots), len(row)))
	}
	if len(row) == 0 {
		clear(dots[:p.Rows])
		return false
	}
	return finish(row, yn[:len(row)], xn, inv, g2, coef, under, p, dots)
}

// finishGo is Finish in Go: rbfRowGo, then one dgemv if nothing was marked.
func finishGo(row, yn []float64, xn, inv, g2, coef, under float64, p blas64.General, dots []float64) bool {
	if rbfRowGo(row, yn, xn, inv, g2, coef, under) {
		return true
	}
	if p.Rows > 0 {
		native.Gemv(blas.NoTrans, 1, p, blas64.Vector{N: len(row), Inc: 1, Data: row}, 0, blas64.Vector{N: p.Rows, Inc: 1, Data: dots})
	}
	return false
}

// rbfRowGo is the finishing of Finish in Go: the exponents, a marked entry set to
// −1 (exponents are not negative), then ExpNeg over the row.
//
// v = D̂·inv: the rounded reciprocal adds ε·v to a division's ε·v (docs/design.md,
// "Kernel blocks"). The common case — a bound below g2 and D̂ ≥ 0 — takes one
// well-predicted branch: a comparison of D̂ with g2 (for the max) mispredicts at
// random, and made two thirds of this loop's time, as did the max builtin's NaN and
// signed-zero rules. The rest — D̂ < 0 from rounding, a NaN D̂ (an overflow), a bound
// above g2 — is sorted out on the rare path.
func rbfRowGo(row, yn []float64, xn, inv, g2, coef, under float64) bool {
	yn = yn[:len(row)]
	marked := false
	for j, g := range row {
		s := xn + yn[j]
		dd := s + g
		t := coef*s + under
		if !(dd >= 0) || !(t <= g2) {
			if dd != dd || !(t <= g2 || t <= dd) {
				row[j] = -1
				marked = true
				continue
			}
			if dd < 0 {
				dd = 0
			}
		}
		row[j] = dd * inv
	}
	ExpNeg(row)
	return marked
}
