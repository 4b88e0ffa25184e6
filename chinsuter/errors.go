package chinsuter

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("chinsuter")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name, and every error the package returns wraps exactly one
// of them: ErrNonFinite for a kernel value or an update whose results would not be
// finite, ErrArgument for a kernel that kernel.Validate refuses and a zero Model,
// ErrEncoding from UnmarshalBinary and UnmarshalBinaryFrom, ErrNotConverged from the
// eigensolvers and SVDs of an update.
var (
	ErrDimension, ErrNonFinite, ErrEmpty      = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrEncoding, ErrNotConverged = kinds.Argument, kinds.Encoding, kinds.NotConverged
)

// errZero is the error of a method that needs the model's kernel and dimension, called
// on a zero Model: one made neither by New or Fit nor restored by UnmarshalBinary.
var errZero = fmt.Errorf("%w: a zero Model: make one with New or Fit, or restore one with UnmarshalBinary", ErrArgument)
