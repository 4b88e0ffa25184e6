package study

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// The studies compare models through ikpca.Model, the interface every model of the
// module satisfies. A Nyström approximation is not a model of the points it was fitted
// to (it has no Dim and its memory includes the n×ℓ product), so it is adapted here.

// Partial is a model with ikpca.Model's Values, Transform and Len.
type Partial interface {
	Values(dst []float64) []float64
	Transform(dst *mat.Dense, X mat.Matrix, k int) error
	Len() int
}

// Complete adapts m, which lacks Dim, Centred or Bytes, to ikpca.Model: its points have
// dimension dim, it centres if centred, and it holds bytes bytes.
func Complete(m Partial, dim int, centred bool, bytes int) ikpca.Model {
	return complete{m, dim, centred, bytes}
}

type complete struct {
	Partial
	dim     int
	centred bool
	bytes   int
}

func (c complete) Centred() bool { return c.centred }
func (c complete) Dim() int      { return c.dim }
func (c complete) Bytes() int    { return c.bytes }
