package ikpcabeam

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	beam.RegisterCoder(reflect.TypeFor[*accumulator](), encodeAccumulator, decodeAccumulator)
	register.Combiner3[*accumulator, Point, []byte](&fitFn{})
	register.Combiner3[*accumulator, []byte, []byte](&mergeFn{})
	register.DoFn3x0[Point, func(Point), func(DeadLetter)](&checkFn{})
	register.DoFn1x2[Point, int, Point](&shardFn{})
	register.Emitter2[int, Point]()
}

// FitOptions configure Fit.
type FitOptions struct {
	// Shards, if above 1, splits the points into that many parts by a hash of each
	// point's position and coordinates, fits a model of each part and merges the
	// models: a two-level tree of merges, and merges that happen on any runner. With 0
	// or 1 the points go to one CombineFn, which runners split across workers as they
	// see fit (combiner lifting).
	Shards int
}

// Fit fits the model proto over a PCollection<Point> and returns a PCollection<[]byte>
// holding one element, the fitted model's encoding: proto (typically empty) with the
// points added, proto itself if there are none. It returns a PCollection<DeadLetter> of the points the model cannot take
// (a wrong dimension, a NaN or infinite coordinate), which are not added. The model's
// results depend on the order of the adds and merges, which the runner chooses, as far
// as the model's own guarantee allows: to rounding for sums, within the certified bound
// for sketches. A point that passes these checks and that the model's Add still
// refuses fails the pipeline: a CombineFn has no output for it. A nil proto, or one
// that does not encode, is an ErrArgument.
func Fit(s beam.Scope, points beam.PCollection, proto Summary, opts FitOptions) (model, dead beam.PCollection, err error) {
	if isNil(proto) {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: nil model", ErrArgument)
	}
	if opts.Shards < 0 {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: %d shards", ErrArgument, opts.Shards)
	}
	b, err := proto.MarshalBinary()
	if err == nil {
		_, err = DecodeSummary(b) // the workers will: fail here rather than there
	}
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: the model does not encode: %w", ErrArgument, err)
	}
	s = s.Scope("ikpcabeam.Fit")
	good, dead := beam.ParDo2(s, &checkFn{Dim: proto.Dim()}, points)
	var fitted beam.PCollection
	if opts.Shards <= 1 {
		fitted = beam.Combine(s, &fitFn{Prototype: b}, good)
	} else {
		keyed := beam.ParDo(s, &shardFn{Shards: opts.Shards}, good)
		fitted = beam.DropKey(s, beam.CombinePerKey(s, &fitFn{Prototype: b}, keyed))
	}
	// The Go SDK's global Combine of no elements gives none: merging in the prototype
	// makes the fit of no points the prototype, as in one process.
	return beam.Combine(s, &mergeFn{}, beam.Flatten(s, fitted, beam.Create(s, b))), dead, nil
}

// isNil reports a nil interface or a nil pointer in one.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// checkFn sends the points a model of dimension Dim cannot take to the dead letters.
type checkFn struct{ Dim int }

// ProcessElement checks one point.
func (fn *checkFn) ProcessElement(p Point, emit func(Point), dead func(DeadLetter)) {
	if err := checkPoint(p.X, fn.Dim); err != nil {
		dead(pointLetter(p, err.Error()))
		return
	}
	emit(p)
}

// shardFn keys each point by its shard.
type shardFn struct{ Shards int }

// ProcessElement keys one point by the FNV-1a hash of its position and coordinates.
func (fn *shardFn) ProcessElement(p Point) (int, Point) {
	return int(pointHash(p, 0) % uint64(fn.Shards)), p
}

// pointHash is the FNV-1a hash of a seed and a point's position and coordinates: the
// same on every worker and run.
func pointHash(p Point, seed uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	put(seed)
	h.Write([]byte(p.Source))
	put(uint64(p.Offset))
	put(uint64(p.Line))
	for _, v := range p.X {
		put(math.Float64bits(v))
	}
	return h.Sum64()
}

// accumulator holds the model a CombineFn builds; nil until it has one (mergeFn).
type accumulator struct{ s Summary }

// encodeAccumulator is the accumulator's coder: the model's own encoding, empty for
// none.
func encodeAccumulator(a *accumulator) ([]byte, error) {
	if a == nil || a.s == nil {
		return []byte{}, nil
	}
	return a.s.MarshalBinary()
}

// decodeAccumulator decodes what encodeAccumulator wrote.
func decodeAccumulator(b []byte) (*accumulator, error) {
	if len(b) == 0 {
		return &accumulator{}, nil
	}
	s, err := DecodeSummary(b)
	if err != nil {
		return nil, err
	}
	return &accumulator{s: s}, nil
}

// merge merges b into a, either of which may be empty.
func merge(a, b *accumulator) (*accumulator, error) {
	switch {
	case b.s == nil:
		return a, nil
	case a.s == nil:
		return b, nil
	}
	return a, a.s.Merge(b.s)
}

// fitFn is the CombineFn that adds points to a model: its accumulator starts as the
// model Prototype encodes.
type fitFn struct{ Prototype []byte }

// CreateAccumulator decodes the prototype.
func (fn *fitFn) CreateAccumulator() (*accumulator, error) { return decodeAccumulator(fn.Prototype) }

// AddInput adds a point.
func (fn *fitFn) AddInput(a *accumulator, p Point) (*accumulator, error) { return a, a.s.Add(p.X) }

// MergeAccumulators merges two models.
func (fn *fitFn) MergeAccumulators(a, b *accumulator) (*accumulator, error) { return merge(a, b) }

// ExtractOutput encodes the model.
func (fn *fitFn) ExtractOutput(a *accumulator) ([]byte, error) { return encodeAccumulator(a) }

// mergeFn is the CombineFn that merges encoded models; its accumulator starts empty.
type mergeFn struct{}

// CreateAccumulator returns the empty accumulator.
func (fn *mergeFn) CreateAccumulator() *accumulator { return &accumulator{} }

// AddInput merges an encoded model.
func (fn *mergeFn) AddInput(a *accumulator, b []byte) (*accumulator, error) {
	m, err := decodeAccumulator(b)
	if err != nil {
		return nil, err
	}
	return merge(a, m)
}

// MergeAccumulators merges two models.
func (fn *mergeFn) MergeAccumulators(a, b *accumulator) (*accumulator, error) { return merge(a, b) }

// ExtractOutput encodes the model; with none (no input) it is an ErrEmpty.
func (fn *mergeFn) ExtractOutput(a *accumulator) ([]byte, error) {
	if a.s == nil {
		return nil, fmt.Errorf("%w: no model to merge", ErrEmpty)
	}
	return a.s.MarshalBinary()
}
