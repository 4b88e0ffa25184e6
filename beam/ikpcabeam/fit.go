package ikpcabeam

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	beam.RegisterCoder(reflect.TypeFor[*accumulator](), encodeAccumulator, decodeAccumulator)
	perBundle(&mergeFn{})
	register.DoFn3x0[Point, func(Point), func(DeadLetter)](&checkFn{})
	register.DoFn4x1[Point, func(*[]byte) bool, func(int, []byte), func(DeadLetter), error](&foldFn{})
	register.Emitter1[[]byte]()
	register.Emitter2[int, []byte]()
}

// The counters of a fit, in the namespace "ikpca" the package's counters share.
var (
	// pointsFolded counts the points added to a partial model (foldFn): the points
	// that reach the model and that it takes.
	pointsFolded = beam.NewCounter("ikpca", "points_folded")
	// modelsMerged counts the partial models the folds send to the merge, one per
	// bundle of points: the elements that reach the fit's Combine, but for the
	// prototype. (Counted where they are sent, in foldFn: in mergeFn's AddInput, which a
	// runner lifts into the stages before the Combine, prism reports only one stage's
	// count.)
	modelsMerged = beam.NewCounter("ikpca", "models_merged")
)

// FitOptions configure Fit.
type FitOptions struct {
	// Block is the number of points a fit gathers and adds to its model at once, where
	// the model adds blocks (its AddBatch: the Nyström KPCA model and SKPCA): at dgemm
	// speed, with a buffer of Block points per bundle. Zero means 256; 1 adds the
	// points one at a time (Add).
	Block int
	// MergeGroups is the number of groups the partial models, one per bundle, are
	// merged in before the last merge (fold): the merges' fan-in, about √bundles at
	// best. Zero means 32 (right for up to about a thousand bundles); 1 merges all
	// the partial models on one key.
	MergeGroups int
}

// defaultMergeGroups is FitOptions.MergeGroups' default.
const defaultMergeGroups = 32

// Fit fits the model proto over a PCollection<Point> and returns a PCollection<[]byte>
// holding one element, the fitted model's encoding: proto (typically empty) with the
// points added. A fit that no valid point reaches (no input, or only records that are
// dead letters) fails the pipeline with ErrNoPoints rather than write a model of
// nothing. Each bundle of points is folded into an empty model of proto's options
// (proto Reset) in a plain ParDo, and the partial models, one per bundle, are merged
// with proto by one Combine: no step groups the points themselves, so the fit spreads
// over the workers on every runner, whether or not it lifts combiners (docs/design.md,
// "Beyond one machine"). proto's encoding is in the pipeline's graph once, as the side input
// of the folds: one above 4 MiB (a Nyström model of many landmarks; Dataflow refuses
// graphs above 10 MB) is an ErrArgument, and such a model is built in the pipeline
// (FitNystrom, FitNystromOn). The partial models, one per bundle, merge in two levels
// (opts.MergeGroups). A model that adds blocks of points (AddBatch) gets them in blocks of
// opts.Block. It returns a PCollection<DeadLetter> of the points that are not added,
// with their file, offset and line: those of a wrong dimension or with a NaN or
// infinite coordinate, and those the model refuses, with its reason (a kernel value
// that is not finite, features whose sums would overflow). AddBatch is all or nothing,
// so a block the model refuses is added point by point and only the points at fault
// are lost. The model's results depend on the order of the adds and merges, which the
// runner chooses, as far as the model's own guarantee allows: to rounding for sums,
// within the certified bound for sketches. The counters "points_folded" and
// "models_merged" (namespace "ikpca") count the points added and the models merged. A
// nil proto, or one that does not encode, is an ErrArgument.
func Fit(s beam.Scope, points beam.PCollection, proto Summary, opts FitOptions) (model, dead beam.PCollection, err error) {
	if isNil(proto) {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: nil model", ErrArgument)
	}
	if opts, err = checkFit(opts); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	if err := checkGlobal("Fit", points); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	b, err := proto.MarshalBinary()
	if err == nil {
		_, err = DecodeSummary(b) // the workers will: fail here rather than there
	}
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: the model does not encode: %w", ErrArgument, err)
	}
	if len(b) > maxGraphBytes {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: the model's %d bytes would be in the pipeline's graph, above its limit of %d: let the pipeline build it (FitSKPCA, FitNystrom with sampled landmarks, FitNystromOn)", ErrArgument, len(b), maxGraphBytes)
	}
	s = s.Scope("ikpcabeam.Fit")
	return fitOn(s, points, beam.Create(s, b), proto.Dim(), proto.Len(), opts)
}

