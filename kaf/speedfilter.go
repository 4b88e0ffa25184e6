package kaf

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
)

// SPEEDFilterOptions configure a SPEEDFilter.
type SPEEDFilterOptions struct {
	// Threshold is the novelty criterion of siSPEED: a training input whose distance to
	// the nearest dictionary sample is at least Threshold joins the dictionary. Zero
	// makes every training input join (iSPEED); a negative value freezes the dictionary
	// (batch SPEED).
	Threshold float64
	// MaxDictionary caps the dictionary (0: no cap).
	MaxDictionary int
}

// SPEEDFilter is a linear adaptive filter on SPEED features whose dictionary grows
// online: iSPEED (every sample joins) or siSPEED (only novel samples join, Li & Príncipe).
// When a sample joins, the eigendecomposition follows by one bordered update
// (SPEED.Grow) and the filter's weights are carried into the new basis (SPEED.Transfer),
// so that learning continues without a restart. A filter whose dimension changes (with
// a Cutoff) is rebuilt by the factory and given the transferred weights; an RLS filter
// keeps its inverse correlation matrix across a change of basis of the same dimension,
// an approximation (it describes the old basis) that the forgetting or the next samples
// correct.
type SPEEDFilter struct {
	speed     *SPEED
	filter    Filter
	newFilter func(m int) (Filter, error)
	opts      SPEEDFilterOptions
	phi, w    []float64
}

// NewSPEEDFilter returns a filter on the features of s (which it then owns and grows);
// newFilter makes a linear filter for m features. A nil or zero s, a nil newFilter, a
// NaN or infinite Threshold, a negative MaxDictionary, and a factory that fails (its
// error wrapped), returns a nil filter or one of another dimension than m are
// ErrArgument.
func NewSPEEDFilter(s *SPEED, newFilter func(m int) (Filter, error), opts SPEEDFilterOptions) (*SPEEDFilter, error) {
	if s == nil || s.model == nil || newFilter == nil {
		return nil, fmt.Errorf("%w: SPEEDFilter needs a map made by NewSPEED and a filter factory", ErrArgument)
	}
	if !finite(opts.Threshold) || opts.MaxDictionary < 0 {
		return nil, fmt.Errorf("%w: SPEEDFilter threshold %v, cap %d: want a finite threshold and a cap ≥ 0", ErrArgument, opts.Threshold, opts.MaxDictionary)
	}
	f, err := makeFilter(newFilter, s.OutDim())
	if err != nil {
		return nil, err
	}
	return &SPEEDFilter{speed: s, filter: f, newFilter: newFilter, opts: opts, phi: make([]float64, s.OutDim())}, nil
}

// makeFilter calls a SPEEDFilter's factory for m features and checks what it makes.
func makeFilter(newFilter func(m int) (Filter, error), m int) (Filter, error) {
	f, err := newFilter(m)
	switch {
	case err != nil:
		return nil, kinds.WrapOr(ErrArgument, err, "the filter factory, for %d features", m)
	case check.IsNil(f):
		return nil, fmt.Errorf("%w: the filter factory made a nil filter for %d features", ErrArgument, m)
	case f.Dim() != m:
		return nil, fmt.Errorf("%w: the factory made a filter of dimension %d for %d features", ErrArgument, f.Dim(), m)
	}
	return f, nil
}

// own returns err, an error of the filter (the package's, or a caller's Filter), with
// the package's sentinel of its kind: as it is if it has one already.
func own(err error, what string) error {
	if ours := kinds.Of(err); ours != nil && errors.Is(err, ours) {
		return err
	}
	return kinds.WrapOr(ErrArgument, err, "%s", what)
}

// Map returns the feature map (read it, do not grow it).
func (f *SPEEDFilter) Map() *SPEED { return f.speed }

