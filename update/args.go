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
