package stream

import (
	"fmt"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kernel"
)

// gaussian returns k as the kernel.RBF that random Fourier features approximate, for
// SKPCA and RNCA: k must be a kernel.RBF, or a non-nil *kernel.RBF, valid
// (kernel.Validate). Any other kernel — nil, a Laplacian, a polynomial, a kernel.Func
// even if it computes a Gaussian — is an ErrArgument that says why: the features are
// drawn from the Gaussian's spectral density, N(0, σ⁻²·I) (features.RFF), and no other
// kernel has it.
func gaussian(k kernel.Kernel, model string) (kernel.RBF, error) {
	var g kernel.RBF
	switch v := k.(type) {
	case kernel.RBF:
		g = v
	case *kernel.RBF:
		if v == nil {
			return kernel.RBF{}, fmt.Errorf("%w: %s: a nil *kernel.RBF", ErrArgument, model)
		}
		g = *v
	case nil:
		// kernel.Validate's error, so that errors.Is holds with kernel.ErrArgument.
		return kernel.RBF{}, kinds.WrapOr(ErrArgument, kernel.Validate(k), "%s takes a kernel.RBF", model)
	default:
		return kernel.RBF{}, fmt.Errorf("%w: %s approximates the Gaussian kernel by random Fourier features, drawn from its spectral density; "+
			"it takes a kernel.RBF, not %T", ErrArgument, model, k)
	}
	if err := kernel.Validate(g); err != nil {
		return kernel.RBF{}, kinds.WrapOr(ErrArgument, err, "%s", model) // the kind named once
	}
	return g, nil
}

// randomFeatures returns the kernel of an SKPCA or an RNCA (model) and its random
// Fourier feature map of d-dimensional points: k as gaussian returns it, and the map
// features.NewRFF makes of it with o, whose refusals are the model's ErrArgument.
func randomFeatures(k kernel.Kernel, d int, model string, o features.RFFOptions) (kernel.RBF, *features.RFF, error) {
	g, err := gaussian(k, model)
	if err != nil {
		return kernel.RBF{}, nil, err
	}
	rff, err := features.NewRFF(g, d, o)
	if err != nil {
		return kernel.RBF{}, nil, kinds.WrapOr(ErrArgument, err, "")
	}
	return g, rff, nil
}

// mapPoint writes the random features of the point x to z, the first step of Add for
// SKPCA and RNCA: a point of another dimension than rff's is an ErrDimension, and one
// with a non-finite coordinate, or with features that are not finite (finiteFeatures),
// an ErrNonFinite. z is rff's feature dimension long; mapPoint does not allocate.
func mapPoint(rff *features.RFF, z, x []float64) error {
	if rff == nil {
		return errZero
	}
	if err := kinds.Point(x, rff.InDim()); err != nil {
		return err
	}
	if err := rff.Map(z, x); err != nil {
		return fmt.Errorf("%w: %s", ErrArgument, err) // unreachable: x and z are checked
	}
	return finiteFeatures(z, 0)
}
