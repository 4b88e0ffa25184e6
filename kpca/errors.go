package kpca

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("kpca")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name, and every error the package returns wraps exactly one
// of them, errors of the packages it calls (kernel, update, native) included: ErrEmpty for
// a model without components as for no points, ErrArgument for a zero Model and a kernel
// that kernel.Validate refuses, ErrEncoding from UnmarshalBinary and UnmarshalBinaryFrom,
// ErrNotConverged from the eigensolvers and the secular root finder. Two errors are not
// the package's to classify: AddRows' when its context is cancelled wraps context.Cause,
// and a writer's or reader's given to MarshalBinaryTo or UnmarshalBinaryFrom is returned
// as it is.
var (
	ErrDimension, ErrNonFinite, ErrEmpty      = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrEncoding, ErrNotConverged = kinds.Argument, kinds.Encoding, kinds.NotConverged
	// ErrIndex reports a point index out of range (Remove); it wraps ErrArgument.
	ErrIndex = fmt.Errorf("%w: index out of range", ErrArgument)
	// ErrNoKernel reports an operation that evaluates the kernel — Remove, Refresh,
	// Polish, Certify, Inverse, PreImage, a window's slide — on a model of
	// kernel.Precomputed, which holds kernel columns and no kernel (docs/design.md,
	// "Kernels given as columns"); it wraps ErrArgument.
	ErrNoKernel = fmt.Errorf("%w: no kernel to evaluate", ErrArgument)
)
