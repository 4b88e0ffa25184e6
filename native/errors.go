package native

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's error kinds, each wrapping the ikpca error of the same name.
var errs = check.NewKinds("native")

// The kinds of error the eigensolvers, SVDs and SetThreads of this package return, for
// errors.Is. Each wraps one of the error kinds of package ikpca (the root package), so
// that errors.Is(err, ikpca.ErrNotConverged) holds for a LAPACK failure, for example,
// whichever package passed it on.
var (
	// ErrArgument reports a bad size, stride, count or slice length, or a nil matrix. It
	// wraps ikpca.ErrArgument.
	ErrArgument = errs.Argument
	// ErrNonFinite reports a NaN or an infinity in the input, or eigenvalues that
	// overflow. It wraps ikpca.ErrNonFinite.
	ErrNonFinite = errs.NonFinite
	// ErrNotConverged reports a LAPACK routine that did not converge. It wraps
	// ikpca.ErrNotConverged.
	ErrNotConverged = errs.NotConverged
	// ErrFixedThreads is returned by [SetThreads] in the pure-Go build: gonum's BLAS has
	// no thread-count setting, its parallelism follows runtime.GOMAXPROCS. It wraps
	// ErrArgument: the request cannot be honoured.
	ErrFixedThreads = fmt.Errorf("%w: the pure-Go gonum backend has no thread setting; its parallelism follows GOMAXPROCS", ErrArgument)
)
