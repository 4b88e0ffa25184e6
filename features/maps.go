package features

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/kernel"
)

// What the three maps (RFF, Taylor, Quadrature) share: the kernel they approximate and
// the check of Map's arguments.

// spectralScale checks the Gaussian kernel k (kernel.Validate: exactly one of σ and γ,
// in range) and the dimension d of the points (check.Kinds.Dim), and returns s = 1/σ,
// or √(2γ) for a kernel given by γ: k(x, y) = exp(−s²·‖x−y‖²/2), whose spectral
// density is N(0, s²·I). An invalid kernel or dimension is an ErrArgument.
func spectralScale(k kernel.RBF, d int) (float64, error) {
	if err := errs.Kernel(kernel.Validate(k)); err != nil {
		return 0, err
	}
	if err := errs.Dim(d); err != nil {
		return 0, err
	}
	if k.Gamma != 0 {
		return math.Sqrt(2 * k.Gamma), nil
	}
	return 1 / k.Sigma, nil
}

// checkArgs reports a destination whose length is not the feature dimension D, or a
// point x whose length is not d or with a non-finite coordinate (check.Kinds.Point).
func checkArgs(dst, x []float64, D, d int) error {
	if len(dst) != D {
		return fmt.Errorf("%w: destination length %d, want %d", errs.Dimension, len(dst), D)
	}
	return errs.Point(x, d)
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
