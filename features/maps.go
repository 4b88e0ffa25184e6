package features

import (
	"fmt"
	"math"
)

// What the three maps (RFF, Taylor, Quadrature) share: the kernel they approximate and
// the check of Map's arguments.

// gaussian returns exp(−‖x−y‖²/(2σ²)), the Gaussian kernel evaluated exactly.
func gaussian(x, y []float64, sigma float64) float64 {
	var s float64
	for i := range x {
		t := x[i] - y[i]
		s += t * t
	}
	return math.Exp(-s / (2 * sigma * sigma))
}

// checkArgs reports a destination whose length is not the feature dimension D, or a
// point x whose length is not d or with a non-finite coordinate.
func checkArgs(dst, x []float64, D, d int) error {
	if len(dst) != D {
		return fmt.Errorf("%w: destination length %d, want %d", errs.Dimension, len(dst), D)
	}
	if len(x) != d {
		return fmt.Errorf("%w: point has dimension %d, want %d", errs.Dimension, len(x), d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: coordinate %d is %v", errs.NonFinite, i, v)
		}
	}
	return nil
}

// bound checks that a map of d-dimensional points to D features through f frequencies
// can be allocated: the d×f frequencies and a feature vector of D numbers each within
// check.MaxFloats (docs/design.md, "Sizes").
func bound(d, f, D int) error {
	if _, err := errs.Floats("the frequencies", d, f); err != nil {
		return err
	}
	_, err := errs.Floats("a feature vector", D)
	return err
}
