package kaf

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/vec"
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
	// transforms w first (see SPEED.Transfer). On error the filter is unchanged.
	SetWeights(w []float64) error
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

// setWeights implements SetWeights for a weight slice: a src of another length is
// ErrDimension, a non-finite weight ErrNonFinite, and a zero filter (nil w) ErrArgument.
func setWeights(w, src []float64, what string) error {
	if w == nil {
		return zeroFilter(what)
	}
	if len(src) != len(w) {
		return fmt.Errorf("%w: %d weights, want %d", ErrDimension, len(src), len(w))
	}
	for i, v := range src {
		if !finite(v) {
			return fmt.Errorf("%w: weight %d is %v", ErrNonFinite, i, v)
		}
	}
	copy(w, src)
	return nil
}

// checkLinear reports a zero linear filter (LMS, RLS; what names it), whose weights w
// are nil (ErrArgument), or a sample (φ, d) that checkSample refuses.
func checkLinear(what string, w, phi []float64, d float64) error {
	if w == nil {
		return zeroFilter(what)
	}
	return checkSample(phi, len(w), d)
}

// linearPredict implements Predict for the weights w of a linear filter (what names
// it): wᵀφ, with the errors of checkLinear and prediction.
func linearPredict(what string, w, phi []float64) (float64, error) {
	if err := checkLinear(what, w, phi, 0); err != nil {
		return 0, err
	}
	return prediction(vec.Dot(w, phi))
}

// zeroFilter is the error of a method called on a zero filter or map of type what,
// which only its constructor makes.
func zeroFilter(what string) error {
	return fmt.Errorf("%w: a zero %s (use New%s)", ErrArgument, what, what)
}
