package ikpcabeam

import (
	"errors"
	"fmt"

	"github.com/ikpca/ikpca"
)

// Errors returned by the package, wrapped with details; test with errors.Is. The first
// four wrap the ikpca error of the same name.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = fmt.Errorf("ikpcabeam: %w", ikpca.ErrDimension)
	// ErrNonFinite reports a NaN or infinite input.
	ErrNonFinite = fmt.Errorf("ikpcabeam: %w", ikpca.ErrNonFinite)
	// ErrEmpty reports a call that needs points or components where there are none.
	ErrEmpty = fmt.Errorf("ikpcabeam: %w", ikpca.ErrEmpty)
	// ErrArgument reports any other invalid argument: an impossible option, a nil
	// argument, a number of components out of range, models that cannot be merged.
	ErrArgument = fmt.Errorf("ikpcabeam: %w", ikpca.ErrArgument)
	// ErrModel reports bytes that are not the encoding of a model this package knows:
	// an unknown kind, an unsupported version, a truncated or corrupted encoding, or
	// one that describes a model that cannot exist.
	ErrModel = errors.New("ikpcabeam: bad model encoding")
	// ErrNoPoints fails a pipeline whose fit no valid point reached (Fit, FitSKPCA,
	// FitNystrom and the others): every record was a dead letter, whose reasons say why. It
	// wraps ErrEmpty. A runner reports a failed pipeline's error as text, where
	// errors.Is no longer finds it: a program that runs a pipeline recognises it by
	// its text, ErrNoPoints.Error(), in the runner's error.
	ErrNoPoints = fmt.Errorf("%w: no valid point reached the fit; the dead letters say why each record was left out", ErrEmpty)
	// ErrNoLandmarks fails a pipeline whose Nyström fit on landmarks given as a
	// PCollection (FitNystromOn) has no valid landmark: none, or only dead letters. It
	// wraps ErrEmpty, and is recognised by its text as ErrNoPoints is.
	ErrNoLandmarks = fmt.Errorf("%w: no valid landmark reached the fit; the dead letters say why each record was left out", ErrEmpty)
)
