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
	register.DoFn6x1[context.Context, Point, func(*string) bool, func(*[]byte) bool, func(Scores), func(DeadLetter), error](&projectFn{})
	register.Emitter1[Scores]()
	register.Iter1[[]byte]()
	register.Iter1[string]()
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
// The model reaches the workers as a side input and so does its digest (SHA-256 and
// length, computed once in the pipeline): each bundle reads the digest, and a worker
// process fetches the model's bytes once per digest and keeps them for all its DoFn
// instances (the counter "model_fetches" counts the fetches), each of which decodes them
// once and keeps the decoded model while the digest stays the same. It projects a
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
	digest := beam.ParDo(s, modelDigest, model)
	scores, dead = beam.ParDo2(s, &projectFn{K: opts.K, Block: opts.Block}, points, beam.SideInput{Input: digest}, beam.SideInput{Input: model})
	return scores, dead, nil
}

// pointsProjected counts the points Project scores (the namespace "ikpca" of every
// counter of the module).
var pointsProjected = beam.NewCounter("ikpca", "points_projected")

// projectFn projects points in blocks with the model of its side input.
//
// Decoding a model validates it, and a kpca checkpoint's validation is O(n) in its
// points and more in its eigenvectors: done at every bundle it cost as much as the
// projection of a small bundle, and reading the model's bytes at every bundle moved up
// to 64 MB a bundle. A side input is only readable in StartBundle and ProcessElement,
// so at each bundle's first point the instance reads the digest side input, a few
// bytes, and only where it differs from the digest of the model it holds gets the
// bytes (fetchModel: once per process and digest) and decodes them.
type projectFn struct {
	K, Block int

	m       ikpca.Model // the decoded model, nil before the first bundle's first point
	k       int
	digest  string // the digest of the bytes m was decoded from
	checked bool   // the side input was read in this bundle
	block   []Point
	X, Y    mat.Dense

	decodes int // models decoded, for the tests
}

// StartBundle empties the block and marks the side input unread in this bundle: it is
// read at the bundle's first point. (Beam requires the side input and the emitters
// here.)
func (fn *projectFn) StartBundle(_ context.Context, _ func(*string) bool, _ func(*[]byte) bool, _ func(Scores), _ func(DeadLetter)) {
	fn.checked, fn.block = false, fn.block[:0]
}

// ProcessElement adds a point to the block, and projects the block when it is full.
func (fn *projectFn) ProcessElement(ctx context.Context, p Point, digest func(*string) bool, model func(*[]byte) bool, emit func(Scores), dead func(DeadLetter)) error {
	if !fn.checked {
		if err := fn.decode(ctx, digest, model); err != nil {
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
func (fn *projectFn) FinishBundle(ctx context.Context, _ func(*string) bool, _ func(*[]byte) bool, emit func(Scores), dead func(DeadLetter)) {
	if fn.checked {
		fn.flush(ctx, emit, dead)
	}
}

// decode reads the model's digest and, unless it is that of the model it holds, gets
// the model's bytes (fetchModel), decodes them and fixes the number of components.
func (fn *projectFn) decode(ctx context.Context, digest func(*string) bool, model func(*[]byte) bool) error {
	var d, extra string
	if !digest(&d) {
		return fmt.Errorf("%w: no model in the side input", ErrArgument)
	}
	if digest(&extra) {
		return fmt.Errorf("%w: more than one model in the side input", ErrArgument)
	}
	if fn.m != nil && d == fn.digest {
		return nil
	}
	fn.m, fn.digest = nil, "" // until the new bytes decode
	b, err := fetchModel(ctx, d, model)
	if err != nil {
		return err
	}
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
	fn.m, fn.k, fn.digest = m, k, d
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
