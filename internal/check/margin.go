package check

import "math"

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
