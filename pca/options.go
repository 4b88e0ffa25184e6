package pca

import "fmt"

// All, as Options.Components, reports every component: d of them for points of
// dimension d.
const All = -1

// Options configure a Model. Components is required; the zero value of every other field
// is its default: the exact d×d decomposition, no window.
type Options struct {
	// Components is k, the number of top components the model reports — what Values,
	// VarsTo, VectorsTo, ExplainedVariance and the k of Transform give (fewer while the
	// rank-Rank form holds fewer pairs) — or All, every one of the d. It is required:
	// zero is an error, as for every model of the module. More than d is an error.
	Components int

	// Rank, if positive, makes the model track only the top Rank eigenpairs of the
	// scatter matrix, in O(d·Rank) memory and O(d·Rank²) work a point instead of O(d²)
	// and O(d³): each update is a rank-one update of the thin decomposition truncated
	// back to Rank pairs, and ErrorBound and ValueBounds certify what the truncations
	// dropped (docs/design.md, "Linear PCA"). It must be at least Components and below
	// d, and zero with Components All. Zero, the default, keeps every eigenpair: the
	// exact model. (kpca's zero differs on purpose: there the exact model costs O(m²)
	// memory in the number of points m, unbounded on a stream, so its zero tracks
	// max(Components, kpca.DefaultRank) pairs; here the exact model costs O(d²) whatever
	// the number of points, so exact is the default.)
	Rank int

	// Window, if positive, makes the model a sliding window over the last Window points:
	// the model keeps them, and an Add beyond Window points first removes the oldest, so
	// that it decomposes exactly the points of the window. At least 2.
	Window int
}

// validate reports options that cannot be honoured for points of dimension d.
func (o Options) validate(d int) error {
	switch {
	case o.Components == 0:
		return fmt.Errorf("%w: Options.Components is zero: choose k, the top k components, or pca.All, every one", ErrArgument)
	case o.Components < All:
		return fmt.Errorf("%w: Options.Components %d: want k ≥ 1 or pca.All", ErrArgument, o.Components)
	case o.Components > d:
		return fmt.Errorf("%w: Options.Components %d for points of dimension %d: at most d components exist", ErrArgument, o.Components, d)
	case o.Components == All && o.Rank != 0:
		return fmt.Errorf("%w: Options.Rank %d with Components All: every pair is kept, there is no rank to track", ErrArgument, o.Rank)
	case o.Rank < 0 || o.Rank > 0 && o.Rank < o.Components:
		return fmt.Errorf("%w: Options.Rank %d: want 0 (every pair) or at least Components %d", ErrArgument, o.Rank, o.Components)
	case o.Rank >= d && o.Rank > 0:
		return fmt.Errorf("%w: Options.Rank %d for points of dimension %d: a rank below d, or 0 for the exact model", ErrArgument, o.Rank, d)
	case o.Window < 0 || o.Window == 1:
		return fmt.Errorf("%w: Options.Window %d (a window holds at least 2 points)", ErrArgument, o.Window)
	}
	// The decomposition holds d×d numbers (d×(Rank+1) at rank r, twice): sizes beyond
	// check.MaxFloats are refused before anything is allocated (docs/design.md, "Sizes").
	cols := d
	if o.Rank > 0 {
		cols = o.Rank + 1
	}
	if _, err := kinds.Floats("the eigenvectors", d, cols); err != nil {
		return err
	}
	return nil
}

// components returns the number of components a model of dimension d reports.
func (o Options) components(d int) int {
	if o.Components == All {
		return d
	}
	return o.Components
}
