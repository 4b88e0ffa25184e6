package native

import "errors"

// The kinds of error the eigensolvers and SVDs of this package return, for errors.Is.
// Like packages update and secular, native sits below the model packages and does not
// wrap the ikpca error kinds; callers that surface these errors wrap them in their own.
var (
	// ErrArgument reports a bad size, stride, count or slice length, or a nil matrix.
	ErrArgument = errors.New("native: invalid argument")
	// ErrNonFinite reports a NaN or an infinity in the input, or eigenvalues that
	// overflow.
	ErrNonFinite = errors.New("native: non-finite value")
	// ErrNotConverged reports a LAPACK routine that did not converge.
	ErrNotConverged = errors.New("native: no convergence")
)
