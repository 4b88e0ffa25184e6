package kpca

import (
	"github.com/ikpca/ikpca/internal/truncation"
	"gonum.org/v1/gonum/mat"
)

// bounds computes the bounds of a Certificate from the Ritz values theta
// (descending), their residuals R (m×k, orthogonal to the Ritz vectors) and the tail
// bound tail, widened by rnd: truncation.RitzBounds on RᵀR (docs/design.md,
// "Certificates").
func bounds(theta []float64, R *mat.Dense, tail, rnd float64) Certificate {
	k := len(theta)
	G := mat.NewSymDense(k, nil)
	G.SymOuterK(1, R.T())
	lower, upper, sine := truncation.RitzBounds(theta, G, tail, rnd)
	return Certificate{Ritz: theta, Lower: lower, Upper: upper, Sine: sine, Tail: tail + rnd, Rounding: rnd}
}

// ritzSine returns the sine of the largest principal angle between the spans of the
// first j columns of the identity and of the orthogonal k×k matrix S:
// ‖(I − SⱼSⱼᵀ)·Eⱼ‖₂, formed directly rather than from the cosines, which cannot
// resolve sines below 1e-8.
func ritzSine(S *mat.Dense, j int) float64 {
	k, _ := S.Dims()
	Sj := S.Slice(0, k, 0, j)
	E := mat.NewDense(k, j, nil)
	for i := range j {
		E.Set(i, i, 1)
	}
	var c, sc mat.Dense
	c.Mul(Sj.T(), E)
	sc.Mul(Sj, &c)
	E.Sub(E, &sc)
	return spectralNorm(E)
}

// spectralNorm returns ‖A‖₂, the largest singular value, as the square root of the
// largest eigenvalue of AᵀA (for the small matrices of a certificate; mat.Norm(A, 2) is
// the Frobenius norm).
func spectralNorm(A *mat.Dense) float64 {
	_, c := A.Dims()
	g := mat.NewSymDense(c, nil)
	g.SymOuterK(1, A.T())
	return truncation.BlockNorm(g, 0, c)
}
