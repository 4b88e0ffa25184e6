package ikpcabeam

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/beam/sharded"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// The DoFns of Polish: each runs one step of sharded's program on a shard's state with
// the latest Global (a side input of one element, its gob encoding), or reduces the
// shards' parts into the next Global.
func init() {
	// The states, parts and blocks travel in sharded's binary encodings: the schema
	// coder, which the SDK would otherwise use, encodes a []float64 number by number
	// through reflection, several times slower for the N × Passes·Rank numbers of a
	// state (docs/design.md, "Polish and Certify over sharded points").
	beam.RegisterType(reflect.TypeFor[sharded.State]())
	beam.RegisterType(reflect.TypeFor[sharded.Part]())
	beam.RegisterType(reflect.TypeFor[sharded.TilePart]())
	beam.RegisterType(reflect.TypeFor[tileBlock]())
	beam.RegisterType(reflect.TypeFor[ritzRows]())
	beam.RegisterCoder(reflect.TypeFor[sharded.State](), sharded.State.MarshalBinary, decodeState)
	beam.RegisterCoder(reflect.TypeFor[sharded.Part](), sharded.Part.MarshalBinary, decodePart)
	beam.RegisterCoder(reflect.TypeFor[sharded.TilePart](), sharded.TilePart.MarshalBinary, decodeTilePart)
	beam.RegisterCoder(reflect.TypeFor[tileBlock](), encodeTileBlock, decodeTileBlock)
	perBundle(&startFn{}, &startFromFn{}, &stepFn{}, &reduceFn{}, &fanFn{}, &tileFn{}, &sumTilesFn{},
		&scoresFn{}, &certificateFn{}, &ritzRowsFn{}, &polishedModelFn{})
	register.DoFn3x0[Point, func(Point), func(DeadLetter)](&polishCheckFn{})
	register.Function1x2(keyState)
	register.Emitter1[ritzRows]()
	register.Iter1[ritzRows]()
	register.Emitter1[sharded.State]()
	register.Emitter1[sharded.Part]()
	register.Emitter2[int, tileBlock]()
	register.Emitter2[int, sharded.TilePart]()
	register.Iter1[sharded.Part]()
	register.Iter1[sharded.State]()
	register.Iter1[sharded.TilePart]()
	register.Iter1[tileBlock]()
}

// decodeState, decodePart and decodeTilePart are the coders' decoders. (Not one
// generic function: the SDK registers a function by its name, which is the same for
// every instance of a generic one.)
func decodeState(b []byte) (sharded.State, error) {
	var v sharded.State
	err := v.UnmarshalBinary(b)
	return v, err
}

func decodePart(b []byte) (sharded.Part, error) {
	var v sharded.Part
	err := v.UnmarshalBinary(b)
	return v, err
}

func decodeTilePart(b []byte) (sharded.TilePart, error) {
	var v sharded.TilePart
	err := v.UnmarshalBinary(b)
	return v, err
}

// encodeTileBlock and decodeTileBlock encode a block as a tile's part of its shard.
func encodeTileBlock(b tileBlock) ([]byte, error) {
	return sharded.TilePart{Tile: b.Shard, Y: b.B}.MarshalBinary()
}

func decodeTileBlock(b []byte) (tileBlock, error) {
	var p sharded.TilePart
	err := p.UnmarshalBinary(b)
	return tileBlock{Shard: p.Tile, B: p.Y}, err
}

// encodeGlobal and decodeGlobal are the Global's encoding between steps.
func encodeGlobal(g sharded.Global) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(g)
	return b.Bytes(), err
}

func decodeGlobal(b []byte) (sharded.Global, error) {
	var g sharded.Global
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&g); err != nil {
		return g, fmt.Errorf("ikpcabeam: Polish: the run's state does not decode: %w", err)
	}
	return g, nil
}

// sideGlobal reads the Global of a side input of one element.
func sideGlobal(side func(*[]byte) bool) (sharded.Global, error) {
	var b []byte
	if !side(&b) {
		return sharded.Global{}, fmt.Errorf("ikpcabeam: Polish: no state from the step before")
	}
	return decodeGlobal(b)
}

// collect reads an iterator's elements.
func collect[T any](next func(*T) bool) []T {
	var out []T
	var v T
	for next(&v) {
		out = append(out, v)
		v = *new(T)
	}
	return out
}

// startFn reads a shard's points and starts its state (sharded.NewState).
type startFn struct {
	Dir     string
	Kernel  kernel.Spec
	Dim     int
	Options sharded.Options
}

