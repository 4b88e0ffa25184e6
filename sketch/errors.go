package sketch

import "github.com/ikpca/ikpca/internal/check"

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("sketch")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca error of the same name, so that errors.Is(err, ikpca.ErrArgument) holds as
// well. (UnmarshalBinary's failures are ErrEncoding.)
var (
	// ErrDimension reports a row, matrix or destination of the wrong dimension.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite entry, or a row whose squared norm
	// overflows.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports a sketch without directions yet.
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: an impossible size (ℓ, d or the
	// buffer out of range or too large to allocate), a nil argument, sketches that cannot
	// be merged.
	ErrArgument = errs.Argument
)
