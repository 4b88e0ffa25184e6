package chinsuter

import (
	"fmt"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("chinsuter")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca error of the same name, so that errors.Is(err, ikpca.ErrDimension) holds as
// well, and every error the package returns wraps exactly one of them.
var (
	// ErrArgument reports an invalid option or argument: a nil or invalid kernel, an
	// impossible option, a nil matrix, a number of components out of range.
	ErrArgument = errs.Argument
	// ErrDimension reports points whose dimension differs from the model's.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite coordinate or kernel value, or an update
	// whose results would not be finite.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports a call without points, or a model without components yet.
	ErrEmpty = errs.Empty
	// ErrEncoding reports data that UnmarshalBinary or UnmarshalBinaryFrom cannot read:
	// not an encoded model, an unknown version, truncated or corrupted (checksum
	// mismatch), or describing a model that cannot exist even under a valid checksum.
	ErrEncoding = errs.Encoding
	// ErrNotConverged reports an eigensolver or SVD of an update that did not
	// converge; the model is left as it was.
	ErrNotConverged = errs.NotConverged
)

// Model is a model of the module: read, fed and saved as every model is.
var (
	_ ikpca.Incremental = (*Model)(nil)
	_ ikpca.Persistent  = (*Model)(nil)
)

// isNilPointer is check.IsNil, under the name the encodings (encoding.go) call it by.
func isNilPointer(x any) bool { return check.IsNil(x) }

// errZero is the error of a method that needs the model's kernel and dimension, called
// on a zero Model: one made neither by New or Fit nor restored by UnmarshalBinary.
var errZero = fmt.Errorf("%w: a zero Model: make one with New or Fit, or restore one with UnmarshalBinary", ErrArgument)
