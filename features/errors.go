package features

import "github.com/ikpca/ikpca/internal/check"

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("features")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name: ErrArgument for sizes out of range or too large to
// allocate and a kernel that kernel.Validate refuses, ErrNotConverged from the
// eigenproblem of NewQuadrature's Gauss–Hermite rule (LAPACK's dsteqr converges on every
// rule of at most 200 points).
var (
	ErrDimension, ErrNonFinite, ErrEmpty = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrNotConverged         = kinds.Argument, kinds.NotConverged
)
