package preimage

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/kernel"
)

// Gaussian returns k as a kernel.RBF if it is one (or a non-nil pointer to one): the
// kernel FixedPoint needs.
func Gaussian(k kernel.Kernel) (kernel.RBF, bool) {
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
// (Expansions): it checks that the model's kernel kern is Gaussian (Gaussian) and the
// arguments as kinds.PreImage does, for points of dimension d and a model of have
// components, every error through kinds, the model package's sentinels; then it has
// transform (the model's Transform) write the scores of X's rows on the top k
// components. It returns the kernel, the rows the iteration starts from (X itself when
// start is nil) and the scores (docs/design.md, "Pre-images").
func Prepare(kinds check.Kinds, kern kernel.Kernel, transform func(dst *mat.Dense, X mat.Matrix, k int) error,
	dst *mat.Dense, X, start mat.Matrix, d, k, have int, opts Options) (kernel.RBF, mat.Matrix, *mat.Dense, error) {
	rbf, ok := Gaussian(kern)
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

// Expansions finds the pre-images of rows projections Pφ(xᵢ) = Σₗ γₗ·φ(pₗ), each an
// expansion over the rows pₗ of P, and writes them to the rows of dst, all or nothing:
// for each i, coef sets γ (of P's rows, scratch of its own) to the coefficients of
// projection i, and FixedPoint runs from row i of start. It is the loop of the models'
// PreImage (kpca, nystrom), whose projections differ only in their coefficients. It
// returns the number of the point whose FixedPoint failed and its error; dst is then
// unchanged. dst is resized to rows×d if empty and must otherwise have that shape;
// start must be rows×d. A nil dst, P or coef is an ErrArgument, rows below 1 an ErrEmpty,
// a dst or start of another shape an ErrDimension (point 0).
func Expansions(dst *mat.Dense, start mat.Matrix, rows int, k kernel.RBF, P *mat.Dense, coef func(i int, gamma []float64), opts Options) (int, error) {
	switch {
	case dst == nil || P == nil || coef == nil || check.IsNil(start):
		return 0, fmt.Errorf("%w: Expansions: nil dst, start, points or coefficients", ErrArgument)
	case rows < 1:
		return 0, fmt.Errorf("%w: Expansions: %d points", ErrEmpty, rows)
	}
	n, d := P.Dims()
	if r, c := start.Dims(); r != rows || c != d {
		return 0, fmt.Errorf("%w: Expansions: start is %d×%d, want %d×%d", ErrDimension, r, c, rows, d)
	}
	if r, c := dst.Dims(); !dst.IsEmpty() && (r != rows || c != d) {
		return 0, fmt.Errorf("%w: Expansions: dst is %d×%d, want %d×%d", ErrDimension, r, c, rows, d)
	}
	res := mat.NewDense(rows, d, nil)
	gamma := make([]float64, n)
	for i := range rows {
		coef(i, gamma)
		z := res.RawRowView(i)
		mat.Row(z, i, start)
		if _, err := FixedPoint(z, k, P, gamma, opts); err != nil {
			return i, err
		}
	}
	check.Reuse(dst, rows, d)
	dst.Copy(res)
	return 0, nil
}
