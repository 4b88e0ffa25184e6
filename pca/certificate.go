package pca

import (
	"math"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/update"
)

// certificate bounds E = S − S̃, the difference between the scatter matrix of the
// points and the rank-r matrix S̃ = V·Λ·Vᵀ the model tracks (docs/design.md, "Linear
// PCA", after "Rank-r tracking").
//
// Every update applies the exact rank-one change ρ·z·zᵀ of S to S̃ as well, so E changes
// only at a truncation, which replaces S̃ + ρzzᵀ by it minus θ·u·uᵀ for every eigenpair
// (θ, u) it drops: E gains θ·u·uᵀ. So E = P − N, with P the sum of the positive parts
// dropped and N that of the negative ones (a downdate of S̃ ≠ S can leave a negative
// eigenvalue, which the truncation drops), both positive semi-definite, and
//
//	λmax(E) ≤ ‖P‖ ≤ Σ over steps of max θ⁺,   −λmin(E) ≤ ‖N‖ ≤ Σ over steps of max θ⁻
//
// (a step's dropped vectors are orthonormal: the norm of their sum is the largest). The
// trace of S is kept exactly by the updates (trace S' = trace S + ρ‖z‖²), so trace E =
// trace S − Σλ̃ is known, and as for kpca's certificate
//
//	trace N ≤ min(Σθ⁻, Σθ⁺ − trace E),   trace P ≤ min(Σθ⁺, trace E + trace N),
//
// with ‖P‖ ≤ trace P and ‖N‖ ≤ trace N.
type certificate struct {
	posNorm, negNorm   float64 // Σ over steps of the largest θ⁺ and θ⁻
	posTrace, negTrace float64 // Σθ⁺ and Σθ⁻ over all dropped eigenvalues
	slack              float64 // rounding: what deflation may neglect, 64ε·(deflated+2)·scale a step
	sumErr             float64 // rounding of the running trace
}

// step records a rank-one update of the given scale and its truncation.
func (c *certificate) step(st update.Stats, scale, trace float64) {
	d := st.Dropped
	c.posNorm += math.Max(d.Max, 0)
	c.negNorm += math.Max(-d.Min, 0)
	c.posTrace += d.Positive
	c.negTrace += d.Negative
	c.slack += 64 * vec.Roundoff * float64(st.Deflated+2) * scale
	c.sumErr += 4 * vec.Roundoff * (math.Abs(trace) + scale)
}

// errorRange returns bounds below ≥ −λmin(E) and above ≥ λmax(E) for E = S − S̃ (see
// certificate); zero for the exact model.
func (md *Model) errorRange() (below, above float64) {
	if md.opts.Rank == 0 {
		return 0, 0
	}
	c := md.cert
	_, k := md.thin.Dims()
	var sum, abs float64
	for _, v := range md.thin.Values(md.values[:k]) {
		sum += v
		abs += math.Abs(v)
	}
	trE := md.trace - sum
	tol := c.sumErr + float64(k+1)*vec.Roundoff*(math.Abs(md.trace)+abs)
	trN := math.Min(c.negTrace, math.Max(c.posTrace-trE+tol, 0))
	trP := math.Min(c.posTrace, math.Max(trE+trN+tol, 0))
	above = math.Min(c.posNorm, trP) + c.slack
	below = math.Min(c.negNorm, trN) + c.slack
	return below, above
}

// ErrorBound returns a bound on ‖S − S̃‖₂, the spectral norm of the difference between
// the scatter matrix of the points and the matrix S̃ of the Rank() pairs the model
// tracks — the larger of the bounds on the two sides of its spectrum (see ValueBounds;
// docs/design.md, "Linear PCA"). It accounts for every truncation and for their
// rounding; it is zero for the exact model (Rank() = 0), whose only error is rounding.
func (md *Model) ErrorBound() float64 {
	below, above := md.errorRange()
	return math.Max(below, above)
}

// ValueBounds returns intervals that hold the top eigenvalues of the scatter matrix:
// lo[j] ≤ λⱼ(S) ≤ hi[j] for the j-th largest, j < Components(), in the order of Values.
// With E = S − S̃, Weyl's inequalities give λⱼ(S̃) + λmin(E) ≤ λⱼ(S) ≤ λⱼ(S̃) + λmax(E),
// and the model bounds each side of E's spectrum (ErrorBound). While the truncations
// have dropped only non-negative eigenvalues, E is positive semi-definite and lo[j] is
// the tracked eigenvalue itself. For the exact model lo and hi are the eigenvalues. lo
// and hi follow the rule of Values.
func (md *Model) ValueBounds(lo, hi []float64) ([]float64, []float64) {
	below, above := md.errorRange()
	lo = md.Values(lo)
	hi = check.Room(hi, len(lo))
	for j, v := range lo {
		hi[j] = v + above
		lo[j] = math.Max(v-below, 0)
	}
	return lo, hi
}
