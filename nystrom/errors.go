package nystrom

import (
	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("nystrom")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca error of the same name, so that errors.Is(err, ikpca.ErrDimension) holds as
// well, and every error the package returns wraps exactly one of them.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite input, a kernel value that is not finite,
	// or sums that would overflow.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports a call that needs points on a model or input without them.
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: a nil argument, an invalid kernel,
	// an impossible option, a number of components out of range, models that cannot be
	// merged.
	ErrArgument = errs.Argument
	// ErrEncoding reports data that UnmarshalBinary or UnmarshalBinaryFrom cannot read:
	// not an encoded model, an unknown version, truncated or corrupted (checksum
	// mismatch), or describing a model that cannot exist even under a valid checksum.
	ErrEncoding = errs.Encoding
	// ErrNotConverged reports the eigen-update of an Approximation that did not
	// converge (package update's root finder); the approximation is left as it was.
	ErrNotConverged = errs.NotConverged
)

// Model is a model of the module: read, fed and saved as every model is.
var (
	_ ikpca.Incremental = (*Model)(nil)
	_ ikpca.Persistent  = (*Model)(nil)
)

// Centred reports whether the model centres the features (the default): its
// eigenvalues are then those of the centred Nyström-approximated kernel matrix CK̃C, and
// with Options.Uncentred those of K̃.
func (m *Model) Centred() bool { return !m.opts.Uncentred }
