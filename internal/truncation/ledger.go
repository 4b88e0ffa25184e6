// Package truncation is the arithmetic of the certificates of the models that track a
// matrix at a rank (kpca, pca): what their truncations dropped, and the bounds on the
// error it leaves (docs/design.md, "Rank-r tracking"). It is written once here, below
// both.
package truncation

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/update"
)

// Ledger bounds E = A − Ã, the difference between a symmetric matrix A and the rank-r
// matrix Ã = V·Λ·Vᵀ that a decomposition tracking r pairs of it holds.
//
// Each truncation replaces Ã by Ã − θ·z·zᵀ for every eigenpair (θ, z) it drops, so E
// gains θ·z·zᵀ: E = P − N with P the sum of the positive parts dropped and N that of the
// negative ones, both positive semi-definite. An update that applies its exact change
// to Ã as it does to A leaves E in place. Hence, with θ⁺ and θ⁻ the positive and
// negative parts of the dropped eigenvalues,
//
//	λmax(E) ≤ ‖P‖ ≤ Σ over steps of max θ⁺,   −λmin(E) ≤ ‖N‖ ≤ Σ over steps of max θ⁻
//
// (a step's dropped vectors are orthonormal: the norm of their sum is the largest, not
// the sum), and since trace E = trace A − Σλ is known from running sums,
//
//	trace N ≤ min(Σθ⁻, Σθ⁺ − trace E),   trace P ≤ min(Σθ⁺, trace E + trace N),
//
// with ‖P‖ ≤ trace P and ‖N‖ ≤ trace N (Range). The models say what else keeps P and N
// positive semi-definite for them (kpca: removing a point compresses E).
type Ledger struct {
	PosNorm, NegNorm   float64 // Σ over steps of the largest θ⁺ and θ⁻
	PosTrace, NegTrace float64 // Σθ⁺ and Σθ⁻ over all dropped eigenvalues
	Slack              float64 // rounding: what deflation may neglect, and the like
	SumErr             float64 // rounding of the running sums that give trace A
}

// Drop records the eigenvalues a truncation dropped.
func (l *Ledger) Drop(d update.Dropped) {
	l.PosNorm += math.Max(d.Max, 0)
	l.NegNorm += math.Max(-d.Min, 0)
	l.PosTrace += d.Positive
	l.NegTrace += d.Negative
}

// Deflation records the rounding of a secular step of the given scale that deflated
// the given number of components: what deflation may neglect, 64ε·(deflated + 2)·scale
// (docs/design.md, "Deflation").
func (l *Ledger) Deflation(deflated int, scale float64) {
	l.Slack += 64 * vec.Roundoff * float64(deflated+2) * scale
}

// Range returns bounds below ≥ −λmin(E) and above ≥ λmax(E), given trace E (trE) to
// within tol.
func (l *Ledger) Range(trE, tol float64) (below, above float64) {
	trN := math.Min(l.NegTrace, math.Max(l.PosTrace-trE+tol, 0))
	trP := math.Min(l.PosTrace, math.Max(trE+trN+tol, 0))
	above = math.Min(l.PosNorm, trP) + l.Slack
	below = math.Min(l.NegNorm, trN) + l.Slack
	return below, above
}

// Nearest returns the point of [−Σθ⁻, Σθ⁺], where a genuine trace E lies (E = P − N),
// nearest trE: a decoder checks a stored ledger against the stored pairs by how far
// their trace E lies from it.
func (l *Ledger) Nearest(trE float64) float64 {
	return math.Max(-l.NegTrace, math.Min(trE, l.PosTrace))
}

// Intervals turns the values λⱼ(Ã) in lo into the intervals that hold λⱼ(A) by Weyl's
// inequalities, λⱼ(Ã) + λmin(E) ≤ λⱼ(A) ≤ λⱼ(Ã) + λmax(E), for −λmin(E) ≤ below and
// λmax(E) ≤ above (Range): hi[j] = λⱼ + above and lo[j] = max(λⱼ − below, floor), hi as
// long as lo. floor is what the model knows of A beyond that: 0 for a matrix positive
// semi-definite by construction (pca's scatter), −Inf for one that may not be (kpca's
// K′ of a sigmoid kernel).
func Intervals(lo, hi []float64, below, above, floor float64) {
	for j, v := range lo {
		hi[j] = v + above
		lo[j] = math.Max(v-below, floor)
	}
}