// ProcessElement starts shard s.
func (fn *startFn) ProcessElement(ctx context.Context, s int, names func(*string) bool, emit func(sharded.State), part func(sharded.Part)) error {
	return fn.start(ctx, s, names, nil, emit, part)
}

// start starts shard s from the model m's scores of its points, or at random if m is
// nil.
func (fn *startFn) start(ctx context.Context, s int, names func(*string) bool, m ikpca.Model, emit func(sharded.State), part func(sharded.Part)) error {
	k, err := kernel.New(fn.Kernel)
	if err != nil {
		return err
	}
	sp, err := readShard(ctx, fn.Dir, collect(names), s, fn.Dim)
	if err != nil {
		return err
	}
	var st sharded.State
	var p sharded.Part
	if m == nil {
		st, p, err = sharded.NewState(s, k, sp.X, sp.ids, fn.Options)
	} else {
		var start sharded.Matrix
		if start, err = modelStart(m, sp.X, fn.Options); err != nil {
			return fmt.Errorf("ikpcabeam: Polish: the start of shard %d: %w", s, err)
		}
		st, p, err = sharded.NewStateFrom(s, k, sp.X, sp.ids, start, fn.Options)
	}
	if err != nil {
		return err
	}
	emit(st)
	part(p)
	return nil
}

// modelStart returns the model's scores of the points X on its top min(Rank, its
// components) components: its eigenvectors lifted to the points (an empty shard has
// no rows).
func modelStart(m ikpca.Model, X sharded.Matrix, o sharded.Options) (sharded.Matrix, error) {
	c := min(len(m.Values(nil)), o.Rank)
	if c < o.Components {
		return sharded.Matrix{}, fmt.Errorf("%w: a start model with %d components for %d", ErrArgument, c, o.Components)
	}
	if X.Rows == 0 {
		return sharded.Matrix{Rows: 0, Cols: c, Data: []float64{}}, nil
	}
	var Y mat.Dense
	if err := m.Transform(&Y, mat.NewDense(X.Rows, X.Cols, X.Data), c); err != nil {
		return sharded.Matrix{}, err
	}
	return sharded.Matrix{Rows: X.Rows, Cols: c, Data: Y.RawMatrix().Data}, nil
}

// startFromFn starts a shard's state from a model's scores of its points (PolishFrom),
// the model fetched and decoded once per process and digest (fetchModel).
type startFromFn struct {
	Start startFn // the shard's points and the run's options

	m      ikpca.Model
	digest string
}

// ProcessElement starts shard s.
func (fn *startFromFn) ProcessElement(ctx context.Context, s int, names func(*string) bool, digest func(*string) bool, model func(*[]byte) bool, emit func(sharded.State), part func(sharded.Part)) error {
	var d string
	if !digest(&d) {
		return fmt.Errorf("%w: no start model in the side input", ErrArgument)
	}
	if fn.m == nil || d != fn.digest {
		b, err := fetchModel(ctx, d, model)
		if err != nil {
			return err
		}
		if fn.m, err = DecodeModel(b); err != nil {
			return fmt.Errorf("ikpcabeam: Polish: the start model: %w", err)
		}
		fn.digest = d
	}
	if fn.m.Dim() != fn.Start.Dim {
		return fmt.Errorf("%w: a start model of dimension %d for points of dimension %d", ErrDimension, fn.m.Dim(), fn.Start.Dim)
	}
	return fn.Start.start(ctx, s, names, fn.m, emit, part)
}

// polishCheckFn sends to the dead letters the points a Polish cannot take: of another
// dimension than Dim, with a coordinate or k(x, x) that is not finite (a polynomial or
// linear kernel of huge coordinates). A point whose k(x, x) is finite has every kernel
// value with another such point finite: |k(x, y)| ≤ √(k(x, x)·k(y, y)) for a positive
// semi-definite kernel, the only kind a Polish takes.
type polishCheckFn struct {
	Dim    int
	Kernel kernel.Spec

	k kernel.Kernel
}

