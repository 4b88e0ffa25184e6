package stream

import (
	"fmt"

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
		return kernel.RBF{}, fmt.Errorf("%w: %s: nil kernel; it takes a kernel.RBF", ErrArgument, model)
	default:
		return kernel.RBF{}, fmt.Errorf("%w: %s approximates the Gaussian kernel by random Fourier features, drawn from its spectral density; "+
			"it takes a kernel.RBF, not %T", ErrArgument, model, k)
	}
	if err := kernel.Validate(g); err != nil {
		return kernel.RBF{}, fmt.Errorf("%w: %s: %s", ErrArgument, model, err)
	}
	return g, nil
}
