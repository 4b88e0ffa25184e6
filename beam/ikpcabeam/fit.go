package ikpcabeam

import (
	"bytes"
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
	register.DoFn3x1[[]byte, func([]byte), func(DeadLetter), error](&splitFn{})
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
	// Block is the number of points a fit gathers and adds to its model at once, where
	// the model adds blocks (its AddBatch: the Nyström KPCA model and SKPCA): at dgemm
	// speed, with a buffer of Block points per accumulator. Zero means 256; 1 adds the
	// points one at a time (Add).
	Block int
}

// Fit fits the model proto over a PCollection<Point> and returns a PCollection<[]byte>
// holding one element, the fitted model's encoding: proto (typically empty) with the
// points added, proto itself if there are none. A model that adds blocks of points
// (AddBatch) gets them in blocks of opts.Block. It returns a PCollection<DeadLetter> of
// the points that are not added, with their file, offset and line: those of a wrong
// dimension or with a NaN or infinite coordinate, and those the model refuses, with
// its reason (a kernel value that is not finite, features whose sums would overflow).
// AddBatch is all or nothing, so a block the model refuses is added point by point and
// only the points at fault are lost. The CombineFn keeps the letters of the points it
// refuses in its accumulator, after the model in its encoding, until a step after it
// sends them out: their memory grows with their number, not with the points'. The
// model's results depend on the order of the adds and merges, which the runner
// chooses, as far as the model's own guarantee allows: to rounding for sums, within
// the certified bound for sketches. A nil proto, or one that does not encode, is an
// ErrArgument.
func Fit(s beam.Scope, points beam.PCollection, proto Summary, opts FitOptions) (model, dead beam.PCollection, err error) {
	if isNil(proto) {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: nil model", ErrArgument)
	}
	if opts.Shards < 0 || opts.Block < 0 {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: %d shards, block of %d", ErrArgument, opts.Shards, opts.Block)
	}
	if opts.Block == 0 {
		opts.Block = defaultBlock
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
		fitted = beam.Combine(s, &fitFn{Prototype: b, Block: opts.Block}, good)
	} else {
		keyed := beam.ParDo(s, &shardFn{Shards: opts.Shards}, good)
		fitted = beam.DropKey(s, beam.CombinePerKey(s, &fitFn{Prototype: b, Block: opts.Block}, keyed))
	}
	// The fits' outputs are the accumulators' encodings: the model, then the letters of
	// the points it refused.
	models, refused := beam.ParDo2(s, &splitFn{}, fitted)
	// The Go SDK's global Combine of no elements gives none: merging in the prototype
	// makes the fit of no points the prototype, as in one process.
	return beam.Combine(s, &mergeFn{}, beam.Flatten(s, models, beam.Create(s, b))), beam.Flatten(s, dead, refused), nil
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

// accumulator holds the model a CombineFn builds, nil until it has one (mergeFn), the
// points that wait to be added to it in a block (fitFn, for a model that adds blocks)
// and the dead letters of the points it refused: the accumulator stands for the model
// with those points added, and their letters.
type accumulator struct {
	s       Summary
	pending pending
	dead    []DeadLetter
}

// refuse records the dead letter of a point the model refused.
func (a *accumulator) refuse(l DeadLetter) { a.dead = append(a.dead, l) }

// flush adds the pending points to the model, point by point if it refuses their
// block, the refused ones to the dead letters.
func (a *accumulator) flush() {
	if a.pending.rows > 0 {
		a.pending.flush(a.s, a.refuse)
	}
}

// refusedMagic starts the encoding of an accumulator that holds dead letters; its
// model's own encoding starts with the model's kind (summary.go), never with these
// bytes.
const refusedMagic = "IKPCABDL"

// encodeAccumulator is the accumulator's coder: empty for none; the model's own
// encoding, the pending points added first, when no point was refused; otherwise
// refusedMagic, the length of the model's encoding (8 bytes, little-endian), the
// encoding, the number of dead letters and each letter's Source, Offset, Line, Text
// and Reason (strings as their length and bytes, integers as 8 bytes).
func encodeAccumulator(a *accumulator) ([]byte, error) {
	if a == nil || a.s == nil {
		return []byte{}, nil
	}
	a.flush()
	b, err := a.s.MarshalBinary()
	if err != nil || len(a.dead) == 0 {
		return b, err
	}
	out := make([]byte, 0, len(refusedMagic)+16+len(b)+64*len(a.dead))
	out = append(out, refusedMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(b)))
	out = append(out, b...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(a.dead)))
	str := func(s string) {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(s)))
		out = append(out, s...)
	}
	for _, l := range a.dead {
		str(l.Source)
		out = binary.LittleEndian.AppendUint64(out, uint64(l.Offset))
		out = binary.LittleEndian.AppendUint64(out, uint64(l.Line))
		str(l.Text)
		str(l.Reason)
	}
	return out, nil
}

