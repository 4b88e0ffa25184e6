package sketch

import "github.com/ikpca/ikpca/internal/check"

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("sketch")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name: ErrNonFinite for a row whose squared norm overflows,
// ErrEmpty for a sketch without directions yet, ErrArgument for sizes out of range or too
// large to allocate and sketches that cannot be merged, ErrEncoding from UnmarshalBinary
// and UnmarshalBinaryFrom, ErrNotConverged from LAPACK's SVD (dgesvd) in a compression,
// which it does not do on finite rows in practice (the sketch is left as it was before
// the compression).
var (
	ErrDimension, ErrNonFinite, ErrEmpty      = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrEncoding, ErrNotConverged = kinds.Argument, kinds.Encoding, kinds.NotConverged
)
