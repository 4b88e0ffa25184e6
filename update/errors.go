package update

import (
	"fmt"

	argcheck "github.com/ikpca/ikpca/internal/check"
)

// errs are the package's error kinds, each wrapping the ikpca error of the same name.
var errs = argcheck.NewKinds("update")

// Errors returned by Sym, Thin and Product; test with errors.Is. Each wraps one of the
// error kinds of package ikpca (the root package), so that errors.Is(err,
// ikpca.ErrDimension) holds as well as errors.Is(err, update.ErrDimension). Errors of the
// secular solver (secular.ErrNotConverged, wrapping ikpca.ErrNotConverged) and of
// package native are wrapped and can be tested the same way.
var (
	// ErrDimension reports a vector or matrix of the wrong size. It wraps
	// ikpca.ErrDimension.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite input. It wraps ikpca.ErrNonFinite.
	ErrNonFinite = errs.NonFinite
	// ErrArgument reports any other invalid argument: a nil matrix or vector, options
	// that are negative, a new direction that is not a unit vector, an EigenSym without
	// a factorization or without vectors. It wraps ikpca.ErrArgument.
	ErrArgument = errs.Argument
	// ErrNotOrthogonal reports eigenvectors given to SetEigen (or a constructor) that
	// are not orthonormal. It wraps ErrArgument.
	ErrNotOrthogonal = fmt.Errorf("%w: eigenvectors are not orthonormal", ErrArgument)
	// ErrIndex reports a row index out of range, including any index of an empty
	// decomposition. It wraps ErrArgument.
	ErrIndex = fmt.Errorf("%w: index out of range", ErrArgument)
)