// splitAccumulator returns the model's encoding and the dead letters that
// encodeAccumulator wrote; bytes that end early or run on are an ErrModel.
func splitAccumulator(b []byte) (model []byte, dead []DeadLetter, err error) {
	if !bytes.HasPrefix(b, []byte(refusedMagic)) {
		return b, nil, nil
	}
	r := b[len(refusedMagic):]
	short := fmt.Errorf("%w: a fit's accumulator ends early", ErrModel)
	u64 := func() (uint64, bool) {
		if len(r) < 8 {
			return 0, false
		}
		v := binary.LittleEndian.Uint64(r)
		r = r[8:]
		return v, true
	}
	chunk := func() ([]byte, bool) {
		n, ok := u64()
		if !ok || n > uint64(len(r)) {
			return nil, false
		}
		c := r[:n]
		r = r[n:]
		return c, true
	}
	model, ok := chunk()
	if !ok {
		return nil, nil, short
	}
	n, ok := u64()
	if !ok || n > uint64(len(r))/40 { // a letter takes at least 40 bytes
		return nil, nil, short
	}
	dead = make([]DeadLetter, n)
	for i := range dead {
		src, ok1 := chunk()
		off, ok2 := u64()
		line, ok3 := u64()
		text, ok4 := chunk()
		reason, ok5 := chunk()
		if !(ok1 && ok2 && ok3 && ok4 && ok5) {
			return nil, nil, short
		}
		dead[i] = DeadLetter{Source: string(src), Offset: int64(off), Line: int64(line), Text: string(text), Reason: string(reason)}
	}
	if len(r) != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes after a fit's accumulator", ErrModel, len(r))
	}
	return model, dead, nil
}

// decodeAccumulator decodes what encodeAccumulator wrote.
func decodeAccumulator(b []byte) (*accumulator, error) {
	if len(b) == 0 {
		return &accumulator{}, nil
	}
	model, dead, err := splitAccumulator(b)
	if err != nil {
		return nil, err
	}
	s, err := DecodeSummary(model)
	if err != nil {
		return nil, err
	}
	return &accumulator{s: s, dead: dead}, nil
}

// merge merges b into a, either of which may be empty; b's pending points are added to
// b's model first, a's stay pending; b's dead letters join a's.
func merge(a, b *accumulator) (*accumulator, error) {
	switch {
	case b.s == nil:
		return a, nil
	case a.s == nil:
		return b, nil
	}
	b.flush()
	if err := a.s.Merge(b.s); err != nil {
		return nil, err
	}
	a.dead = append(a.dead, b.dead...)
	return a, nil
}

// fitFn is the CombineFn that adds points to a model: its accumulator starts as the
// model Prototype encodes, and gathers the points in blocks of Block (≥ 1) for a model
// that adds blocks.
type fitFn struct {
	Prototype []byte
	Block     int
}

// CreateAccumulator decodes the prototype.
func (fn *fitFn) CreateAccumulator() (*accumulator, error) { return decodeAccumulator(fn.Prototype) }

// AddInput adds a point: to the pending block, added when it holds Block points, if
// the model adds blocks; to the model at once otherwise. A point the model refuses is a
// dead letter of the accumulator.
func (fn *fitFn) AddInput(a *accumulator, p Point) (*accumulator, error) {
	if _, ok := a.s.(batchAdder); !ok || fn.Block <= 1 {
		if err := a.s.Add(p.X); err != nil {
			a.refuse(pointLetter(p, err.Error()))
		}
		return a, nil
	}
	a.pending.add(p, fn.Block)
	if a.pending.rows == fn.Block {
		a.flush()
	}
	return a, nil
}

// MergeAccumulators merges two models.
func (fn *fitFn) MergeAccumulators(a, b *accumulator) (*accumulator, error) { return merge(a, b) }

// ExtractOutput encodes the accumulator: the model, the pending points added, and the
// dead letters (splitFn separates them).
func (fn *fitFn) ExtractOutput(a *accumulator) ([]byte, error) { return encodeAccumulator(a) }

// splitFn separates a fit's output, an accumulator's encoding, into the model's
// encoding and the dead letters of the points the model refused.
type splitFn struct{}

// ProcessElement splits one accumulator.
func (fn *splitFn) ProcessElement(b []byte, emit func([]byte), dead func(DeadLetter)) error {
	model, letters, err := splitAccumulator(b)
	if err != nil {
		return err
	}
	if len(model) > 0 {
		emit(model)
	}
	for _, l := range letters {
		dead(l)
	}
	return nil
}

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

// ExtractOutput encodes the model; with none (no input) it is an ErrEmpty. Its inputs
// are models without dead letters (splitFn took them), so the encoding is the model's
// own.
func (fn *mergeFn) ExtractOutput(a *accumulator) ([]byte, error) {
	if a.s == nil {
		return nil, fmt.Errorf("%w: no model to merge", ErrEmpty)
	}
	return encodeAccumulator(a)
}
