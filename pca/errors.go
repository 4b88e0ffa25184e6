package pca

import "github.com/ikpca/ikpca/internal/check"

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("pca")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name, and every error the package returns wraps exactly one
// of them, errors of package update included: ErrEmpty for a model without points or
// components as for no rows, ErrArgument for a zero Model, impossible options and a
// removal the model cannot have seen, ErrEncoding from UnmarshalBinary and
// UnmarshalBinaryFrom, ErrNotConverged from the eigensolvers. A writer's or reader's own
// error given to MarshalBinaryTo or UnmarshalBinaryFrom is returned as it is.
var (
	ErrDimension, ErrNonFinite, ErrEmpty      = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrEncoding, ErrNotConverged = kinds.Argument, kinds.Encoding, kinds.NotConverged
)