// Predict returns the filter's output for input x: x of another dimension than the
// map's is ErrDimension, a NaN or infinite coordinate or an output that overflows
// ErrNonFinite.
func (f *SPEEDFilter) Predict(x []float64) (float64, error) {
	if f.speed == nil {
		return 0, zeroFilter("SPEEDFilter")
	}
	if err := f.speed.Map(f.phi, x); err != nil {
		return 0, err
	}
	y, err := f.filter.Predict(f.phi)
	if err != nil {
		return 0, own(err, "the filter's prediction")
	}
	return y, nil
}

// Update trains on (x, d), then lets x join the dictionary if it is novel, and returns
// the a-priori error. x of another dimension than the map's is ErrDimension; a NaN or
// infinite coordinate or d, or finite ones so large that an update overflows,
// ErrNonFinite; a failing eigen-update ErrNotConverged; a factory that fails, for a new
// number of features, ErrArgument. On error the map and the filter are unchanged — a
// Filter of the caller's only as far as its Update and SetWeights keep that promise:
// the filter learns the sample on the old features only once the dictionary has grown,
// and if carrying its weights into the new basis fails after that (weights that
// overflow), its old weights are set back (the package's filters restore P as well).
func (f *SPEEDFilter) Update(x []float64, d float64) (float64, error) {
	if f.speed == nil {
		return 0, zeroFilter("SPEEDFilter")
	}
	if err := f.speed.Map(f.phi, x); err != nil {
		return 0, err
	}
	if !f.novel(x) {
		e, err := f.filter.Update(f.phi, d)
		if err != nil {
			return 0, own(err, "the filter's update")
		}
		return e, nil
	}
	if !finite(d) {
		return 0, fmt.Errorf("%w: desired output %v", ErrNonFinite, d)
	}
	// Everything that can fail comes before the filter learns: the dictionary grows
	// (undone on a later failure) and the factory makes the filter of the new
	// dimension. The filter then learns on the old features φ, and its weights go
	// into the new basis through the old Ψ (SPEED.Grow, in this order).
	old := mat.DenseCopyOf(f.speed.psi)
	undo, err := f.speed.grow(x)
	if err != nil {
		return 0, err
	}
	m := f.speed.OutDim()
	next := f.filter
	if m != f.filter.Dim() {
		if next, err = makeFilter(f.newFilter, m); err != nil {
			undo()
			return 0, err
		}
	}
	restore := saveFilter(f.filter)
	e, err := f.filter.Update(f.phi, d)
	if err != nil {
		undo()
		return 0, own(err, "the filter's update")
	}
	f.w = f.filter.Weights(f.w)
	w, err := f.speed.Transfer(append(expansion(old, f.w), 0))
	if err == nil {
		if err = next.SetWeights(w); err != nil {
			err = own(err, "the filter's new weights")
		}
	}
	if err != nil {
		undo()
		restore()
		return 0, err
	}
	if next != f.filter {
		f.filter = next
		f.phi = make([]float64, m)
	}
	return e, nil
}

// saver is implemented by the package's filters: save returns a function that restores
// the filter's state as it is now.
type saver interface{ save() func() }

// saveFilter returns a function that restores f as it is now: its whole state if it is
// one of the package's filters, else its weights (through SetWeights).
func saveFilter(f Filter) func() {
	if s, ok := f.(saver); ok {
		return s.save()
	}
	w := f.Weights(nil)
	return func() { _ = f.SetWeights(w) }
}

// novel reports whether x should join the dictionary.
func (f *SPEEDFilter) novel(x []float64) bool {
	if f.opts.Threshold < 0 || (f.opts.MaxDictionary > 0 && f.speed.Len() >= f.opts.MaxDictionary) {
		return false
	}
	if f.opts.Threshold == 0 {
		return true
	}
	return minDistance(&f.speed.dict, x) >= f.opts.Threshold
}

// minDistance returns the smallest Euclidean distance from x to a row of X.
func minDistance(X *mat.Dense, x []float64) float64 {
	best := math.Inf(1)
	raw := X.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		var s float64
		for j, v := range row {
			t := v - x[j]
			s += t * t
			if s >= best {
				break
			}
		}
		best = min(best, s)
	}
	return math.Sqrt(best)
}
