package pca

import (
	"math"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/update"
)

// certificate bounds E = S − S̃, the difference between the scatter matrix of the
// points and the rank-r matrix S̃ = V·Λ·Vᵀ the model tracks (docs/design.md, "Linear
// PCA", after "Rank-r tracking"), by the ledger of its truncations (truncation.Ledger,
// kpca's too). Every update applies the exact rank-one change ρ·z·zᵀ of S to S̃ as
// well, so E changes only at a truncation (a downdate of S̃ ≠ S can leave a negative
// eigenvalue, which the truncation drops: N need not be zero). Its SumErr is the
// rounding of the running trace, trace S' = trace S + ρ‖z‖², kept exactly by the
// updates otherwise.
type certificate = truncation.Ledger

// stepCertificate records in c a rank-one update of the given scale and its
// truncation, and the rounding of the running trace.
func stepCertificate(c *certificate, st update.Stats, scale, trace float64) {
	c.Drop(st.Dropped)
	c.Deflation(st.Deflated, scale)
	c.SumErr += 4 * vec.Roundoff * (math.Abs(trace) + scale)
}

// errorRange returns bounds below ≥ −λmin(E) and above ≥ λmax(E) for E = S − S̃ (see
// certificate); zero for the exact model.
func (md *Model) errorRange() (below, above float64) {
	if md.opts.Rank == 0 {
		return 0, 0
	}
	c := md.cert
	_, k := md.thin.Dims()
	sum, abs := vec.Sums(md.thin.Values(md.values[:k]))
	return c.Range(md.trace-sum, c.SumErr+float64(k+1)*vec.Roundoff*(math.Abs(md.trace)+abs))
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
	// Clamped at zero, unlike kpca's: a scatter matrix is positive semi-definite.
	truncation.Intervals(lo, hi, below, above, 0)
	return lo, hi
}
