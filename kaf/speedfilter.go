package kaf

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
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
// newFilter makes a linear filter for m features.
func NewSPEEDFilter(s *SPEED, newFilter func(m int) (Filter, error), opts SPEEDFilterOptions) (*SPEEDFilter, error) {
	if s == nil || newFilter == nil {
		return nil, errors.New("kaf: SPEEDFilter needs a map and a filter factory")
	}
	if math.IsNaN(opts.Threshold) || math.IsInf(opts.Threshold, 0) || opts.MaxDictionary < 0 {
		return nil, fmt.Errorf("kaf: SPEEDFilter threshold %v, cap %d", opts.Threshold, opts.MaxDictionary)
	}
	f, err := newFilter(s.OutDim())
	if err != nil {
		return nil, err
	}
	if f.Dim() != s.OutDim() {
		return nil, fmt.Errorf("kaf: the factory made a filter of dimension %d for %d features", f.Dim(), s.OutDim())
	}
	return &SPEEDFilter{speed: s, filter: f, newFilter: newFilter, opts: opts, phi: make([]float64, s.OutDim())}, nil
}

// Map returns the feature map (read it, do not grow it).
func (f *SPEEDFilter) Map() *SPEED { return f.speed }

// Predict returns the filter's output for input x.
func (f *SPEEDFilter) Predict(x []float64) (float64, error) {
	if err := f.speed.Map(f.phi, x); err != nil {
		return 0, err
	}
	return f.filter.Predict(f.phi)
}

// Update trains on (x, d), then lets x join the dictionary if it is novel, and returns
// the a-priori error.
func (f *SPEEDFilter) Update(x []float64, d float64) (float64, error) {
	if err := f.speed.Map(f.phi, x); err != nil {
		return 0, err
	}
	e, err := f.filter.Update(f.phi, d)
	if err != nil {
		return 0, err
	}
	if !f.novel(x) {
		return e, nil
	}
	f.w = f.filter.Weights(f.w)
	w := f.w
	if err := f.speed.Grow(x, &w); err != nil {
		return e, fmt.Errorf("kaf: the sample was learnt but could not join the dictionary: %w", err)
	}
	if len(w) != f.filter.Dim() {
		g, err := f.newFilter(len(w))
		if err != nil {
			return e, err
		}
		f.filter = g
		f.phi = make([]float64, len(w))
	}
	return e, f.filter.SetWeights(w)
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
