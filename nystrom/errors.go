package nystrom

import (
	"errors"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("nystrom")

// Errors returned by the package, wrapped with details; test with errors.Is. Each of the
// first four wraps the ikpca error of the same name, so that errors.Is(err,
// ikpca.ErrDimension) holds as well.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite input, a kernel value that is not finite,
	// or sums that would overflow.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports a call that needs points on a model or input without them.
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: a nil argument, an impossible
	// option, a number of components out of range, models that cannot be merged.
	ErrArgument = errs.Argument
	// ErrEncoding reports data that UnmarshalBinary cannot read: not an encoded model,
	// an unknown version, truncated or corrupted (checksum mismatch), or describing a
	// model that cannot exist even under a valid checksum.
	ErrEncoding = errors.New("nystrom: bad encoding")
)

// Model is an ikpca.Model.
var _ ikpca.Model = (*Model)(nil)

// Centred reports true: Nyström kernel PCA decomposes the centred covariance of the
// Nyström features.
func (m *Model) Centred() bool { return true }
