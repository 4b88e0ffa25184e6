package stream

import (
	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's errors (exported below), and report bad arguments through them.
var errs = check.NewKinds("stream")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca error of the same name, so that errors.Is(err, ikpca.ErrDimension) holds as
// well.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = errs.Dimension
	// ErrNonFinite reports a NaN or infinite input, or a kernel value or random feature
	// that is not finite.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports a call that needs points on a model or input without them (an
	// online model that has too few samples to start, or X without rows).
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: an impossible option, a nil
	// argument, a kernel the model cannot use (SKPCA and RNCA take a kernel.RBF only),
	// a number of components out of range, models that cannot be merged, a nil writer
	// or reader.
	ErrArgument = errs.Argument
	// ErrEncoding reports bytes that UnmarshalBinary or UnmarshalBinaryFrom cannot
	// decode: not an encoding of the model's type, an unknown version, truncated,
	// corrupted (checksum mismatch), or describing a model that cannot exist (its
	// options refused by the constructor, sizes beyond the bytes present or beyond
	// MaxDecodeFloats, a number that is not finite, sums no points give, a kernel.Func
	// not registered).
	ErrEncoding = errs.Encoding
	// ErrNotConverged reports LAPACK's SVD not converging in a compression of SKPCA's
	// sketch (sketch.ErrNotConverged), which it does not do on the bounded random
	// features the model feeds it.
	ErrNotConverged = errs.NotConverged
)

// own returns err, an error of a package below (features, sketch, kernel), under the
// package's sentinel of the same ikpca kind as well (check.Kinds.Wrap), so that
// errors.Is(err, stream.ErrX) holds for every error the package returns, and
// errors.Is(err, features.ErrX) still does.
func own(err error) error { return errs.Wrap(err, "") }

// Every model of the package is fed point by point or in batches, and saved and
// restored, as package ikpca describes.
var (
	_ ikpca.Incremental = (*SKPCA)(nil)
	_ ikpca.Incremental = (*RNCA)(nil)
	_ ikpca.Incremental = (*KRQA)(nil)
	_ ikpca.Incremental = (*KHA)(nil)
	_ ikpca.Persistent  = (*SKPCA)(nil)
	_ ikpca.Persistent  = (*RNCA)(nil)
	_ ikpca.Persistent  = (*KRQA)(nil)
	_ ikpca.Persistent  = (*KHA)(nil)
)
