package kaf

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca"
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
// zero). m outside 1 … 2³⁰ (the weights' 8 GiB, docs/design.md, "Sizes") is an error
// wrapping ikpca.ErrArgument.
func NewLMS(m int, eta float64) (*LMS, error) {
	if m < 1 || m > check.MaxFloats {
		return nil, fmt.Errorf("kaf: %w: %d features, want 1 … %d", ikpca.ErrArgument, m, check.MaxFloats)
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("kaf: step size %v, want a positive finite number", eta)
	}
	return &LMS{w: make([]float64, m), eta: eta}, nil
}

// Dim returns the number of features.
func (f *LMS) Dim() int { return len(f.w) }

// Predict returns wᵀφ.
func (f *LMS) Predict(phi []float64) (float64, error) {
	if err := checkSample(phi, len(f.w), 0); err != nil {
		return 0, err
	}
	return vec.Dot(f.w, phi), nil
}

// Update performs w ← w + η·e·φ and returns the a-priori error e = d − wᵀφ.
func (f *LMS) Update(phi []float64, d float64) (float64, error) {
	if err := checkSample(phi, len(f.w), d); err != nil {
		return 0, err
	}
	e := d - vec.Dot(f.w, phi)
	c := f.eta * e
	for i, v := range phi {
		f.w[i] += c * v
	}
	return e, nil
}

// Weights copies w into dst.
func (f *LMS) Weights(dst []float64) []float64 { return copyWeights(dst, f.w) }

// SetWeights replaces w.
func (f *LMS) SetWeights(w []float64) error { return setWeights(f.w, w) }
