// Package preimagecall is the start every model's fixed-point PreImage shares (kpca's
// and nystrom's): the check that the kernel is Gaussian, the arguments' checks and the
// scores of the points, with the errors of the calling package's own sentinels
// (docs/design.md, "Pre-images"). It is internal because those sentinels come as an
// internal/check.Kinds, which no code outside the module can build.
package preimagecall

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/kernel"
)

// gaussian returns k as a kernel.RBF if it is one (or a non-nil pointer to one): the
// kernel preimage.FixedPoint needs.
func gaussian(k kernel.Kernel) (kernel.RBF, bool) {
	switch r := k.(type) {
	case kernel.RBF:
		return r, true
	case *kernel.RBF:
		if r != nil {
			return *r, true
		}
	}
	return kernel.RBF{}, false
}

// Prepare begins a model's fixed-point PreImage(dst, X, start, k, opts), the part the
// models (kpca, nystrom) share before the coefficients of their projections
// (preimage.Expansions): it checks that the model's kernel kern is Gaussian (gaussian) and the
// arguments as kinds.PreImage does, for points of dimension d and a model of have
// components, every error through kinds, the model package's sentinels; then it has
// transform (the model's Transform) write the scores of X's rows on the top k
// components. It returns the kernel, the rows the iteration starts from (X itself when
// start is nil) and the scores (docs/design.md, "Pre-images").
func Prepare(kinds check.Kinds, kern kernel.Kernel, transform func(dst *mat.Dense, X mat.Matrix, k int) error,
	dst *mat.Dense, X, start mat.Matrix, d, k, have int, opts interface{ Validate() error }) (kernel.RBF, mat.Matrix, *mat.Dense, error) {
	rbf, ok := gaussian(kern)
	if !ok {
		return kernel.RBF{}, nil, nil, fmt.Errorf("%w: the fixed-point pre-image needs a Gaussian kernel (kernel.RBF), not %v", kinds.Argument, kern)
	}
	X, start, err := kinds.PreImage(dst, X, start, d, k, have, opts)
	if err != nil {
		return kernel.RBF{}, nil, nil, err
	}
	var beta mat.Dense
	if err := transform(&beta, X, k); err != nil {
		return kernel.RBF{}, nil, nil, err
	}
	return rbf, start, &beta, nil
}
