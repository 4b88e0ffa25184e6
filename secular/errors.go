package secular

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("secular")

// Errors returned by the solver, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name: ErrDimension for inconsistent slice lengths,
// ErrNonFinite for an input so large that the problem's scale overflows, ErrArgument for
// a root index out of range, a zero weight where a non-zero one is required or ρ = 0 for a
// single root, ErrNotConverged for a root that did not converge within the iteration cap.
var (
	ErrDimension, ErrNonFinite, ErrArgument, ErrNotConverged = kinds.Dimension, kinds.NonFinite, kinds.Argument, kinds.NotConverged
	// ErrNotSorted reports poles that are not in ascending order (strictly ascending
	// for the single-root functions). It wraps ErrArgument.
	ErrNotSorted = fmt.Errorf("%w: poles not sorted", ErrArgument)
	// ErrBreakdown reports that the computed roots failed to interlace the poles, so
	// that Löwner's formula has no real solution. It signals a defect rather than a
	// property of the input and is reported instead of returning wrong vectors. It
	// wraps ErrNotConverged: the input was valid and the method failed on it.
	ErrBreakdown = fmt.Errorf("%w: computed roots do not interlace the poles", ErrNotConverged)
)
