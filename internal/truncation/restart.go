package truncation

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// KernelAccuracy is the relative accuracy of each kernel value a block computes
// (kernel.Cross, kernel.Matrix: 1e-13 of each value, docs/design.md, "Kernel blocks"),
// which every certificate computed from kernel blocks allows for.
const KernelAccuracy = 1e-13

// Restart returns the ledger of E = A − U·Θ·Uᵀ for the Ritz pairs (values Θ, vectors U)
// that a block Krylov space of a positive semi-definite A gives, from the Krylov relation
// alone (docs/design.md, "Polishing"). In the basis [U, U⊥],
//
//	E = [[UᵀAU − Θ, Rᵀ], [R, B]],   R = AU − U·Θ,   B = U⊥ᵀAU⊥ ⪰ 0.
//
// gram holds the eigenvalues of RᵀR (R's squared singular values, k of them). B's trace
// is tr A − Σθ, from trA and its rounding trTol, and the other Ritz values of the space,
// rest (ascending: its last, the largest, is not used), interlace B's top eigenvalues
// (Cauchy: φⱼ ≤ λⱼ(B)), so that, B being positive semi-definite,
//
//	λmax(B) ≤ b = tr B − Σⱼ₌₂…ₛ φⱼ⁺.
//
// With σ ≥ ‖R‖₂ and g ≥ ‖UᵀAU − Θ‖₂ (rounding), λmax(E) ≤ g + (b + √(b² + 4σ²))/2 and
// −λmin(E) ≤ g + σ; and E = P − N with P = G⁺ + S⁺ + B, N = G⁻ + S⁻ (S = [[0, Rᵀ], [R, 0]],
// whose eigenvalues are ±σᵢ(R)), both positive semi-definite, of traces at most
// k·g + Σσᵢ + tr B and k·g + Σσᵢ. rnd bounds the error of every quantity computed from A
// (the kernel values' and the products', and the Rayleigh–Ritz step's rounding), which
// every term includes. The ledger is base with these four bounds and no slack; tail is
// b, the bound on λmax(B), the compression of A to the complement of span(U) (RitzBounds).
func Restart(base Ledger, gram, values, rest []float64, trA, trTol, rnd float64) (l Ledger, tail float64) {
	var sigma, nuclear float64
	for _, v := range gram {
		s := math.Sqrt(math.Max(v, 0))
		sigma = math.Max(sigma, s)
		nuclear += s
	}
	k := len(gram)
	sigma += rnd
	nuclear += float64(k) * rnd
	gap := rnd // g: ‖UᵀAU − Θ‖₂

	var sum float64
	for _, v := range values {
		sum += v
	}
	trB := math.Max(trA+trTol-sum+float64(k)*gap, 0)
	b := trB
	for i := 0; i+1 < len(rest); i++ {
		b -= math.Max(rest[i]-rnd, 0)
	}
	b = math.Max(b, 0)
	c := base
	c.PosNorm = gap + (b+math.Sqrt(b*b+4*sigma*sigma))/2
	c.NegNorm = gap + sigma
	c.PosTrace = float64(k)*gap + nuclear + trB
	c.NegTrace = float64(k)*gap + nuclear
	c.Slack = 0
	return c, b
}

// TraceRounding bounds the rounding of trace E = trace K′ − Σλ computed from the
// running sums self = Σk(xᵢ, xᵢ) and total = 1ᵀK1 of m points (trace K′ = self −
// total/m) and k eigenvalues of absolute sum abs: the m + k terms summed,
// (m+k)·ε·(|self| + |total|/m + abs). kpca's certificate adds the rounding of its
// running sums (Ledger.SumErr); the sharded polish's sums are computed once, in its
// reduce, and the bound holds them as they are.
func TraceRounding(m, k int, self, total, abs float64) float64 {
	return float64(m+k) * vec.Roundoff * (math.Abs(self) + math.Abs(total)/float64(max(m, 1)) + abs)
}

// KernelRounding is η = (KernelAccuracy + 2mε)·m·kmax, the bound on the spectral norm
// of the error of a kernel matrix of m points computed in blocks, and of its products'
// sums, where kmax bounds the diagonal k(xᵢ, xᵢ): the entries of a positive
// semi-definite kernel matrix are bounded by its diagonal (docs/design.md, "Polishing").
func KernelRounding(m int, kmax float64) float64 {
	return (KernelAccuracy + 2*float64(m)*vec.Roundoff) * float64(m) * kmax
}
