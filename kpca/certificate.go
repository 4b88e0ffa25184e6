package kpca

import (
	"math"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/update"
)

// certificate bounds E = K′ − K̃, the difference between the matrix of the points (K′ =
// CKC centred, K uncentred) and the rank-r matrix K̃ = V·Λ·Vᵀ a model tracking r pairs
// holds (docs/design.md, "Rank-r tracking"), by the ledger of its truncations
// (truncation.Ledger). Bordering with the exact kernel column leaves the old E in
// place; removing a point compresses E — a principal submatrix, and centred C·E·C too —
// which keeps P and N positive semi-definite and can only lower their norms and traces:
// once points have been removed, trace E falls below Σθ⁺ − Σθ⁻ and tightens the
// bounds. (A bordered truncated matrix has negative eigenvalues: the border's component
// outside the tracked span meets a zero where the old matrix had the unknown part of E,
// so N is not zero and E is not positive semi-definite.) Its SumErr is the rounding of
// the running sums Σk(xᵢ, xᵢ) and 1ᵀK1.
type certificate = truncation.Ledger

// stepCertificate records in c an update of a model of m points: the rounding of its
// running sums (self, total) and, truncated, what the update dropped, with the rounding
// of a secular step of the given scale.
func stepCertificate(c *certificate, st update.Stats, scale, self, total float64, m int, truncated bool) {
	c.SumErr += 4 * vec.Roundoff * (math.Abs(self) + math.Abs(total)/float64(max(m, 1)))
	if !truncated {
		return
	}
	c.Drop(st.Dropped)
	c.Deflation(st.Deflated, scale)
}

// traceK returns the trace of the matrix the points define, K′ (centred: Σk(xᵢ, xᵢ) −
// 1ᵀK1/m) or K, from the running sums.
func (md *Model) traceK() float64 {
	if !md.opts.Uncentred && md.m > 0 {
		return md.self - md.total/float64(md.m)
	}
	return md.self
}

// traceTol returns the rounding of trace E = traceK − Σλ for k eigenvalues of absolute
// sum abs: the running sums', and that of the m+k terms summed.
func (md *Model) traceTol(k int, abs float64) float64 {
	return md.cert.SumErr + truncation.TraceRounding(md.m, k, md.self, md.total, abs)
}

// errorRange returns bounds below ≥ −λmin(E) and above ≥ λmax(E) for E = K′ − K̃ (see
// certificate); zero for the exact model.
func (md *Model) errorRange() (below, above float64) {
	if md.rank == 0 {
		return 0, 0
	}
	c := md.cert
	_, k := md.thin.Dims()
	var sum, abs float64
	if k > 0 {
		sum, abs = vec.Sums(md.thin.Values(md.work3[:k]))
	}
	return c.Range(md.traceK()-sum, md.traceTol(k, abs))
}

// ErrorBound returns a bound on ‖K′ − K̃‖₂, the spectral norm of the difference between
// the matrix of the points (K′ = CKC centred, K uncentred) and the matrix K̃ = V·Λ·Vᵀ of
// the Rank() pairs the model tracks — not only the Components it reports: the larger of
// the bounds on the two sides of its spectrum (see ValueBounds and docs/design.md,
// "Rank-r tracking"). It accounts for every truncation since the last batch
// decomposition (Fit, Refresh) or Polish, and for their rounding; it is zero for the
// exact model (Rank() = 0), whose only error is rounding. A Polish restarts it from
// what the polish certifies (docs/design.md, "Polishing"), and a window tracked at a
// rank polishes itself (Options.WindowPolish), so that its bound stays within a
// constant of the true error over any stream. It is free, deterministic and updated at
// every step, but loose (50–600× the true error over long streams without a polish;
// 6–16× just after one, up to 60× a window's length later): to ask how good the model
// is now, use Certify, an a-posteriori certificate from the true matrix of the points
// at the cost of two passes over them.
func (md *Model) ErrorBound() float64 {
	below, above := md.errorRange()
	return math.Max(below, above)
}

// ValueBounds returns intervals that hold the top eigenvalues of the matrix of the
// points: lo[j] ≤ λⱼ(K′) ≤ hi[j] for the j-th largest, j < Components(), in the order
// of Values (the top Options.Components). With E = K′ − K̃ (see ErrorBound), Weyl's inequalities give
// λⱼ(K̃) + λmin(E) ≤ λⱼ(K′) ≤ λⱼ(K̃) + λmax(E), and the model bounds each side of E's
// spectrum separately: E = P − N with P and N the positive and negative parts the
// truncations dropped, λmax(E) ≤ ‖P‖ and −λmin(E) ≤ ‖N‖ (docs/design.md, "Rank-r
// tracking"). For the exact model lo and hi are the eigenvalues. lo and hi follow the
// rule of Values: written in place when long enough, allocated otherwise. Like
// ErrorBound these are free and deterministic but loose; Certify's intervals, from the
// true matrix, are typically a few hundredths of the model's own error wide.
func (md *Model) ValueBounds(lo, hi []float64) ([]float64, []float64) {
	below, above := md.errorRange()
	lo = md.Values(lo)
	hi = check.Room(hi, len(lo))
	// Unlike pca's, lo is not clamped at zero: a kernel that is not positive
	// semi-definite (sigmoid) makes K′ indefinite, so its eigenvalues may be negative.
	truncation.Intervals(lo, hi, below, above, math.Inf(-1))
	return lo, hi
}
