package update

import (
	"fmt"

	"github.com/ikpca/ikpca/secular"
)

// Validate reports options that cannot be honoured: a negative Workers, Serial or
// MaxIterations (zero selects the default of each). The error wraps ErrArgument.
func (o Options) Validate() error {
	if o.Workers < 0 || o.Serial < 0 || o.MaxIterations < 0 {
		return fmt.Errorf("%w: options must not be negative (0 selects the default): workers %d, serial %d, max iterations %d",
			ErrArgument, o.Workers, o.Serial, o.MaxIterations)
	}
	return nil
}

// apply sets the solver's options from o, or returns Validate's error and leaves the
// solver unchanged: SetOptions of Sym and Thin.
func (o Options) apply(sv *secular.Solver) error {
	if err := o.Validate(); err != nil {
		return err
	}
	sv.Workers = o.Workers
	sv.Serial = o.Serial
	sv.MaxIterations = o.MaxIterations
	return nil
}

// fits reports whether arrays of rows×cols numbers, for each pair of sizes given, are
// within what the package allocates (check.MaxFloats numbers, docs/design.md, "Sizes")
// and none of the sizes negative. A Reserve asked for more reserves nothing: it is a
// hint, and a request no array can honour is not one (a make of it would panic or end
// the process out of memory).
func fits(sizes ...int) bool {
	for i := 0; i+1 < len(sizes); i += 2 {
		if _, err := kinds.Floats("", sizes[i], sizes[i+1]); err != nil {
			return false
		}
	}
	return true
}