// ProcessElement checks one point.
func (fn *polishCheckFn) ProcessElement(p Point, emit func(Point), dead func(DeadLetter)) {
	if err := checkPoint(p.X, fn.Dim); err != nil {
		dead(pointLetter(p, err.Error()))
		return
	}
	if fn.k == nil {
		k, err := kernel.New(fn.Kernel)
		if err != nil {
			dead(pointLetter(p, err.Error()))
			return
		}
		fn.k = k
	}
	if v := fn.k.Eval(p.X, p.X); math.IsNaN(v) || math.IsInf(v, 0) {
		dead(pointLetter(p, fmt.Sprintf("%v: k(x, x) is %g", ErrNonFinite, v)))
		return
	}
	emit(p)
}

// stepFn runs a step on a shard's state.
type stepFn struct {
	Step sharded.Step
}

// ProcessElement runs the step.
func (fn *stepFn) ProcessElement(st sharded.State, side func(*[]byte) bool, emit func(sharded.State), part func(sharded.Part)) error {
	g, err := sideGlobal(side)
	if err != nil {
		return err
	}
	p, err := st.Step(fn.Step, &g)
	if err != nil {
		return err
	}
	emit(st)
	part(p)
	return nil
}

// reduceFn reduces a step's parts, all on one key, with the Global before the step.
type reduceFn struct {
	Step sharded.Step
}

