package study

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSines: the sine of the angle between e₁ and cos θ·e₁ + sin θ·e₂ is sin θ, to
// rounding even for θ = 1e-10, where √(1 − cos²θ) would give 0; spans, not bases, are
// compared (a scaled and mixed basis gives the same sines).
func TestSines(t *testing.T) {
	const n = 6
	for _, theta := range []float64{1e-10, 1e-4, 0.3} {
		U := mat.NewDense(n, 2, nil)
		U.Set(0, 0, 1)
		U.Set(1, 1, 1)
		A := mat.NewDense(n, 2, nil)
		A.Set(0, 0, 3*math.Cos(theta))
		A.Set(2, 0, 3*math.Sin(theta))
		A.Set(0, 1, math.Cos(theta)) // mixes in the first column: the span of both is span(a₁, e₂)
		A.Set(2, 1, math.Sin(theta))
		A.Set(1, 1, 2)
		got, err := Sines(U, A, 2)
		if err != nil {
			t.Fatal(err)
		}
		for j, s := range got {
			if math.Abs(s-math.Sin(theta)) > 1e-15+1e-14*math.Sin(theta) {
				t.Errorf("θ = %g, top %d: sine %.17g, want %.17g", theta, j+1, s, math.Sin(theta))
			}
		}
	}
}
