package ikpcabeam

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// defaultBlock is the number of points a fit buffers before it adds them together
// (FitOptions.Block), and Project's block (ProjectOptions.Block).
const defaultBlock = 256

// batchAdder is a Summary that adds many points in one call: nystrom.Model.AddBatch
// (per 64 points one kernel block, one dgemm for the features and one dsyrk for their
// outer products, where Add makes a dgemv and r'²/2 scalar updates per point) and
// stream.SKPCA.AddBatch. Either is all or nothing: a bad row leaves the model
// unchanged.
type batchAdder interface {
	AddBatch(X mat.Matrix) error
}

// pending is a block of points waiting to be added to a model by its AddBatch: the
// rows of a matrix of dimension d, row-major, in a buffer that holds a whole block
// once it is full and is reused for the next one, so that a fit's memory per worker is
// its models and one block each (docs/design.md, "Beyond one machine").
type pending struct {
	x    []float64
	rows int
	m    mat.Dense // a view of x, for AddBatch
}

// add appends the point x to the block, whose capacity is block points of its
// dimension: it allocates the buffer at its first point, nothing afterwards.
func (b *pending) add(x []float64, block int) {
	if b.x == nil {
		b.x = make([]float64, 0, block*len(x))
	}
	b.x = append(b.x, x...)
	b.rows++
}

// reset empties the block.
func (b *pending) reset() { b.x, b.rows = b.x[:0], 0 }

// flush adds the block to the model with AddBatch and empties it, whether or not the
// model took it; an empty block is nothing to do.
func (b *pending) flush(m batchAdder) error {
	if b.rows == 0 {
		return nil
	}
	rows := b.rows
	b.m.SetRawMatrix(blas64.General{Rows: rows, Cols: len(b.x) / rows, Stride: len(b.x) / rows, Data: b.x})
	err := m.AddBatch(&b.m)
	b.reset()
	if err != nil {
		return fmt.Errorf("adding a block of %d points: %w", rows, err)
	}
	return nil
}
