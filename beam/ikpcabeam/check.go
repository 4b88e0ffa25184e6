package ikpcabeam

import (
	"fmt"
	"math"
	"reflect"

	"gonum.org/v1/gonum/mat"
)

// checkPoint reports a point whose length is not d (ErrDimension) or with a NaN or
// infinite coordinate (ErrNonFinite), in the words of the core's checks.
func checkPoint(x []float64, d int) error {
	if len(x) != d {
		return fmt.Errorf("%w: point has dimension %d, the model %d", ErrDimension, len(x), d)
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: coordinate %d is %g", ErrNonFinite, j, v)
		}
	}
	return nil
}

// checkTransform makes the checks of ikpca.Model.Transform in the core's order — the
// points X (nil: ErrArgument; no rows: ErrEmpty; columns other than d: ErrDimension; a
// NaN or infinity: ErrNonFinite), the number k of the have components (none:
// ErrEmpty; k outside [1, have]: ErrArgument), the destination (nil: ErrArgument; not
// empty and not rows×k: ErrDimension) — and returns X's number of rows.
func checkTransform(dst *mat.Dense, X mat.Matrix, d, k, have int) (int, error) {
	if X == nil || reflect.ValueOf(X).Kind() == reflect.Pointer && reflect.ValueOf(X).IsNil() {
		return 0, fmt.Errorf("%w: nil points", ErrArgument)
	}
	r, c := X.Dims()
	if r == 0 {
		return 0, fmt.Errorf("%w: no points", ErrEmpty)
	}
	if c != d {
		return 0, fmt.Errorf("%w: points have dimension %d, the model %d", ErrDimension, c, d)
	}
	for i := range r {
		for j := range c {
			if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: point %d, coordinate %d is %g", ErrNonFinite, i, j, v)
			}
		}
	}
	if have == 0 {
		return 0, fmt.Errorf("%w: the model has no components yet", ErrEmpty)
	}
	if k < 1 || k > have {
		return 0, fmt.Errorf("%w: %d components requested of %d", ErrArgument, k, have)
	}
	if dst == nil {
		return 0, fmt.Errorf("%w: nil destination", ErrArgument)
	}
	if rr, cc := dst.Dims(); !dst.IsEmpty() && (rr != r || cc != k) {
		return 0, fmt.Errorf("%w: destination is %d×%d, want %d×%d", ErrDimension, rr, cc, r, k)
	}
	return r, nil
}
