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
	// ErrNonFinite reports a NaN or infinite input, or a kernel value that is not finite.
	ErrNonFinite = errs.NonFinite
	// ErrEmpty reports a call that needs points on a model or input without them (an
	// online model that has too few samples to start, or X without rows).
	ErrEmpty = errs.Empty
	// ErrArgument reports any other invalid argument: an impossible option, a nil
	// argument, a number of components out of range, models that cannot be merged.
	ErrArgument = errs.Argument
)

// Every model of the package is an ikpca.Model.
var (
	_ ikpca.Model = (*SKPCA)(nil)
	_ ikpca.Model = (*RNCA)(nil)
	_ ikpca.Model = (*KRQA)(nil)
	_ ikpca.Model = (*KHA)(nil)
)

// Centred reports false: SKPCA sketches the uncentred features, as in the paper.
func (s *SKPCA) Centred() bool { return false }

// Centred reports whether the model subtracts the features' running mean
// (RNCAOptions.Centred).
func (r *RNCA) Centred() bool { return r.opts.Centred }

// Centred reports whether the model centres in feature space (the default; see
// KRQAOptions.Uncentred).
func (m *KRQA) Centred() bool { return !m.opts.Uncentred }

// Centred reports whether the model centres in feature space (the default; see
// KHAOptions.Uncentred).
func (m *KHA) Centred() bool { return !m.opts.Uncentred }