// maxGraphBytes bounds what a fit puts in the pipeline's graph — a prototype, given
// landmarks —, which a launcher sends to the runner in one request: Dataflow refuses
// graphs above 10 MB. Above it, a fit is an ErrArgument at construction, and the model
// must be built in the pipeline (docs/design.md, "Beyond one machine").
const maxGraphBytes = 4 << 20

// fitOn checks the points for a model of dimension dim and folds the good ones into
// copies of the prototype that proto (a PCollection<[]byte> of one encoding, holding
// base points) holds, which it merges (fold).
func fitOn(s beam.Scope, points, proto beam.PCollection, dim, base int, opts FitOptions) (model, dead beam.PCollection, err error) {
	good, dead := beam.ParDo2(s, &checkFn{Dim: dim}, points)
	model, refused := fold(s, proto, good, base, opts)
	return model, beam.Flatten(s, dead, refused), nil
}

// checkFit checks the options and sets the default block.
func checkFit(opts FitOptions) (FitOptions, error) {
	if opts.Block < 0 {
		return opts, fmt.Errorf("%w: block of %d", ErrArgument, opts.Block)
	}
	if opts.Block == 0 {
		opts.Block = defaultBlock
	}
	if opts.MergeGroups < 0 {
		return opts, fmt.Errorf("%w: %d merge groups", ErrArgument, opts.MergeGroups)
	}
	if opts.MergeGroups == 0 {
		opts.MergeGroups = defaultMergeGroups
	}
	return opts, nil
}

