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
// Each DoFn instance on a worker decodes the model once, in the first bundle it
// processes, and keeps it for the next bundles while the side input's bytes are the
// same (a checksum of them is compared at each bundle's first point). It projects a
// bundle's points in blocks; a block that fails is projected point by point, so that
// only the points at fault become dead letters. The points scored are counted in the
// counter "points_projected" of namespace "ikpca" (Beam metrics: the runner's UI, or
// beam.PipelineResult.Metrics). The last block of a bundle is emitted when the bundle finishes, in the
// global window: Project is for bounded, globally windowed input. Bytes that do not
// decode fail the pipeline: check them first with DecodeModel where they are at hand.
// Invalid options are an ErrArgument.
func Project(s beam.Scope, model, points beam.PCollection, opts ProjectOptions) (scores, dead beam.PCollection, err error) {
	if opts.K < 0 || opts.Block < 0 {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: K = %d, Block = %d", ErrArgument, opts.K, opts.Block)
	}
	if err := checkGlobal("Project", model, points); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	if opts.Block == 0 {
		opts.Block = 256
	}
	s = s.Scope("ikpcabeam.Project")
	scores, dead = beam.ParDo2(s, &projectFn{K: opts.K, Block: opts.Block}, points, beam.SideInput{Input: model})
	return scores, dead, nil
}

// pointsProjected counts the points Project scores (the namespace "ikpca" of every
// counter of the module).
var pointsProjected = beam.NewCounter("ikpca", "points_projected")

// projectFn projects points in blocks with the model of its side input.
//
// Decoding a model validates it, and a kpca checkpoint's validation is O(n) in its
// points and more in its eigenvectors: done at every bundle it cost as much as the
// projection of a small bundle. A side input is only readable in StartBundle and
// ProcessElement, so the instance keeps the decoded model with a key of the bytes it
// came from, their length and a 64-bit hash (hash/maphash, seeded per instance), and
// at each bundle's first point reads the side input and hashes it — one pass over the
// bytes, far cheaper than the decoding — to decide whether to decode again. Within a
// pipeline the side input is one model in the global window, so the key changes only
// if the instance is given other bytes; two different byte strings of the same length
// share a key with probability 2⁻⁶⁴.
type projectFn struct {
	K, Block int

	m       ikpca.Model // the decoded model, nil before the first bundle's first point
	k       int
	side    sideKey // the bytes m was decoded from
	checked bool    // the side input was read in this bundle
	block   []Point
	X, Y    mat.Dense

	decodes int // models decoded, for the tests
}

// StartBundle empties the block and marks the side input unread in this bundle: it is
// read at the bundle's first point. (Beam requires the side input and the emitters
// here.)
func (fn *projectFn) StartBundle(_ context.Context, _ func(*[]byte) bool, _ func(Scores), _ func(DeadLetter)) {
	fn.checked, fn.block = false, fn.block[:0]
}

// ProcessElement adds a point to the block, and projects the block when it is full.
func (fn *projectFn) ProcessElement(ctx context.Context, p Point, model func(*[]byte) bool, emit func(Scores), dead func(DeadLetter)) error {
	if !fn.checked {
		if err := fn.decode(model); err != nil {
			return err
		}
		fn.checked = true
	}
	if err := checkPoint(p.X, fn.m.Dim()); err != nil {
		dead(pointLetter(p, err.Error()))
		return nil
	}
	fn.block = append(fn.block, p)
	if len(fn.block) == fn.Block {
		fn.flush(ctx, emit, dead)
	}
	return nil
}

// FinishBundle projects the last block.
func (fn *projectFn) FinishBundle(ctx context.Context, _ func(*[]byte) bool, emit func(Scores), dead func(DeadLetter)) {
	if fn.checked {
		fn.flush(ctx, emit, dead)
	}
}

// decode reads the model from the side input and, unless they are the bytes of the
// model it holds, decodes them and fixes the number of components.
func (fn *projectFn) decode(model func(*[]byte) bool) error {
	var b, extra []byte
	if !model(&b) {
		return fmt.Errorf("%w: no model in the side input", ErrArgument)
	}
	if model(&extra) {
		return fmt.Errorf("%w: more than one model in the side input", ErrArgument)
	}
	key := fn.side.of(b)
	if fn.side.holds(key) {
		return nil
	}
	fn.m = nil // until the new bytes decode
	fn.side.set(key, false)
	fn.decodes++
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
	fn.side.set(key, true)
	return nil
}

// flush projects the block, point by point if the block fails, and counts the points
// scored.
func (fn *projectFn) flush(ctx context.Context, emit func(Scores), dead func(DeadLetter)) {
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
		pointsProjected.Inc(ctx, int64(n))
	} else {
		for _, p := range fn.block {
			var y mat.Dense
			if err := fn.m.Transform(&y, mat.NewDense(1, d, p.X), fn.k); err != nil {
				dead(pointLetter(p, err.Error()))
				continue
			}
			emit(Scores{Source: p.Source, Offset: p.Offset, Line: p.Line, Y: y.RawRowView(0)})
			pointsProjected.Inc(ctx, 1)
		}
	}
	fn.X.Reset()
	fn.block = fn.block[:0]
}
