package kernel

import "github.com/ikpca/ikpca/internal/check"

// errs are the package's errors (exported below), each wrapping the ikpca kind of the
// same name.
var errs = check.NewKinds("kernel")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca error of the same name, so that errors.Is(err, ikpca.ErrArgument) holds as
// well. Column, Matrix, Block and Cross do not return errors: they panic on programming
// errors (mismatched dimensions, a nil kernel), like gonum's mat.
var (
	// ErrDimension reports points of the wrong dimension. No function of the package
	// that returns an error takes two sets of points, so none returns it today; it is
	// exported with the other kinds so that callers test every package alike.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or an infinite coordinate where finite points are
	// needed (MedianDistance, DefaultBandwidth).
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports too few points: fewer than two rows for a median distance.
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: a nil kernel or matrix, a kernel
	// whose parameters are invalid or make it identically constant, zero or not finite
	// (Validate), an unknown kernel name (New), a Func that cannot be registered
	// (Register), a median distance that is zero or overflows.
	ErrArgument = errs.Argument
)
