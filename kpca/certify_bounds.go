package kpca

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// bounds computes the bounds of a Certificate from the Ritz values theta
// (descending), their residuals R (m×k, orthogonal to the Ritz vectors) and the tail
// bound tail (docs/design.md, "Certificates"). For each j, with ρⱼ = ‖R[:, 0…j]‖₂ and
// H₂ the compression of K′ to the complement of the top j+1 Ritz vectors:
//
//	λmax(H₂) ≤ νⱼ = (a + c)/2 + √(((a − c)/2)² + fⱼ²),  a = θⱼ₊₁, c = tail, fⱼ = ‖R[:, j+1…]‖₂
//
// (νⱼ = tail for the last j), and if ηⱼ = θⱼ − νⱼ > 0, for every i ≤ j
//
//	θᵢ ≤ λᵢ(K′) ≤ θᵢ + 2ρⱼ²/(ηⱼ + √(ηⱼ² + 4ρⱼ²))   (Li and Li 2005; Mathias 1998)
//	sin∠(U[:, 0…j], top j+1 eigenvectors) ≤ ρⱼ/ηⱼ    (Davis and Kahan 1970)
//
// Without a gap, λᵢ(K′) ≤ max(θᵢ, tail) + ‖R‖₂ (Weyl). Every bound is widened by rnd.
func bounds(theta []float64, R *mat.Dense, tail, rnd float64) Certificate {
	k := len(theta)
	G := mat.NewSymDense(k, nil) // RᵀR: its leading and trailing blocks give ρⱼ and fⱼ
	G.SymOuterK(1, R.T())
	head := make([]float64, k) // ρⱼ
	rest := make([]float64, k) // fⱼ
	for j := range k {
		head[j] = blockNorm(G, 0, j+1)
		if j+1 < k {
			rest[j] = blockNorm(G, j+1, k)
		}
	}
	c := Certificate{
		Ritz: theta, Lower: make([]float64, k), Upper: make([]float64, k),
		Sine: make([]float64, k), Tail: tail + rnd, Rounding: rnd,
	}
	for j := range k {
		c.Lower[j] = theta[j] - rnd
		c.Upper[j] = math.Max(theta[j], tail) + head[k-1] + rnd
		c.Sine[j] = math.Inf(1)
	}
	for j := range k {
		nu := tail
		if j+1 < k {
			a := theta[j+1]
			nu = (a+tail)/2 + math.Hypot((a-tail)/2, rest[j])
		}
		eta := theta[j] - nu - 2*rnd
		if !(eta > 0) {
			continue
		}
		rho := head[j] + rnd
		c.Sine[j] = math.Min(1, rho/eta)
		q := 2 * rho * rho / (eta + math.Sqrt(eta*eta+4*rho*rho))
		for i := 0; i <= j; i++ {
			c.Upper[i] = math.Min(c.Upper[i], theta[i]+q+rnd)
		}
	}
	return c
}

// blockNorm returns the square root of the largest eigenvalue of the diagonal block
// lo…hi−1 of the positive semi-definite G: ‖R[:, lo…hi−1]‖₂ for G = RᵀR.
func blockNorm(G *mat.SymDense, lo, hi int) float64 {
	n := hi - lo
	b := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, G.At(lo+i, lo+j))
		}
	}
	v, err := native.EigenSym(nil, nil, b)
	if err != nil {
		// Only a non-finite G fails, which the residuals of finite products are not.
		return math.Inf(1)
	}
	return math.Sqrt(math.Max(v[n-1], 0))
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
	return blockNorm(g, 0, c)
}
