package nystrom

import (
	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("nystrom")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name, and every error the package returns wraps exactly one
// of them: ErrNonFinite for a kernel value that is not finite or sums that would
// overflow, ErrArgument for a kernel that kernel.Validate refuses, a zero Model and models
// that cannot be merged, ErrEncoding from UnmarshalBinary and UnmarshalBinaryFrom,
// ErrNotConverged from an Approximation's eigen-update (package update's root finder).
var (
	ErrDimension, ErrNonFinite, ErrEmpty      = errs.Dimension, errs.NonFinite, errs.Empty
	ErrArgument, ErrEncoding, ErrNotConverged = errs.Argument, errs.Encoding, errs.NotConverged
)
