package kaf

import (
	"fmt"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Bounds of the sizes (docs/design.md, "Sizes"): batch SPEED and the eigenmap decompose
// the Gram matrix of all their inputs, so at most maxSquare of them (2¹⁵, an n×n matrix
// within 2³⁰ numbers); the Mackey–Glass series is at most maxSeries samples, 6.3·10⁷
// integration steps of kaf.MackeyGlass (60 a sample), within its limit of 10⁸.
const (
	maxSquare = 1 << 15
	maxSeries = 1 << 20
)

// check reports the prediction options Predict cannot run with.
func (o PredictOptions) check() error {
	switch {
	case o.Trials < 1 || o.Train < 10 || o.Test < 1 || o.Gap < 0 || o.Order < 1 || o.Every < 1 || o.Features < 2 || o.Seed100 < 2 || o.Seed100 >= o.Train:
		return fmt.Errorf("%w: prediction options out of range", study.ErrOptions)
	case o.Every > o.Train:
		return fmt.Errorf("%w: a test MSE every %d training samples of %d: none would be measured", study.ErrOptions, o.Every, o.Train)
	case o.Train > maxSquare:
		return fmt.Errorf("%w: %d training samples: at most %d (batch SPEED's Gram matrix of all of them)", study.ErrOptions, o.Train, maxSquare)
	case o.Test > maxSeries || o.Gap > maxSeries || o.Order > maxSeries || o.Order+o.Train+o.Gap+o.Test+3000 > maxSeries:
		return fmt.Errorf("%w: %d training, %d test samples and a gap of %d: a series of more than %d samples", study.ErrOptions, o.Train, o.Test, o.Gap, maxSeries)
	}
	return nil
}

// check reports the eigenmap options Basis cannot run with.
func (o BasisOptions) check() error {
	switch {
	case o.N < 10 || o.M < 1 || o.M >= o.N || o.Seed < 2 || o.Seed >= o.N || o.Every < 1:
		return fmt.Errorf("%w: eigenmap needs n ≥ 10, 1 ≤ m < n, 2 ≤ seed < n and every ≥ 1", study.ErrOptions)
	case o.N > maxSquare:
		return fmt.Errorf("%w: an eigenmap of %d inputs: at most %d (their Gram matrix)", study.ErrOptions, o.N, maxSquare)
	}
	return nil
}
