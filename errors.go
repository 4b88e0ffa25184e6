package ikpca

import "errors"

// The kinds of error every model returns. Each package wraps them in its own sentinel
// errors (for example kpca.ErrDimension wraps ErrDimension), so that both
// errors.Is(err, kpca.ErrDimension) and errors.Is(err, ikpca.ErrDimension) hold. On any
// error, a model is left exactly as it was.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = errors.New("dimension mismatch")
	// ErrNonFinite reports a NaN or infinite input, or a kernel value that is not
	// finite.
	ErrNonFinite = errors.New("non-finite value")
	// ErrEmpty reports an operation that needs points on an empty model or input.
	ErrEmpty = errors.New("no points")
	// ErrArgument reports any other invalid argument: a nil argument, an index or a
	// count out of range, an impossible option.
	ErrArgument = errors.New("invalid argument")
)
