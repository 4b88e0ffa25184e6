package secular

import "errors"

// Errors returned by the solver. They are wrapped with details; test with errors.Is.
var (
	// ErrNotConverged reports that a root did not converge within the iteration cap.
	ErrNotConverged = errors.New("secular: root finder did not converge")
	// ErrNonFinite reports a NaN or infinite input, or an input so large that the
	// problem's scale overflows.
	ErrNonFinite = errors.New("secular: non-finite input")
	// ErrLength reports inconsistent slice lengths.
	ErrLength = errors.New("secular: length mismatch")
	// ErrNotSorted reports poles that are not in ascending order (strictly ascending
	// for the single-root functions).
	ErrNotSorted = errors.New("secular: poles not sorted")
	// ErrArgument reports any other invalid argument (a root index out of range, a zero
	// weight where a non-zero one is required, ρ = 0 for a single root).
	ErrArgument = errors.New("secular: invalid argument")
	// ErrBreakdown reports that the computed roots failed to interlace the poles, so
	// that Löwner's formula has no real solution. It signals a defect rather than a
	// property of the input and is reported instead of returning wrong vectors.
	ErrBreakdown = errors.New("secular: computed roots do not interlace the poles")
)
