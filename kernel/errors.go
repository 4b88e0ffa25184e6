package kernel

import "github.com/ikpca/ikpca/internal/check"

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("kernel")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name: ErrNonFinite from MedianDistance and DefaultBandwidth
// for a coordinate that is not finite, ErrEmpty from them for fewer than two rows,
// ErrArgument for a nil or invalid kernel (Validate), an unknown kernel name (New), a Func
// that cannot be registered (Register), a median distance that is zero or overflows. No
// function that returns an error takes two sets of points, so none returns ErrDimension
// today; it is exported with the other kinds so that callers test every package alike.
// Column, Matrix, Block and Cross do not return errors: they panic on programming errors
// (mismatched dimensions, a nil kernel), like gonum's mat.
var (
	ErrDimension, ErrNonFinite = kinds.Dimension, kinds.NonFinite
	ErrEmpty, ErrArgument      = kinds.Empty, kinds.Argument
)
