package kpca

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("kpca")

// Errors returned by the package; test with errors.Is. Each wraps the ikpca error of
// the same name, so that errors.Is(err, ikpca.ErrDimension) holds as well, and every
// error the package returns wraps exactly one of them — errors of the packages it calls
// (kernel, update, native) included — with two exceptions that are not the package's to
// classify: AddRows' error when its context is cancelled wraps context.Cause, and the
// error of a writer or reader given to MarshalBinaryTo or UnmarshalBinaryFrom is
// returned as it is.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite input, or a kernel value that is not finite.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports an empty set of points, or a model without components.
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: impossible options, a kernel that
	// Validate refuses, a nil argument, a zero Model.
	ErrArgument = errs.Argument
	// ErrEncoding reports bytes that UnmarshalBinary or UnmarshalBinaryFrom cannot
	// decode: not an encoded Model, an unknown version, truncated, corrupted (checksum
	// mismatch), or describing a model that cannot exist even under a valid checksum.
	ErrEncoding = errs.Encoding
	// ErrNotConverged reports an eigensolver or secular root finder that did not
	// converge; the model is left as it was.
	ErrNotConverged = errs.NotConverged
	// ErrIndex reports a point index out of range (Remove); it wraps ErrArgument.
	ErrIndex = fmt.Errorf("%w: index out of range", ErrArgument)
)
