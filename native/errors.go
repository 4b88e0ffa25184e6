package native

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("native")

// Errors returned by the eigensolvers, SVDs and SetThreads, wrapped with details; test
// with errors.Is. Each wraps the ikpca kind of the same name (a LAPACK failure wraps
// ikpca.ErrNotConverged, whichever package passed it on): ErrArgument for a bad size,
// stride, count or slice length or a nil matrix, ErrNonFinite for a NaN or an infinity in
// the input or eigenvalues that overflow, ErrNotConverged for a LAPACK routine that did
// not converge.
var (
	ErrNonFinite, ErrArgument, ErrNotConverged = kinds.NonFinite, kinds.Argument, kinds.NotConverged
	// ErrFixedThreads is returned by [SetThreads] in the pure-Go build: gonum's BLAS has
	// no thread-count setting, its parallelism follows runtime.GOMAXPROCS. It wraps
	// ErrArgument: the request cannot be honoured.
	ErrFixedThreads = fmt.Errorf("%w: the pure-Go gonum backend has no thread setting; its parallelism follows GOMAXPROCS", ErrArgument)
)