// fold adds the checked points good to empty models of the prototype that proto, a
// PCollection<[]byte> of one encoding, holds — one per bundle, proto a side input
// decoded once per worker — and merges them and proto itself into the model it returns, with the dead
// letters of the points the model refused. base is the number of points proto holds.
// The partial models merge in two levels (docs/design.md, "Beyond one machine"): each
// is keyed by a hash of its bundle's first point into one of opts.MergeGroups groups,
// merged per key, and the merged groups are merged with proto by one Combine. A runner
// that does not lift combiners gathers each level's inputs on a key: bundles/groups
// partial models, then groups, rather than every bundle's on one. A Nyström fold
// emits its partial model as the sums of its points (partial.go): about half the
// bytes (32 MB at r = r' = 2000, the model 64 MB), and a merge decodes them in O(r'²)
// rather than verify a map in O(r²·(d + r')). proto is merged in last because the Go SDK's
// global Combine of no elements gives no output, which would end the pipeline without
// a model and without an error; with it, the Combine always has an output, and it
// fails with ErrNoPoints where the merged model holds no more than base points.
func fold(s beam.Scope, proto, good beam.PCollection, base int, opts FitOptions) (model, refused beam.PCollection) {
	parts, refused := beam.ParDo2(s, &foldFn{Block: opts.Block, Groups: opts.MergeGroups}, good, beam.SideInput{Input: proto})
	groups := beam.DropKey(s, beam.CombinePerKey(s, &mergeFn{Base: -1}, parts))
	return beam.Combine(s, &mergeFn{Base: base}, beam.Flatten(s, groups, proto)), refused
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

// pointHash is the FNV-1a hash of a seed and what identifies a point's record within
// the decompressed text of its file: its byte offset there and its coordinates. Not
// the file's name or place (a local copy, the bucket, a renamed or gzipped file hold
// the same records and must give the same sample, docs/design.md, "Beyond one
// machine"), nor its line number, which a reader knows in the first block of a file
// only (ReadLines): a runner that splits a file otherwise — Dataflow's rebalancing, a
// split at another size — must not change the hash, nor with it a sample of the
// points. Two files with the same record at the same offset give it the same hash: the
// sample may take both, the same point twice, as it would take a point that occurs
// twice in one file. The same on every worker and run.
func pointHash(p Point, seed uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	put(seed)
	put(uint64(p.Offset))
	for _, v := range p.X {
		put(math.Float64bits(v))
	}
	return h.Sum64()
}

// foldFn adds a bundle's points to an empty model of the prototype of its side input
// (a PCollection<[]byte> of one encoding: the options, the kernel, the landmarks or
// features) and emits that partial model's encoding — or, for a model that has one,
// its partial, the sums of its points (partialSummary) — when the bundle finishes: a
// partial model per bundle, in a plain ParDo, which fold's Combine merges with the
// prototype itself. A partial model holds the bundle's points only — never the
// prototype's, which the Combine merges in once. A model that adds blocks (AddBatch)
// gets the points in blocks of Block; a block it refuses is added point by point, so
// that only the points at fault become dead letters, emitted as they are found.
//
// The prototype is decoded once per instance, not once per bundle (sideKey): decoding
// validates the model, O(r³) for a Nyström map, 60 ms at r = 1000 against 177 ms to
// add a block of 256 points. Each bundle then starts from the decoded model Reset to no
// points, which allocates nothing. Its memory is one model and one block.
type foldFn struct {
	Block  int
	Groups int // the merge groups its partial models are keyed into (fold)

	m       Summary // the prototype decoded, then the bundle's partial model
	part    partial // the storage of the partial m's points travel as, if any
	side    sideKey // the bytes m was decoded from
	started bool    // the bundle has a point: m was reset for it
	key     int     // the bundle's merge group: its first point's
	pending pending

	decodes int // prototypes decoded, for the tests
}

// StartBundle empties the block. (Beam requires the side input and the emitters here.)
func (fn *foldFn) StartBundle(_ func(*[]byte) bool, _ func(int, []byte), _ func(DeadLetter)) {
	fn.started = false
	fn.pending.reset()
}

// ProcessElement adds one point, or adds it to the pending block; a point the model
// refuses (a kernel value that is not finite) is a dead letter. The bundle's first
// point reads the side input and resets the model (start).
func (fn *foldFn) ProcessElement(p Point, proto func(*[]byte) bool, _ func(int, []byte), dead func(DeadLetter)) error {
	if !fn.started {
		if err := fn.start(proto); err != nil {
			return err
		}
		fn.key = groupOf(p, fn.Groups)
	}
	if _, ok := fn.m.(batchAdder); !ok || fn.Block <= 1 {
		if err := fn.m.Add(p.X); err != nil {
			dead(pointLetter(p, err.Error()))
		}
		return nil
	}
	fn.pending.add(p, fn.Block)
	if fn.pending.rows == fn.Block {
		fn.pending.flush(fn.m, dead)
	}
	return nil
}

// start reads the prototype from the side input, decodes it unless it holds the model
// of those bytes already, and resets the model to no points for the bundle.
func (fn *foldFn) start(proto func(*[]byte) bool) error {
	var b []byte
	if !proto(&b) {
		return fmt.Errorf("%w: no prototype model in the side input", ErrArgument)
	}
	if err := prototypeError(b); err != nil {
		return err
	}
	if key := fn.side.of(b); !fn.side.holds(key) {
		fn.m = nil // until the new bytes decode
		fn.side.set(key, false)
		fn.decodes++
		m, err := DecodeSummary(b)
		if err != nil {
			return err
		}
		fn.m = m
		fn.side.set(key, true)
	}
	fn.m.Reset()
	fn.started = true
	return nil
}

// FinishBundle adds the last block (point by point if the model refuses it), emits
// the bundle's model and counts it (models_merged) and the points it took
// (points_folded). A bundle without points emits nothing.
func (fn *foldFn) FinishBundle(ctx context.Context, _ func(*[]byte) bool, emit func(int, []byte), dead func(DeadLetter)) error {
	if !fn.started {
		return nil
	}
	fn.started = false
	fn.pending.flush(fn.m, dead)
	b, err := fn.encode()
	if err != nil {
		return err
	}
	emit(fn.key, b)
	pointsFolded.Inc(ctx, int64(fn.m.Len()))
	modelsMerged.Inc(ctx, 1)
	return nil
}

// encode returns the encoding of the bundle's partial model: its partial (the sums of
// its points, in storage kept from bundle to bundle) where the model has one, the model
// otherwise.
func (fn *foldFn) encode() ([]byte, error) {
	ps, ok := fn.m.(partialSummary)
	if !ok {
		return fn.m.MarshalBinary()
	}
	p, err := ps.partialTo(fn.part)
	if err != nil {
		return nil, err
	}
	fn.part = p
	return p.MarshalBinary()
}

// groupOf is the merge group of a bundle whose first point is p, one of groups: a hash
// of the point's place and coordinates, so that bundles spread evenly over the groups
// and a rerun of the same bundles keys them alike.
func groupOf(p Point, groups int) int {
	if groups <= 1 {
		return 0
	}
	// FNV-1a, inline: nothing allocated in the fold.
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	word := func(v uint64) {
		for range 8 {
			h = (h ^ v&0xff) * prime
			v >>= 8
		}
	}
	for i := range len(p.Source) {
		h = (h ^ uint64(p.Source[i])) * prime
	}
	word(uint64(p.Offset))
	for _, v := range p.X {
		word(math.Float64bits(v))
	}
	return int(h % uint64(groups))
}

// A fit's prototype stage (prototypeFn, landmarksFn) that cannot build the prototype —
// no landmark, a median distance of zero, a kernel matrix without an eigenvalue above
// the tolerance — emits failedPrototype(err) in its place rather than fail: a runner
// may run the folds with the side input of a failed stage empty (prism did), and
// report their error ("no prototype") instead of the stage's. Every step that reads the
// prototype — the folds, and the merge, which sees it whether or not a point reached
// the fit — fails with err's text on it, so that err is the pipeline's error on any
// runner. (No model encoding starts with these bytes: every one starts with its
// kind's magic, summary.go.)
const prototypeFailed = "ikpcabeam: no prototype\x00"

// failedPrototype is the stand-in for a prototype that err kept from being built.
func failedPrototype(err error) []byte { return append([]byte(prototypeFailed), err.Error()...) }

// prototypeError is the error a fit's prototype b stands for: err's text for
// failedPrototype(err), nil for a model's encoding. A runner reports a failed
// pipeline's error as text, so the text (which names the sentinel, ErrNoPoints or
// ErrNoLandmarks) is what reaches the caller.
func prototypeError(b []byte) error {
	if msg, ok := bytes.CutPrefix(b, []byte(prototypeFailed)); ok {
		return markFailure(errors.New(string(msg)))
	}
	return nil
}

// accumulator holds what mergeFn builds: nothing, a model (s), or the partial of
// bundles' points (p, partial.go) before it meets the model of its prototype; never
// both.
type accumulator struct {
	s Summary
	p partial
}

// encodeAccumulator is the accumulator's coder: empty for nothing, the model's or the
// partial's own encoding otherwise.
func encodeAccumulator(a *accumulator) ([]byte, error) {
	switch {
	case a == nil || a.s == nil && a.p == nil:
		return []byte{}, nil
	case a.p != nil:
		return a.p.MarshalBinary()
	}
	return a.s.MarshalBinary()
}

// decodeAccumulator decodes what encodeAccumulator wrote, a model or a partial known
// by its kind's magic.
func decodeAccumulator(b []byte) (*accumulator, error) {
	if len(b) == 0 {
		return &accumulator{}, nil
	}
	if k, err := kindOf(b); err == nil && k.partial != nil {
		p, err := k.partial(b)
		if err != nil {
			return nil, err
		}
		return &accumulator{p: p}, nil
	}
	s, err := DecodeSummary(b)
	if err != nil {
		return nil, err
	}
	return &accumulator{s: s}, nil
}

// merge merges b into a, either of which may be empty: models by Merge, partials by
// merge, and a partial into the model of its prototype (partialSummary).
func merge(a, b *accumulator) (*accumulator, error) {
	var err error
	switch {
	case b.s == nil && b.p == nil:
		return a, nil
	case a.s == nil && a.p == nil:
		return b, nil
	case a.s != nil && b.s != nil:
		err = a.s.Merge(b.s)
	case a.p != nil && b.p != nil:
		err = a.p.merge(b.p)
	default:
		if a.s == nil {
			a, b = b, a
		}
		ps, ok := a.s.(partialSummary)
		if !ok {
			return nil, fmt.Errorf("%w: merging a partial %T into a %T", ErrArgument, b.p, a.s)
		}
		err = ps.addPartial(b.p)
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// mergeFn is the CombineFn that merges encoded models — the partial models of the
// folds and the prototype, which holds Base points; its accumulator starts empty. A
// negative Base is a first level of merges (fold), whose output is merged again and
// not checked.
type mergeFn struct{ Base int }

// CreateAccumulator returns the empty accumulator.
func (fn *mergeFn) CreateAccumulator() *accumulator { return &accumulator{} }

// AddInput merges an encoded model.
func (fn *mergeFn) AddInput(a *accumulator, b []byte) (*accumulator, error) {
	if err := prototypeError(b); err != nil {
		return nil, err
	}
	m, err := decodeAccumulator(b)
	if err != nil {
		return nil, err
	}
	return merge(a, m)
}

// MergeAccumulators merges two models.
func (fn *mergeFn) MergeAccumulators(a, b *accumulator) (*accumulator, error) { return merge(a, b) }

// ExtractOutput encodes the model, or a first level's partial; with nothing (no input)
// it is an ErrEmpty, at the last level without a model too, and with no point added to
// the prototype an ErrNoPoints.
func (fn *mergeFn) ExtractOutput(a *accumulator) ([]byte, error) {
	if a.s == nil && (a.p == nil || fn.Base >= 0) {
		return nil, fmt.Errorf("%w: no model to merge", ErrEmpty)
	}
	if fn.Base >= 0 && a.s.Len() <= fn.Base {
		return nil, markFailure(fmt.Errorf("%w: the model holds the prototype's %d points and no other", ErrNoPoints, fn.Base))
	}
	return encodeAccumulator(a)
}
