package sign

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestOf: the first entry of largest magnitude decides, as in scikit-learn's svd_flip
// (np.argmax of |u| takes the first maximum), with magnitudes within a relative Tie
// counted as equal, and +1 for a vector without a non-zero entry.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{0.1, -0.9, 0.3}, -1},
		{[]float64{0.1, 0.9, -0.3}, 1},
		{[]float64{-0.5, 0.5}, -1},              // an exact tie: the first
		{[]float64{0.5, -0.5}, 1},               //
		{[]float64{-0.5, 0.5 * (1 + 1e-9)}, -1}, // a tie up to rounding: still the first
		{[]float64{-0.5, 0.5 * (1 + 1e-3)}, 1},  // a real difference: the largest
		{[]float64{0.2, -0.7, 0.7 * (1 - 1e-12)}, -1},
		{[]float64{0, 0, 0}, 1},
		{nil, 1},
		{[]float64{math.NaN(), 1}, 1},
		{[]float64{-3}, -1},
	} {
		if got := Of(c.v); got != c.want {
			t.Errorf("Of(%v) = %g, want %g", c.v, got, c.want)
		}
	}
}

// TestFlip: after Flip every column's deciding entry is positive, the columns are
// otherwise unchanged, and OfColumn agrees with Of on the columns of any mat.Matrix.
func TestFlip(t *testing.T) {
	a := mat.NewDense(3, 4, []float64{
		0.1, -0.5, 0, 2,
		-0.9, 0.5, 0, -1,
		0.3, 0.2, 0, 0.5,
	})
	want := mat.NewDense(3, 4, []float64{
		-0.1, 0.5, 0, 2,
		0.9, -0.5, 0, -1,
		-0.3, -0.2, 0, 0.5,
	})
	for j := range 4 {
		if got, of := OfColumn(a.T().T(), j), Of(mat.Col(nil, j, a)); got != of {
			t.Errorf("column %d: OfColumn %g, Of %g", j, got, of)
		}
	}
	Flip(a)
	if !mat.Equal(a, want) {
		t.Errorf("Flip:\n%v\nwant\n%v", mat.Formatted(a), mat.Formatted(want))
	}
	for j := range 4 {
		if OfColumn(a, j) != 1 {
			t.Errorf("column %d still negative after Flip", j)
		}
	}
	// A view with a stride: only its own columns.
	b := mat.NewDense(2, 3, []float64{1, -2, 9, -3, 1, 9})
	v := b.Slice(0, 2, 0, 2).(*mat.Dense)
	Flip(v)
	if !mat.Equal(b, mat.NewDense(2, 3, []float64{-1, 2, 9, 3, -1, 9})) {
		t.Errorf("Flip of a view:\n%v", mat.Formatted(b))
	}
}
