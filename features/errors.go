package features

import "github.com/ikpca/ikpca/internal/check"

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("features")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca error of the same name, so that errors.Is(err, ikpca.ErrArgument) holds as
// well.
var (
	// ErrDimension reports a point, matrix or destination of the wrong dimension.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite coordinate.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports a batch without points.
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: an impossible option (a size out of
	// range or too large to allocate), an invalid kernel (kernel.Validate), a nil
	// argument.
	ErrArgument = errs.Argument
	// ErrNotConverged reports the Gauss–Hermite rule's eigenproblem not converging
	// (NewQuadrature; LAPACK's dsteqr converges on every rule of at most 200 points).
	ErrNotConverged = errs.NotConverged
)
