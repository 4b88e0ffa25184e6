package check

import "math"

// Tolerances of the decoders' checks that a decoded model belongs to the data it stores
// (docs/design.md, "Encodings").
const (
	// SumsTolerance bounds, relative to Σ|terms|, the rounding of a stored running sum —
	// a row sum, a total, a trace, a weight, a mean, a product K·α — against the sum
	// recomputed from the stored data. A running sum of t terms errs by at most
	// (t−1)·ε·Σ|terms| (Higham 2002, §4.2), so 1e-9 ≈ 2²³·ε admits the worst case of
	// millions of additions and removals, where rounding that does not conspire gives
	// ε·√t: 1e-13 after 10⁶ steps. A forged sum that passes changes what it feeds (the
	// centring, the scores) by at most 1e-9 of the data's scale, as a legitimate model
	// with a long history may.
	SumsTolerance = 1e-9
	// PairsTolerance bounds the backward error ‖AV − VΛ‖ of an exact model's stored
	// pairs relative to ‖Λ‖: the threshold of the orthonormality probe they already pass
	// (update's SetEigen, 1e-8). Exact models measure 1e-15 to 1e-13, after thousands of
	// steps too.
	PairsTolerance = 1e-8
)

// Margin is a decoder's record of its checks of a decoded model against what it was
// computed from (kpca's and pca's verify; docs/design.md, "Encodings"): the largest
// ratio of a deviation to its tolerance among the checks that held, which the tests
// report to show how far inside its tolerances a legitimate model sits.
type Margin struct {
	Worst float64
}

// Within reports whether |got − want| ≤ tol, recording the ratio when it holds.
func (m *Margin) Within(got, want, tol float64) bool {
	dev := math.Abs(got - want)
	if dev <= tol && tol > 0 {
		m.Worst = math.Max(m.Worst, dev/tol)
	}
	return dev <= tol
}
