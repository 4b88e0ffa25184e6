package kaf

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("kaf")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name, and every error the package returns wraps exactly one
// of them, errors of the packages it calls (kernel, kpca) and of a SPEEDFilter's factory
// included; on any error a filter or a feature map is left exactly as it was.
// ErrNonFinite reports a prediction, error or weight update that is not finite (finite
// inputs of absurd size: the update is refused, not stored); ErrEmpty a series too short
// (an empty series to Standardise, fewer than order + horizon values to Embed);
// ErrArgument a kernel that kernel.Validate refuses, a zero filter or map (only the
// constructors make them), a factory that fails or makes a filter of the wrong dimension,
// a dictionary whose Gram matrix has no positive eigenvalue, and Mackey–Glass options
// whose integration leaves the positive finite numbers; ErrNotConverged an eigensolver
// that did not converge (SPEED) or an RLS filter whose inverse correlation matrix has lost
// its positive definiteness to rounding.
var (
	ErrDimension, ErrNonFinite, ErrEmpty = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrNotConverged         = kinds.Argument, kinds.NotConverged
)

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkSample reports a feature vector or input of the wrong length (ErrDimension), or
// a non-finite value in it or in the desired output d (ErrNonFinite).
func checkSample(phi []float64, m int, d float64) error {
	if len(phi) != m {
		return fmt.Errorf("%w: vector of length %d, want %d", ErrDimension, len(phi), m)
	}
	if !finite(d) {
		return fmt.Errorf("%w: desired output %v", ErrNonFinite, d)
	}
	for i, v := range phi {
		if !finite(v) {
			return fmt.Errorf("%w: coordinate %d is %v", ErrNonFinite, i, v)
		}
	}
	return nil
}

// finiteStep reports whether every a·(w[i] + c·x[i]) is finite — the weights an update
// w ← a·(w + c·x) would store — without writing them, so that an update that would
// overflow can be refused with the filter unchanged. One pass of multiply–adds: the sum
// of the values times zero is NaN exactly when one of them is NaN or infinite.
func finiteStep(a, c float64, x, w []float64) bool {
	var s float64
	for i, v := range x {
		s += a * (w[i] + c*v) * 0
	}
	return s == 0
}

// prediction returns y, or ErrNonFinite if it is not finite: finite inputs so large
// that the prediction overflows.
func prediction(y float64) (float64, error) {
	if !finite(y) {
		return 0, fmt.Errorf("%w: the prediction overflows (%v)", ErrNonFinite, y)
	}
	return y, nil
}
