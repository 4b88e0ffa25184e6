package ikpcabeam

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

func init() {
	register.DoFn5x1[context.Context, Point, func(*[]byte) bool, func(Scores), func(DeadLetter), error](&projectFn{})
	register.Emitter1[Scores]()
	register.Iter1[[]byte]()
}

// ProjectOptions configure Project.
type ProjectOptions struct {
	// K is the number of components to project on: all the model has if zero. A K
	// above the model's number of components fails the pipeline.
	K int
	// Block is the number of points projected together, one Transform call (one
	// kernel block and one product) each; zero means 256.
	Block int
}

// Project projects a PCollection<Point> with a fitted model — model is a
// PCollection<[]byte> with one element, the encoding of any model DecodeModel reads: a
// kpca checkpoint, an SKPCA, a Nyström KPCA model — and returns the scores, a
// PCollection<Scores> (each point's position and its scores on the model's top K
// components, in the order of its Values), and a PCollection<DeadLetter> of the points
// the model cannot project: a wrong dimension, a NaN or infinite coordinate, a kernel
// value that is not finite.
//
// Each worker decodes the model once per bundle (the side input is read at the
// bundle's first point), and projects the bundle's points in blocks; a block that
// fails is projected point by point, so that only the points at fault become dead
// letters. The last block of a bundle is emitted when the bundle finishes, in the
// global window: Project is for bounded, globally windowed input. Bytes that do not
// decode fail the pipeline: check them first with DecodeModel where they are at hand.
// Invalid options are an ErrArgument.
func Project(s beam.Scope, model, points beam.PCollection, opts ProjectOptions) (scores, dead beam.PCollection, err error) {
	if opts.K < 0 || opts.Block < 0 {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: K = %d, Block = %d", ErrArgument, opts.K, opts.Block)
	}
	if opts.Block == 0 {
		opts.Block = 256
	}
	s = s.Scope("ikpcabeam.Project")
	scores, dead = beam.ParDo2(s, &projectFn{K: opts.K, Block: opts.Block}, points, beam.SideInput{Input: model})
	return scores, dead, nil
}

// projectFn projects points in blocks with the model of its side input.
type projectFn struct {
	K, Block int

	m     ikpca.Model // the bundle's model, nil before its first point
	k     int
	block []Point
	X, Y  mat.Dense
}

// StartBundle forgets the last bundle's model: the side input is read again at the
// bundle's first point. (Beam requires the side input and the emitters here.)
func (fn *projectFn) StartBundle(_ context.Context, _ func(*[]byte) bool, _ func(Scores), _ func(DeadLetter)) {
	fn.m, fn.block = nil, fn.block[:0]
}

// ProcessElement adds a point to the block, and projects the block when it is full.
func (fn *projectFn) ProcessElement(ctx context.Context, p Point, model func(*[]byte) bool, emit func(Scores), dead func(DeadLetter)) error {
	if fn.m == nil {
		if err := fn.decode(model); err != nil {
			return err
		}
	}
	if err := checkPoint(p.X, fn.m.Dim()); err != nil {
		dead(pointLetter(p, err.Error()))
		return nil
	}
	fn.block = append(fn.block, p)
	if len(fn.block) == fn.Block {
		fn.flush(emit, dead)
	}
	return nil
}

// FinishBundle projects the last block.
func (fn *projectFn) FinishBundle(_ context.Context, _ func(*[]byte) bool, emit func(Scores), dead func(DeadLetter)) {
	if fn.m != nil {
		fn.flush(emit, dead)
	}
	fn.m = nil
}

// decode reads the model from the side input and fixes the number of components.
func (fn *projectFn) decode(model func(*[]byte) bool) error {
	var b, extra []byte
	if !model(&b) {
		return fmt.Errorf("%w: no model in the side input", ErrArgument)
	}
	if model(&extra) {
		return fmt.Errorf("%w: more than one model in the side input", ErrArgument)
	}
	m, err := DecodeModel(b)
	if err != nil {
		return err
	}
	have := len(m.Values(nil))
	k := fn.K
	if k == 0 {
		k = have
	}
	if have == 0 || k > have {
		return fmt.Errorf("%w: %d components requested of a model that has %d", ErrArgument, k, have)
	}
	fn.m, fn.k = m, k
	return nil
}

// flush projects the block, point by point if the block fails.
func (fn *projectFn) flush(emit func(Scores), dead func(DeadLetter)) {
	n := len(fn.block)
	if n == 0 {
		return
	}
	d := fn.m.Dim()
	fn.X.ReuseAs(n, d)
	for i, p := range fn.block {
		fn.X.SetRow(i, p.X)
	}
	fn.Y.Reset()
	if err := fn.m.Transform(&fn.Y, &fn.X, fn.k); err == nil {
		for i, p := range fn.block {
			emit(Scores{Source: p.Source, Offset: p.Offset, Line: p.Line, Y: append([]float64(nil), fn.Y.RawRowView(i)...)})
		}
	} else {
		for _, p := range fn.block {
			var y mat.Dense
			if err := fn.m.Transform(&y, mat.NewDense(1, d, p.X), fn.k); err != nil {
				dead(pointLetter(p, err.Error()))
				continue
			}
			emit(Scores{Source: p.Source, Offset: p.Offset, Line: p.Line, Y: y.RawRowView(0)})
		}
	}
	fn.X.Reset()
	fn.block = fn.block[:0]
}
