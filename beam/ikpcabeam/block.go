package ikpcabeam

import (
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
// once it is full and is reused for the next one, and where each point came from, for
// its dead letter, so that a fit's memory per worker is its models and one block each
// (docs/design.md, "Beyond one machine").
type pending struct {
	x    []float64
	at   []Point // the points' Source, Offset and Line (X nil)
	rows int
	m    mat.Dense // a view of x, for AddBatch
}

// add appends the point p to the block, whose capacity is block points of its
// dimension: it allocates the buffers at its first point, nothing afterwards.
func (b *pending) add(p Point, block int) {
	if b.x == nil {
		b.x = make([]float64, 0, block*len(p.X))
		b.at = make([]Point, 0, block)
	}
	b.x = append(b.x, p.X...)
	b.at = append(b.at, Point{Source: p.Source, Offset: p.Offset, Line: p.Line})
	b.rows++
}

// reset empties the block.
func (b *pending) reset() {
	clear(b.at) // drop the sources' strings
	b.x, b.at, b.rows = b.x[:0], b.at[:0], 0
}

// flush adds the block to the model m, a batchAdder, and empties it: by AddBatch, or,
// if m refuses the block — AddBatch is all or nothing, so one bad point refuses it
// all — point by point with Add, each point m refuses going to dead with the model's
// reason, so that only the points at fault are lost. An empty block is nothing to do.
func (b *pending) flush(m Summary, dead func(DeadLetter)) {
	if b.rows == 0 {
		return
	}
	rows, d := b.rows, len(b.x)/b.rows
	b.m.SetRawMatrix(blas64.General{Rows: rows, Cols: d, Stride: d, Data: b.x})
	if err := m.(batchAdder).AddBatch(&b.m); err != nil {
		for i, at := range b.at {
			x := b.x[i*d : (i+1)*d]
			if err := m.Add(x); err != nil {
				at.X = x
				dead(pointLetter(at, err.Error()))
			}
		}
	}
	b.reset()
}
