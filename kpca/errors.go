package kpca

import (
	"errors"
	"fmt"

	"github.com/ikpca/ikpca"
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

// kinds pairs each ikpca kind with the package's sentinel of the same name.
var kinds = [...]struct{ kind, own error }{
	{ikpca.ErrDimension, ErrDimension},
	{ikpca.ErrNonFinite, ErrNonFinite},
	{ikpca.ErrEmpty, ErrEmpty},
	{ikpca.ErrArgument, ErrArgument},
	{ikpca.ErrEncoding, ErrEncoding},
	{ikpca.ErrNotConverged, ErrNotConverged},
}

// wrap returns err, an error of a package kpca calls (kernel, update, native), under a
// description of what failed and wrapped in kpca's sentinel of err's ikpca kind too, so
// that errors.Is holds with kpca's sentinel as with ikpca's and the other package's
// ("kpca: invalid argument: kernel: kernel: invalid argument: …"). Those packages wrap
// a kind in every error; one that did not would be a numerical failure, and is reported
// as ErrNotConverged.
func wrap(err error, format string, args ...any) error {
	own := ErrNotConverged
	for _, k := range kinds {
		if errors.Is(err, k.kind) {
			own = k.own
			break
		}
	}
	return fmt.Errorf("%w: %s: %w", own, fmt.Sprintf(format, args...), err)
}
