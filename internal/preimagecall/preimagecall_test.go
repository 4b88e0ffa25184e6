package preimagecall

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/preimage"
)

// TestErrorKinds: Prepare refuses a kernel that is not Gaussian and every bad argument
// with an error of the right kind, through the caller's sentinels.
func TestErrorKinds(t *testing.T) {
	// Six points of dimension 3, and six of dimension 2 (another dimension).
	X := mat.NewDense(6, 3, []float64{0.1, -1.2, 0.4, 1.5, 0.3, -0.7, -0.2, 0.8, 1.1, 0.6, -0.5, 0.2, -1.3, 0.9, -0.4, 0.7, 0.1, 1.6})
	S := mat.NewDense(6, 2, []float64{0.5, -0.3, 1.2, 0.8, -0.6, 0.1, 0.2, -1.1, 0.9, 0.4, -0.8, 0.7})
	rbf := kernel.RBF{Sigma: 1}
	var dst mat.Dense
	wrongDst := mat.NewDense(2, 2, nil)
	var cases errtest.Cases
	add := cases.Add
	// Prepare reports through the caller's sentinels (a model package's); here the
	// package's own, and a transform that projects onto 2 components, or fails.
	own := check.Kinds{Dimension: preimage.ErrDimension, NonFinite: preimage.ErrNonFinite, Empty: preimage.ErrEmpty, Argument: preimage.ErrArgument}
	scores := func(dst *mat.Dense, X mat.Matrix, k int) error {
		r, _ := X.Dims()
		dst.ReuseAs(r, k)
		return nil
	}
	failing := func(*mat.Dense, mat.Matrix, int) error { return fmt.Errorf("%w: the transform", preimage.ErrNonFinite) }
	prep := func(k kernel.Kernel, transform func(*mat.Dense, mat.Matrix, int) error, dst *mat.Dense, X, start mat.Matrix, comps int, o preimage.Options) func() error {
		return func() error {
			_, _, _, err := Prepare(own, k, transform, dst, X, start, 3, comps, 2, o)
			return err
		}
	}
	add("Prepare: a Laplacian kernel", ikpca.ErrArgument, prep(kernel.Laplacian{Sigma: 1}, scores, &dst, X, nil, 1, preimage.Options{}))
	add("Prepare: MaxIter −1", ikpca.ErrArgument, prep(rbf, scores, &dst, X, nil, 1, preimage.Options{MaxIter: -1}))
	add("Prepare: nil X", ikpca.ErrArgument, prep(rbf, scores, &dst, nil, nil, 1, preimage.Options{}))
	add("Prepare: k 3", ikpca.ErrArgument, prep(rbf, scores, &dst, X, nil, 3, preimage.Options{}))
	add("Prepare: another dimension", ikpca.ErrDimension, prep(rbf, scores, &dst, S, nil, 1, preimage.Options{}))
	add("Prepare: fewer starts", ikpca.ErrDimension, prep(rbf, scores, &dst, X, X.Slice(0, 2, 0, 3), 1, preimage.Options{}))
	add("Prepare: wrong dst", ikpca.ErrDimension, prep(rbf, scores, wrongDst, X, nil, 1, preimage.Options{}))
	add("Prepare: the transform's error", ikpca.ErrNonFinite, prep(rbf, failing, &dst, X, nil, 1, preimage.Options{}))
	add("Prepare", nil, prep(rbf, scores, &dst, X, nil, 2, preimage.Options{}))
	errtest.Of(preimage.ErrDimension, preimage.ErrNonFinite, preimage.ErrEmpty, preimage.ErrArgument).Run(t, cases)
	cases.Cover(t, 1)
}
