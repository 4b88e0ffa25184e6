package sketch

import "github.com/ikpca/ikpca/internal/check"

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("sketch")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca error of the same name, so that errors.Is(err, ikpca.ErrArgument) holds as
// well.
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
	// ErrEncoding reports data that UnmarshalBinary or UnmarshalBinaryFrom cannot read:
	// not an encoded sketch, an unknown version, truncated or corrupted (checksum
	// mismatch), or describing a sketch that cannot exist even under a valid checksum.
	ErrEncoding = errs.Encoding
	// ErrNotConverged reports LAPACK's SVD (dgesvd) not converging in a compression,
	// which it does not do on finite rows in practice; the sketch is left as it was
	// before the compression.
	ErrNotConverged = errs.NotConverged
)
