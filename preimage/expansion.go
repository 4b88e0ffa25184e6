package preimage

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/kernel"
)

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
