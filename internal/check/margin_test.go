package check

import (
	"math"
	"testing"
)

// TestMargin: Within holds for deviations up to the tolerance, records the largest
// ratio of those that held and ignores those that did not; a zero tolerance holds only
// for equality and records nothing; NaN never holds.
func TestMargin(t *testing.T) {
	var m Margin
	for _, c := range []struct {
		got, want, tol float64
		ok             bool
	}{
		{1.25, 1, 1, true},
		{3, 1, 1, false},
		{0.5, 1, 1, true},
		{2, 2, 0, true},
		{2, 3, 0, false},
		{math.NaN(), 1, 1, false},
		{1, 1, math.NaN(), false},
	} {
		if got := m.Within(c.got, c.want, c.tol); got != c.ok {
			t.Errorf("Within(%g, %g, %g) = %v, want %v", c.got, c.want, c.tol, got, c.ok)
		}
	}
	if m.Worst != 0.5 {
		t.Errorf("Worst = %g, want 0.5", m.Worst)
	}
}
