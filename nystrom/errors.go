package nystrom

import (
	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("nystrom")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name, and every error the package returns wraps exactly one
// of them: ErrNonFinite for a kernel value that is not finite or sums that would
// overflow, ErrArgument for a kernel that kernel.Validate refuses, a zero Model and models
// that cannot be merged, ErrEncoding from UnmarshalBinary and UnmarshalBinaryFrom,
// ErrNotConverged from an Approximation's eigen-update (package update's root finder).
var (
	ErrDimension, ErrNonFinite, ErrEmpty      = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrEncoding, ErrNotConverged = kinds.Argument, kinds.Encoding, kinds.NotConverged
)
