package nystrom

import (
	"errors"
	"fmt"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
)

// Errors returned by the package, wrapped with details; test with errors.Is. Each of the
// first four wraps the ikpca error of the same name, so that errors.Is(err,
// ikpca.ErrDimension) holds as well.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = fmt.Errorf("nystrom: %w", ikpca.ErrDimension)
	// ErrNonFinite reports a NaN or infinite input, a kernel value that is not finite,
	// or sums that would overflow.
	ErrNonFinite = fmt.Errorf("nystrom: %w", ikpca.ErrNonFinite)
	// ErrEmpty reports a call that needs points on a model or input without them.
	ErrEmpty = fmt.Errorf("nystrom: %w", ikpca.ErrEmpty)
	// ErrArgument reports any other invalid argument: a nil argument, an impossible
	// option, a number of components out of range, models that cannot be merged.
	ErrArgument = fmt.Errorf("nystrom: %w", ikpca.ErrArgument)
	// ErrEncoding reports data that UnmarshalBinary cannot read: not an encoded model,
	// an unknown version, truncated or corrupted (checksum mismatch), or describing a
	// model that cannot exist even under a valid checksum.
	ErrEncoding = errors.New("nystrom: bad encoding")
)

// errs reports bad arguments through the package's errors.
var errs = check.Kinds{Dimension: ErrDimension, NonFinite: ErrNonFinite, Empty: ErrEmpty, Argument: ErrArgument}

// Model is an ikpca.Model.
var _ ikpca.Model = (*Model)(nil)
