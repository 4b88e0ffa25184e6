package update

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("update")

// Errors returned by Sym, Thin and Product, wrapped with details; test with errors.Is.
// Each wraps the ikpca kind of the same name: ErrArgument for a nil matrix or vector,
// negative options, a new direction that is not a unit vector, an EigenSym without a
// factorization or without vectors; ErrNonFinite and ErrNotConverged for the errors of
// the secular solver and of package native too, which they wrap, so that
// errors.Is(err, secular.ErrBreakdown) holds as well.
var (
	ErrDimension, ErrNonFinite, ErrArgument, ErrNotConverged = kinds.Dimension, kinds.NonFinite, kinds.Argument, kinds.NotConverged
	// ErrNotOrthogonal reports eigenvectors given to SetEigen (or a constructor) that
	// are not orthonormal. It wraps ErrArgument.
	ErrNotOrthogonal = fmt.Errorf("%w: eigenvectors are not orthonormal", ErrArgument)
	// ErrIndex reports a row index out of range, including any index of an empty
	// decomposition. It wraps ErrArgument.
	ErrIndex = fmt.Errorf("%w: index out of range", ErrArgument)
)