// ProcessElement reduces the parts.
func (fn *reduceFn) ProcessElement(_ int, parts func(*sharded.Part) bool, side func(*[]byte) bool, emit func([]byte)) error {
	g, err := sideGlobal(side)
	if err != nil {
		return err
	}
	if g, err = sharded.Reduce(fn.Step, g, collect(parts)); err != nil {
		return err
	}
	b, err := encodeGlobal(g)
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

// tileBlock is a shard's block of a pass, on its way to a tile.
type tileBlock struct {
	Shard int
	B     sharded.Matrix
}

// fanFn sends a shard's block of a pass to the S tiles it is in, keyed by the tile's
// number; nothing once the iteration has stopped.
type fanFn struct {
	Step sharded.Step
}

// ProcessElement sends the block.
func (fn *fanFn) ProcessElement(st sharded.State, side func(*[]byte) bool, emit func(int, tileBlock)) error {
	g, err := sideGlobal(side)
	if err != nil {
		return err
	}
	if g.Stopped {
		return nil
	}
	b := tileBlock{Shard: st.Shard, B: st.TileInput(fn.Step, &g)}
	for t, ij := range sharded.TilePairs(len(g.RowOf)) {
		if ij[0] == st.Shard || ij[1] == st.Shard {
			emit(t, b)
		}
	}
	return nil
}

// tileFn computes a tile's products where its two shards' points are read
// (sharded.Tile), and emits each shard's part keyed by the shard.
type tileFn struct {
	Dir    string
	Kernel kernel.Spec
	Dim    int
}

// ProcessElement computes the tile.
func (fn *tileFn) ProcessElement(ctx context.Context, t int, blocks func(*tileBlock) bool, names func(*string) bool, emit func(int, sharded.TilePart)) error {
	k, err := kernel.New(fn.Kernel)
	if err != nil {
		return err
	}
	in := collect(blocks)
	if len(in) == 0 || len(in) > 2 {
		return fmt.Errorf("ikpcabeam: Polish: tile %d has %d blocks", t, len(in))
	}
	if len(in) == 2 && in[0].Shard > in[1].Shard {
		in[0], in[1] = in[1], in[0]
	}
	all := collect(names)
	I, J := in[0], in[len(in)-1]
	xi, err := readShard(ctx, fn.Dir, all, I.Shard, fn.Dim)
	if err != nil {
		return err
	}
	xj, err := readShard(ctx, fn.Dir, all, J.Shard, fn.Dim)
	if err != nil {
		return err
	}
	yi, yj, err := sharded.Tile(k, xi.X, xj.X, I.B, J.B, len(in) == 1)
	if err != nil {
		return err
	}
	emit(I.Shard, sharded.TilePart{Tile: t, Y: yi})
	if len(in) == 2 {
		emit(J.Shard, sharded.TilePart{Tile: t, Y: yj})
	}
	return nil
}

// keyState keys a state by its shard.
func keyState(st sharded.State) (int, sharded.State) { return st.Shard, st }

// sumTilesFn sets a shard's Y to the sum of its parts of the pass's tiles, in tile
// order (sharded.SumTiles); with no parts (the iteration stopped) the state is as it
// was.
type sumTilesFn struct{}

// ProcessElement sums the shard's parts.
func (fn *sumTilesFn) ProcessElement(shard int, states func(*sharded.State) bool, parts func(*sharded.TilePart) bool, emit func(sharded.State)) error {
	st := collect(states)
	if len(st) != 1 {
		return fmt.Errorf("ikpcabeam: Polish: shard %d has %d states", shard, len(st))
	}
	ps := collect(parts)
	if len(ps) > 0 {
		Y, err := sharded.SumTiles(st[0].N, ps[0].Y.Cols, ps)
		if err != nil {
			return err
		}
		st[0].Y = Y
	}
	emit(st[0])
	return nil
}

// scoresFn emits the scores of a shard's points, each with its record's place.
type scoresFn struct {
	Dir string
	Dim int
}

// ProcessElement emits the shard's scores.
func (fn *scoresFn) ProcessElement(ctx context.Context, st sharded.State, side func(*[]byte) bool, names func(*string) bool, emit func(Scores)) error {
	g, err := sideGlobal(side)
	if err != nil {
		return err
	}
	sc, err := st.Scores(&g)
	if err != nil {
		return err
	}
	sp, err := readShard(ctx, fn.Dir, collect(names), st.Shard, fn.Dim)
	if err != nil {
		return err
	}
	if len(sp.points) != sc.Rows {
		return fmt.Errorf("ikpcabeam: Polish: shard %d has %d points and %d rows of scores", st.Shard, len(sp.points), sc.Rows)
	}
	for i, p := range sp.points {
		emit(Scores{Source: p.Source, Offset: p.Offset, Line: p.Line, Y: append([]float64(nil), sc.Data[i*sc.Cols:(i+1)*sc.Cols]...)})
	}
	return nil
}

// ritzRows is a shard's points and their rows of the Ritz vectors, on their way to the
// worker that builds the polished model.
type ritzRows struct {
	Shard int
	X, U  sharded.Matrix
}

// ritzRowsFn emits a shard's points and its rows of the Ritz vectors.
type ritzRowsFn struct {
	Dir string
	Dim int
}

// ProcessElement emits the shard's rows.
func (fn *ritzRowsFn) ProcessElement(ctx context.Context, st sharded.State, names func(*string) bool, emit func(ritzRows)) error {
	sp, err := readShard(ctx, fn.Dir, collect(names), st.Shard, fn.Dim)
	if err != nil {
		return err
	}
	if st.U.Rows != sp.X.Rows {
		return fmt.Errorf("ikpcabeam: Polish: shard %d has %d points and %d rows of Ritz vectors", st.Shard, sp.X.Rows, st.U.Rows)
	}
	emit(ritzRows{Shard: st.Shard, X: sp.X, U: st.U})
	return nil
}

// polishedModelFn builds the polished model from every shard's rows, stacked in shard
// order (PolishOptions.Model), and emits its kpca checkpoint.
type polishedModelFn struct {
	Kernel  kernel.Spec
	Options sharded.Options
}

// ProcessElement builds the model.
func (fn *polishedModelFn) ProcessElement(_ int, rows func(*ritzRows) bool, emit func([]byte)) error {
	k, err := kernel.New(fn.Kernel)
	if err != nil {
		return err
	}
	parts := collect(rows)
	slices.SortFunc(parts, func(a, b ritzRows) int { return a.Shard - b.Shard })
	var m, d, c int
	for _, p := range parts {
		m += p.X.Rows
		d, c = max(d, p.X.Cols), max(c, p.U.Cols)
	}
	X := mat.NewDense(m, d, nil)
	U := mat.NewDense(m, c, nil)
	row := 0
	for _, p := range parts {
		if p.X.Cols != d || p.U.Cols != c || p.X.Rows != p.U.Rows {
			return fmt.Errorf("ikpcabeam: Polish: shard %d's rows are %d×%d and %d×%d, others' %d and %d columns", p.Shard, p.X.Rows, p.X.Cols, p.U.Rows, p.U.Cols, d, c)
		}
		for i := range p.X.Rows {
			X.SetRow(row, p.X.Data[i*d:(i+1)*d])
			U.SetRow(row, p.U.Data[i*c:(i+1)*c])
			row++
		}
	}
	o := fn.Options
	md, err := kpca.FitFrom(k, X, kpca.Start{Vectors: U, Passes: 1}, kpca.Options{Components: o.Components, Rank: o.Rank, Uncentred: !o.Centred})
	if err != nil {
		return fmt.Errorf("ikpcabeam: Polish: the polished model: %w", err)
	}
	b, err := md.MarshalBinary()
	if err != nil {
		return err
	}
	emit(b)
	return nil
}
