package ikpca

import "errors"

// The kinds of error every function of the module returns: each error wraps exactly
// one of them, so that errors.Is(err, ikpca.ErrArgument) tells a caller what went wrong
// whichever package returned it. Each package also wraps them in its own sentinel
// errors (for example kpca.ErrDimension wraps ErrDimension), so that both
// errors.Is(err, kpca.ErrDimension) and errors.Is(err, ikpca.ErrDimension) hold. On any
// error, a model is left exactly as it was.
//
// The one exception is a stop the caller asked for: a method that takes a context
// (kpca.Model.PolishContext, CertifyContext, AddRows) and finds it done returns an error
// that wraps context.Cause(ctx) and ctx.Err() — errors.Is holds with the caller's cause
// and with context.Canceled or context.DeadlineExceeded — and none of the kinds: the
// input was valid.
var (
	// ErrDimension reports a point, vector or matrix of the wrong dimension.
	ErrDimension = errors.New("dimension mismatch")
	// ErrNonFinite reports a NaN or infinite input, or a kernel value that is not
	// finite.
	ErrNonFinite = errors.New("non-finite value")
	// ErrEmpty reports an operation that needs points on an empty model or input.
	ErrEmpty = errors.New("no points")
	// ErrArgument reports any other invalid argument: a nil argument, an index or a
	// count out of range, an impossible option, a kernel whose parameters make it
	// identically zero or not finite.
	ErrArgument = errors.New("invalid argument")
	// ErrEncoding reports bytes that cannot be decoded into a model: not an encoding
	// of its type, an unknown version, truncated, corrupted (checksum mismatch), or
	// describing a model that cannot exist.
	ErrEncoding = errors.New("bad encoding")
	// ErrNotConverged reports a numerical method that did not converge within its
	// iteration limit: a secular root finder or an eigensolver. The input was valid;
	// the model is left as it was.
	ErrNotConverged = errors.New("not converged")
)
