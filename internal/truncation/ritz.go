package truncation

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// RitzBounds returns intervals [lower, upper] that hold the top eigenvalues of a
// symmetric A, and bounds on the sines between the spans of the top Ritz vectors and of
// the top eigenvectors, from the Ritz values theta (descending) of an orthonormal U,
// the Gram matrix G = RᵀR of their residuals R = AU − U·Θ (orthogonal to span(U); G's
// rows and columns in the order of theta), a bound tail ≥ λmax of A compressed to the
// complement of span(U), and rnd, the rounding of every quantity (docs/design.md,
// "Certificates"). For each j, with ρⱼ = ‖R[:, 0…j]‖₂ and H₂ the compression of A to
// the complement of the top j+1 Ritz vectors:
//
//	λmax(H₂) ≤ νⱼ = (a + c)/2 + √(((a − c)/2)² + fⱼ²),  a = θⱼ₊₁, c = tail, fⱼ = ‖R[:, j+1…]‖₂
//
// (νⱼ = tail for the last j), and if ηⱼ = θⱼ − νⱼ > 0, for every i ≤ j
//
//	θᵢ ≤ λᵢ(A) ≤ θᵢ + 2ρⱼ²/(ηⱼ + √(ηⱼ² + 4ρⱼ²))   (Li and Li 2005; Mathias 1998)
//	sin∠(U[:, 0…j], top j+1 eigenvectors) ≤ ρⱼ/ηⱼ    (Davis and Kahan 1970)
//
// The lower bounds are Cauchy's interlacing. Without a gap, λᵢ(A) ≤ max(θᵢ, tail) +
// ‖R‖₂ (Weyl) and the sine is +Inf. Every bound is widened by rnd.
func RitzBounds(theta []float64, G mat.Symmetric, tail, rnd float64) (lower, upper, sine []float64) {
	k := len(theta)
	head := make([]float64, k) // ρⱼ
	rest := make([]float64, k) // fⱼ
	for j := range k {
		head[j] = blockNorm(G, 0, j+1)
		if j+1 < k {
			rest[j] = blockNorm(G, j+1, k)
		}
	}
	lower, upper, sine = make([]float64, k), make([]float64, k), make([]float64, k)
	for j := range k {
		lower[j] = theta[j] - rnd
		upper[j] = math.Max(theta[j], tail) + head[k-1] + rnd
		sine[j] = math.Inf(1)
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
		sine[j] = math.Min(1, rho/eta)
		q := 2 * rho * rho / (eta + math.Sqrt(eta*eta+4*rho*rho))
		for i := 0; i <= j; i++ {
			upper[i] = math.Min(upper[i], theta[i]+q+rnd)
		}
	}
	return lower, upper, sine
}

// BlockNorm returns the square root of the largest eigenvalue of the diagonal block
// lo…hi−1 of the positive semi-definite G: ‖R[:, lo…hi−1]‖₂ for G = RᵀR; +Inf for a G
// that is not finite.
func BlockNorm(G mat.Symmetric, lo, hi int) float64 { return blockNorm(G, lo, hi) }

func blockNorm(G mat.Symmetric, lo, hi int) float64 {
	n := hi - lo
	b := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, G.At(lo+i, lo+j))
		}
	}
	v, err := native.EigenSym(nil, nil, b)
	if err != nil {
		return math.Inf(1)
	}
	return math.Sqrt(math.Max(v[n-1], 0))
}
