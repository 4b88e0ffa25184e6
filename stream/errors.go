package stream

import (
	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("stream")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name: ErrEmpty for an online model with too few samples to
// start, ErrArgument for a kernel the model cannot use (SKPCA and RNCA take a kernel.RBF
// only), models that cannot be merged and a nil writer or reader, ErrEncoding from
// UnmarshalBinary and UnmarshalBinaryFrom (options the constructor refuses, sizes beyond
// the bytes present or beyond MaxDecodeFloats, sums no points give, a kernel.Func not
// registered), ErrNotConverged from LAPACK's SVD in a compression of SKPCA's sketch
// (sketch.ErrNotConverged), which it does not do on the bounded random features the model
// feeds it.
var (
	ErrDimension, ErrNonFinite, ErrEmpty      = kinds.Dimension, kinds.NonFinite, kinds.Empty
	ErrArgument, ErrEncoding, ErrNotConverged = kinds.Argument, kinds.Encoding, kinds.NotConverged
)
