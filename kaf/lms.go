package kaf

import (
	"fmt"
	"math"
	"slices"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
)

// LMS is the least-mean-squares filter w ← w + η·e·φ (Widrow–Hoff). On kernel features
// it is KLMS in feature space: O(m) per sample, memory m, whatever the number of samples.
type LMS struct {
	w   []float64
	eta float64
}

// NewLMS returns an LMS filter for m features with step size η > 0 (weights start at
// zero). m outside 1 … 2³⁰ (the weights' 8 GiB, docs/design.md, "Sizes") and an η that
// is not positive and finite are ErrArgument.
func NewLMS(m int, eta float64) (*LMS, error) {
	if m < 1 || m > check.MaxFloats {
		return nil, fmt.Errorf("%w: %d features, want 1 … %d", ErrArgument, m, check.MaxFloats)
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("%w: step size %v, want a positive finite number", ErrArgument, eta)
	}
	return &LMS{w: make([]float64, m), eta: eta}, nil
}

// Dim returns the number of features.
func (f *LMS) Dim() int { return len(f.w) }

// Predict returns wᵀφ: φ of another length than Dim is ErrDimension, a NaN or infinite
// feature, or finite ones so large that wᵀφ overflows, ErrNonFinite.
func (f *LMS) Predict(phi []float64) (float64, error) { return linearPredict("LMS", f.w, phi) }

// Update performs w ← w + η·e·φ and returns the a-priori error e = d − wᵀφ. φ of
// another length than Dim is ErrDimension; a NaN or infinite feature or d, and finite
// ones so large that the error or a weight would overflow, ErrNonFinite, the filter
// unchanged. It does not allocate.
func (f *LMS) Update(phi []float64, d float64) (float64, error) {
	if err := checkLinear("LMS", f.w, phi, d); err != nil {
		return 0, err
	}
	e := d - vec.Dot(f.w, phi)
	c := f.eta * e
	if !finiteStep(1, c, phi, f.w) {
		return 0, fmt.Errorf("%w: the update overflows (a-priori error %v)", ErrNonFinite, e)
	}
	for i, v := range phi {
		f.w[i] += c * v
	}
	return e, nil
}

// Weights copies w into dst.
func (f *LMS) Weights(dst []float64) []float64 { return copyWeights(dst, f.w) }

// SetWeights replaces w: a w of another length than Dim is ErrDimension, a NaN or
// infinite weight ErrNonFinite.
func (f *LMS) SetWeights(w []float64) error { return setWeights(f.w, w, "LMS") }

// save returns a function that restores the filter's weights as they are now.
func (f *LMS) save() func() {
	w := slices.Clone(f.w)
	return func() { copy(f.w, w) }
}
