package kpca

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// Helmert coordinates (docs/design.md, "Helmert coordinates"). Qₘ is the m×(m−1)
// matrix whose column j (j = 1, …, m−1) is αⱼ·(1, …, 1, −j, 0, …, 0) with j ones and
// αⱼ = 1/√(j(j+1)): its columns are orthonormal and orthogonal to 1ₘ, and
// Qₘ₊₁ = [[Qₘ, αₘ·1ₘ], [0ᵀ, −m·αₘ]]. So Mₘ = QₘᵀKₘQₘ carries the non-trivial spectrum of
// the centred matrix CKₘC, and Mₘ₊₁ is Mₘ bordered by one row and column. Qₘ is never
// stored: products with it cost O(m) through prefix and suffix sums.

// helmertAlphaOf returns αⱼ = 1/√(j(j+1)), the scale of Helmert column j: the one
// formula of every step that borders in Helmert coordinates (helmertAlpha, a point's
// centredBorder, a block's helmertDirections), so that they agree bit for bit.
func helmertAlphaOf(j int) float64 {
	f := float64(j)
	return 1 / math.Sqrt(f*(f+1))
}

// helmertAlpha returns αⱼ = 1/√(j(j+1)) for j = 1, …, n−1 in alpha[j] (alpha[0] unused),
// extending dst: entries already in dst are kept.
func helmertAlpha(dst []float64, n int) []float64 {
	start := len(dst)
	if start >= n {
		return dst
	}
	if cap(dst) < n {
		dst = append(make([]float64, 0, n+n/4+16), dst...)
	}
	dst = dst[:n]
	for j := max(start, 1); j < n; j++ {
		dst[j] = helmertAlphaOf(j)
	}
	return dst
}

// helmertT sets dst = Qₘᵀy for y of length m ≥ 1 (dst of length m−1):
// (Qᵀy)ⱼ = αⱼ·(Σ_{i<j} yᵢ − j·yⱼ).
func helmertT(dst, y, alpha []float64) {
	if len(y) == 0 {
		return
	}
	s := y[0]
	for j := 1; j < len(y); j++ {
		dst[j-1] = alpha[j] * (s - float64(j)*y[j])
		s += y[j]
	}
}

// helmert sets dst = Qₘw for w of length m−1 (dst of length m): with the suffix sums
// tᵢ = Σ_{j>i} αⱼwⱼ (w indexed from 1), dstᵢ = tᵢ − i·αᵢ·wᵢ and dst₀ = t₀.
func helmert(dst, w, alpha []float64) {
	m := len(dst)
	var t float64
	for i := m - 1; i >= 1; i-- {
		aw := alpha[i] * w[i-1]
		dst[i] = t - float64(i)*aw
		t += aw
	}
	if m > 0 {
		dst[0] = t
	}
}

// centredBorder adds a point to the centred decomposition, whose vectors are in point
// coordinates and orthogonal to 1 (docs/design.md, "Removing a point"): in the basis of
// 1⊥ that the old vectors extend by the Helmert column u = (α·1, −α·m), α = 1/√(m(m+1)),
// the new point borders the matrix with
//
//	b = α·(K·1 − m·a),   γ = α²·(1ᵀK1 − 2m·Σa + m²c)
//
// (docs/design.md, "Helmert coordinates"), for its kernel column a, self-kernel c and
// Σa = sa. It returns the scale of the border, max(‖b‖, |γ|).
func (md *Model) centredBorder(a []float64, c, sa float64) (float64, error) {
	m := len(a)
	fm := float64(m)
	alpha := helmertAlphaOf(m)
	b, e := md.work[:m], md.work2[:m]
	for i := range m {
		b[i] = alpha * (md.rowSum[i] - fm*a[i])
		e[i] = alpha
	}
	gamma := alpha * alpha * (md.total - 2*fm*sa + fm*fm*c)
	if err := md.thin.Border(vector(&md.vecA, b), vector(&md.vecB, e), -alpha*fm, gamma); err != nil {
		return 0, err
	}
	return math.Max(vec.Norm(b), math.Abs(gamma)), nil
}
