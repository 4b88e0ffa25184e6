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
		return fmt.Errorf("features: destination length %d, want %d", len(dst), D)
	}
	if len(x) != d {
		return fmt.Errorf("features: point has dimension %d, want %d", len(x), d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("features: coordinate %d is %v", i, v)
		}
	}
	return nil
}
