package study

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// The studies compare models through ikpca.Model, the interface every model of the
// module satisfies once their APIs agree. The adapters below give that interface to the
// models that do not have it yet; each says what it supplies, so that it can go as soon
// as the model has it. (Nyström approximations are not models of the points they were
// fitted to, so their adapter stays.)

// ValuesErr is a model whose Values also returns an error (the stream package's).
type ValuesErr interface {
	Values(dst []float64) ([]float64, error)
	Transform(dst *mat.Dense, X mat.Matrix, k int) error
	Len() int
	Bytes() int
}

// Snapshot adapts m to ikpca.Model as it is now: its eigenvalues are read once, here,
// and its dimension is dim (a model that lacks Dim). Train m fully before taking it.
func Snapshot(m ValuesErr, dim int) (ikpca.Model, error) {
	vals, err := m.Values(nil)
	if err != nil {
		return nil, err
	}
	return snapshot{m, vals, dim}, nil
}

type snapshot struct {
	ValuesErr
	vals []float64
	dim  int
}

func (s snapshot) Values(dst []float64) []float64 {
	if len(dst) < len(s.vals) {
		dst = make([]float64, len(s.vals))
	}
	return dst[:copy(dst, s.vals)]
}

func (s snapshot) Dim() int { return s.dim }

// Partial is a model with ikpca.Model's Values, Transform and Len.
type Partial interface {
	Values(dst []float64) []float64
	Transform(dst *mat.Dense, X mat.Matrix, k int) error
	Len() int
}

// Complete adapts m, which lacks Dim or Bytes, to ikpca.Model: its points have dimension
// dim and it holds bytes bytes.
func Complete(m Partial, dim, bytes int) ikpca.Model { return complete{m, dim, bytes} }

type complete struct {
	Partial
	dim, bytes int
}

func (c complete) Dim() int   { return c.dim }
func (c complete) Bytes() int { return c.bytes }
