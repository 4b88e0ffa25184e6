package secular

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// errs are the package's error kinds, each wrapping the ikpca error of the same name.
var errs = check.NewKinds("secular")

// Errors returned by the solver. They are wrapped with details; test with errors.Is.
// Each wraps one of the error kinds of package ikpca (the root package), so that
// errors.Is(err, ikpca.ErrArgument) holds for an ErrNotSorted, for example.
var (
	// ErrNotConverged reports that a root did not converge within the iteration cap. It
	// wraps ikpca.ErrNotConverged.
	ErrNotConverged = errs.NotConverged
	// ErrNonFinite reports a NaN or infinite input, or an input so large that the
	// problem's scale overflows. It wraps ikpca.ErrNonFinite.
	ErrNonFinite = errs.NonFinite
	// ErrDimension reports inconsistent slice lengths. It wraps ikpca.ErrDimension.
	ErrDimension = errs.Dimension
	// ErrArgument reports any other invalid argument (a root index out of range, a zero
	// weight where a non-zero one is required, ρ = 0 for a single root). It wraps
	// ikpca.ErrArgument.
	ErrArgument = errs.Argument
	// ErrNotSorted reports poles that are not in ascending order (strictly ascending
	// for the single-root functions). It wraps ErrArgument.
	ErrNotSorted = fmt.Errorf("%w: poles not sorted", ErrArgument)
	// ErrBreakdown reports that the computed roots failed to interlace the poles, so
	// that Löwner's formula has no real solution. It signals a defect rather than a
	// property of the input and is reported instead of returning wrong vectors. It
	// wraps ErrNotConverged: the input was valid and the method failed on it.
	ErrBreakdown = fmt.Errorf("%w: computed roots do not interlace the poles", ErrNotConverged)
)
