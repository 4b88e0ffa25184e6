package kernel

import (
	"fmt"
	"math"
)

// namePrecomputed is Precomputed's name in a Spec.
const namePrecomputed = "precomputed"

// Precomputed stands for kernel values the caller computes: scikit-learn's
// kernel="precomputed", for kernels on things that are not vectors — strings, graphs,
// sets — which have kernel values but no coordinates. A model of such points is given
// each point as its kernel column against the points it holds and its self-kernel
// k(x, x), never as coordinates. Only package kpca takes it (kpca.Fit, kpca.New,
// Model.AddColumn; docs/design.md, "Kernels given as columns"); every other model
// refuses it, for each needs kernel values it computes itself.
//
// The values are the caller's, unchecked: a matrix that is not positive semi-definite
// is decomposed exactly like any other, and shows itself by negative eigenvalues in
// kpca.Model.Values (see there).
//
// Precomputed has no values of its own: Eval returns NaN, so that a Precomputed passed
// where values are evaluated gives an error about a kernel value that is not finite,
// never a number. Validate refuses it for the same reason, and New(Spec{Name:
// "precomputed"}) returns it (without Validate) so that a model's encoding can name it.
type Precomputed struct{}

// Eval returns NaN: a Precomputed kernel has no values to evaluate.
func (Precomputed) Eval(x, y []float64) float64 { return math.NaN() }

// Spec returns Spec{Name: "precomputed"}.
func (Precomputed) Spec() Spec { return Spec{Name: namePrecomputed} }

// IsPrecomputed reports whether k is Precomputed (or a non-nil pointer to it).
func IsPrecomputed(k Kernel) bool {
	switch p := k.(type) {
	case Precomputed:
		return true
	case *Precomputed:
		return p != nil
	}
	return false
}

// errPrecomputed is Validate's error for Precomputed.
func errPrecomputed() error {
	return fmt.Errorf("%w: kernel.Precomputed has no values to evaluate: only kpca takes kernel values given as columns (kpca.Model.AddColumn)", ErrArgument)
}
