package kaf

import (
	"fmt"
	"math"
)

// Filter is a linear adaptive filter on feature vectors of a fixed dimension.
type Filter interface {
	// Dim returns the dimension m of the feature vectors.
	Dim() int
	// Predict returns wᵀφ.
	Predict(phi []float64) (float64, error)
	// Update adapts to the desired output d for φ and returns the a-priori error
	// d − wᵀφ. On error the filter is unchanged.
	Update(phi []float64, d float64) (float64, error)
	// Weights copies the weight vector w into dst (length Dim) and returns it.
	Weights(dst []float64) []float64
	// SetWeights replaces w (length Dim); with a change of feature basis the caller
	// transforms w first (see Transfer).
	SetWeights(w []float64) error
}

// checkSample reports a feature vector of the wrong length or a non-finite value.
func checkSample(phi []float64, m int, d float64) error {
	if len(phi) != m {
		return fmt.Errorf("kaf: feature vector of length %d, want %d", len(phi), m)
	}
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return fmt.Errorf("kaf: desired output %v", d)
	}
	for i, v := range phi {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("kaf: feature %d is %v", i, v)
		}
	}
	return nil
}

// copyWeights implements Weights for a weight slice.
func copyWeights(dst, w []float64) []float64 {
	if cap(dst) < len(w) {
		dst = make([]float64, len(w))
	}
	dst = dst[:len(w)]
	copy(dst, w)
	return dst
}

// setWeights implements SetWeights for a weight slice.
func setWeights(w, src []float64) error {
	if len(src) != len(w) {
		return fmt.Errorf("kaf: %d weights, want %d", len(src), len(w))
	}
	for i, v := range src {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("kaf: weight %d is %v", i, v)
		}
	}
	copy(w, src)
	return nil
}
