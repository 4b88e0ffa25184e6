package ikpcabeam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/beam/sharded"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/nystrom"
)

// memPoints returns the rows of X as Points of a source "mem", each at its own offset.
func memPoints(X *mat.Dense) []Point {
	n, _ := X.Dims()
	pts := make([]Point, n)
	for i := range n {
		pts[i] = Point{Source: "mem", Offset: int64(i) * 97, Line: int64(i + 1), X: append([]float64(nil), X.RawRowView(i)...)}
	}
	return pts
}

// localShards deals points into shards as Polish does (pointID, shardPoints.order).
func localShards(t *testing.T, pts []Point, S, d int) ([]sharded.Shard, [][]Point) {
	t.Helper()
	sps := make([]*shardPoints, S)
	for s := range sps {
		sps[s] = &shardPoints{}
	}
	for _, p := range pts {
		sp := sps[PointID(p)%uint64(S)]
		sp.points = append(sp.points, p)
	}
	shards := make([]sharded.Shard, S)
	order := make([][]Point, S)
	for s, sp := range sps {
		if err := sp.order(s, d); err != nil {
			t.Fatal(err)
		}
		shards[s] = sharded.Shard{X: sp.X, IDs: sp.ids}
		order[s] = sp.points
	}
	return shards, order
}

// polishOut is what a Polish on prism wrote: the certificate, the scores and the dead
// letters keyed by source@offset, and the polished model's encoding if it was asked for.
type polishOut struct {
	cert         PolishCertificate
	scores, dead map[string]record
	model        []byte
}

// runPolish runs Polish on prism over pts — PolishFrom the model of the encoding model,
// unless it is nil — and returns what it wrote.
func runPolish(t *testing.T, pts []Point, model []byte, o PolishOptions) polishOut {
	t.Helper()
	dir := beamtest.TempDir(t)
	o.Work = filepath.Join(dir, "work")
	p, s := beam.NewPipelineWithRoot()
	points := beam.Reshuffle(s, beam.CreateList(s, pts))
	var res Polished
	var err error
	if model == nil {
		res, err = Polish(s, points, o)
	} else {
		res, err = PolishFrom(s, beam.Create(s, model), points, o)
	}
	if err != nil {
		t.Fatal(err)
	}
	df := filepath.Join(dir, "dead")
	if err := WriteDeadLetters(s, df, res.Dead); err != nil {
		t.Fatal(err)
	}
	sf := filepath.Join(dir, "scores")
	if err := WriteScores(s, sf, res.Scores); err != nil {
		t.Fatal(err)
	}
	cf := writeModel(t, s, filepath.Join(dir, "certificate.json"), res.Certificate)
	var mf string
	if o.Model {
		mf = writeModel(t, s, filepath.Join(dir, "model.ikpca"), res.Model)
	}
	run(t, p)
	var out polishOut
	if mf != "" {
		out.model = beamtest.ReadFile(t, mf)
	}
	var c PolishCertificate
	if err := json.Unmarshal(beamtest.ReadFile(t, cf), &c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(res.Work); err != nil {
		t.Errorf("the run's work directory: %v", err)
	}
	out.cert, out.scores, out.dead = c, readRecords(t, sf, true), readRecords(t, df, false)
	return out
}

// TestPolishEqualsRun checks the pipeline against sharded.Run in one process over the
// same shards: the same values, bounds and scores, bit for bit — every sum over shards
// and tiles is taken in a fixed order, so the runner's order, bundles and fusion change
// nothing. (sharded's tests check Run against kpca.FitFrom and the batch eigenvalues.)
func TestPolishEqualsRun(t *testing.T) {
	X := curve(240, 3, 5)
	pts := memPoints(X)
	for _, c := range []struct {
		shards, passes int
		uncentred      bool
	}{{1, 2, false}, {3, 4, false}, {4, 3, true}} {
		o := PolishOptions{Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Dim: 3, Uncentred: c.uncentred,
			Components: 3, Rank: 6, Passes: c.passes, Seed: 9, Shards: c.shards}
		out := runPolish(t, pts, nil, o)
		checkPolishEqualsRun(t, fmt.Sprintf("%+v", c), pts, nil, o, out.cert, out.scores)
	}
}

// checkPolishEqualsRun checks a pipeline's certificate and scores against sharded.Run
// over the same shards, from the model's scores of each shard's points (modelStart)
// unless m is nil: the same values, bounds and scores, bit for bit.
func checkPolishEqualsRun(t *testing.T, name string, pts []Point, m ikpca.Model, o PolishOptions, cert PolishCertificate, scores map[string]record) {
	t.Helper()
	shards, order := localShards(t, pts, o.Shards, o.Dim)
	o.Work = "x"
	k, so, err := checkPolish(o)
	if err != nil {
		t.Fatal(err)
	}
	if m != nil {
		for s := range shards {
			if shards[s].Start, err = modelStart(m, shards[s].X, so); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, err := sharded.Run(context.Background(), k, shards, so)
	if err != nil {
		t.Fatal(err)
	}
	values, lo, hi, _, below, above := want.Global.Bounds()
	if len(values) != o.Components || len(cert.Values) != o.Components {
		t.Fatalf("%s: %d values, one process %d; want %d", name, len(cert.Values), len(values), o.Components)
	}
	if cert.Points != len(pts) || cert.Passes != o.Passes || cert.Centred == o.Uncentred {
		t.Errorf("%s: certificate of %d points, %d passes, centred %v", name, cert.Points, cert.Passes, cert.Centred)
	}
	for j := range values {
		if cert.Values[j] != values[j] || cert.Lower[j] != lo[j] || cert.Upper[j] != hi[j] {
			t.Errorf("%s: value %d %v in [%v, %v], one process %v in [%v, %v]", name, j, cert.Values[j], cert.Lower[j], cert.Upper[j], values[j], lo[j], hi[j])
		}
	}
	if cert.Below != below || cert.Above != above {
		t.Errorf("%s: error bounds %v and %v, one process %v and %v", name, cert.Below, cert.Above, below, above)
	}
	if len(scores) != len(pts) {
		t.Fatalf("%s: %d scores for %d points", name, len(scores), len(pts))
	}
	for s, ps := range order {
		sc := want.Scores[s]
		for i, p := range ps {
			got := scores[p.Source+"@"+strconv.FormatInt(p.Offset, 10)]
			for j := range sc.Cols {
				if got.values[j] != sc.Data[i*sc.Cols+j] {
					t.Fatalf("%s: point at %d: score %d %v, one process %v", name, p.Offset, j, got.values[j], sc.Data[i*sc.Cols+j])
				}
			}
		}
	}
}

// TestPolishFromModel: PolishFrom a tracked kpca model of 40 of the points and from a
// Nyström model of 12 landmarks and all the points equals sharded.Run from the models'
// scores of each shard's points, bit for bit (sharded's TestRunFromModel checks that
// start against kpca.FitFrom's); after 3 passes the model's start is closer to the
// batch values than the random start's. A start model of another dimension, or with
// fewer components than Components, fails the pipeline.
func TestPolishFromModel(t *testing.T) {
	const d = 3
	X := curve(240, d, 5)
	pts := memPoints(X)
	k := kernel.RBF{Sigma: 1}
	o := PolishOptions{Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Dim: d, Components: 3, Rank: 6, Passes: 3, Seed: 9, Shards: 3}
	tracked, err := kpca.Fit(k, X.Slice(0, 40, 0, d), kpca.Options{Components: 6, Rank: 6})
	if err != nil {
		t.Fatal(err)
	}
	ny, err := nystrom.New(k, X.Slice(0, 12, 0, d), nystrom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ny.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	batch, _ := testmat.Eigen(t, kernel.Centre(kernel.Matrix(k, X)))
	random := runPolish(t, pts, nil, o).cert
	for name, c := range map[string]struct {
		m ikpca.Model
		b []byte
	}{"tracked": {tracked, wiretest.Marshal(t, tracked)}, "nystrom": {&Nystrom{ny}, wiretest.Marshal(t, &Nystrom{ny})}} {
		out := runPolish(t, pts, c.b, o)
		cert := out.cert
		if len(out.dead) != 0 {
			t.Errorf("%s: dead letters %v", name, out.dead)
		}
		checkPolishEqualsRun(t, name, pts, c.m, o, cert, out.scores)
		var fromModel, fromRandom float64
		for j := range o.Components {
			fromModel = math.Max(fromModel, math.Abs(cert.Values[j]-batch[j])/batch[0])
			fromRandom = math.Max(fromRandom, math.Abs(random.Values[j]-batch[j])/batch[0])
		}
		t.Logf("%s: %d passes: max |θ − λ|/λ₁ %.3g, from random vectors %.3g", name, o.Passes, fromModel, fromRandom)
		if fromModel > fromRandom {
			t.Errorf("%s: %d passes: max |θ − λ|/λ₁ %.3g, above the random start's %.3g", name, o.Passes, fromModel, fromRandom)
		}
	}

	// Models a Polish cannot start from fail the pipeline.
	other, err := kpca.Fit(k, curve(30, 2, 1), kpca.Options{Components: 6, Rank: 6})
	if err != nil {
		t.Fatal(err)
	}
	few, err := kpca.Fit(k, X.Slice(0, 40, 0, d), kpca.Options{Components: 2, Rank: 2})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		m    *kpca.Model
		want string
	}{"dimension 2": {other, "dimension 2"}, "2 components": {few, "2 components for 3"}} {
		dir := beamtest.TempDir(t)
		o.Work = filepath.Join(dir, "work")
		p, s := beam.NewPipelineWithRoot()
		res, err := PolishFrom(s, beam.Create(s, wiretest.Marshal(t, c.m)), beam.CreateList(s, pts), o)
		if err != nil {
			t.Fatal(err)
		}
		beam.ParDo0(s, discardScores, res.Scores)
		if err := ptest.Run(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: the pipeline's error %v, want one that says %q", name, err, c.want)
		}
	}
}

// TestPolishDeadLetters: points a Polish cannot take — of another dimension, a NaN
// coordinate, a linear kernel's k(x, x) that overflows — are dead letters, and the
// others are polished as if they were alone.
func TestPolishDeadLetters(t *testing.T) {
	const d = 3
	X := curve(120, d, 2)
	pts := memPoints(X)
	bad := []Point{
		{Source: "bad", Offset: 1, X: []float64{1, 2}},
		{Source: "bad", Offset: 2, X: []float64{1, math.NaN(), 3}},
		{Source: "bad", Offset: 3, X: []float64{1e200, 0, 0}},
	}
	o := PolishOptions{Kernel: kernel.Spec{Name: "linear"}, Dim: d, Components: 2, Rank: 3, Passes: 2, Seed: 4, Shards: 2}
	out := runPolish(t, append(slices.Clone(pts), bad...), nil, o)
	dead := out.dead
	if len(dead) != len(bad) {
		t.Fatalf("dead letters %v, want the %d bad points", dead, len(bad))
	}
	for _, p := range bad {
		if _, ok := dead[p.Source+"@"+strconv.FormatInt(p.Offset, 10)]; !ok {
			t.Errorf("no dead letter for the point at %d", p.Offset)
		}
	}
	checkPolishEqualsRun(t, "good points", pts, nil, o, out.cert, out.scores)
}

// TestPolishModel: the polished model (PolishOptions.Model) is a kpca checkpoint that
// DecodeModel reads, whose values equal the certificate's to rounding (1e-12·λ₁: the
// Rayleigh–Ritz step on the span of the Ritz vectors returns them), whose certificate
// holds the batch values (ValueBounds), and which scores the points as the pipeline
// did, up to each component's sign (1e-9·√λ₁: after 8 passes the vectors agree far
// closer than that, the Davis–Kahan bound of their residual over the gap).
func TestPolishModel(t *testing.T) {
	const d = 3
	X := curve(240, d, 5)
	pts := memPoints(X)
	o := PolishOptions{Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Dim: d, Components: 3, Rank: 6, Passes: 8, Seed: 2, Shards: 3, Model: true}
	out := runPolish(t, pts, nil, o)
	m, err := DecodeModel(out.model)
	if err != nil {
		t.Fatal(err)
	}
	md, ok := m.(*kpca.Model)
	if !ok {
		t.Fatalf("the polished model is a %T", m)
	}
	values := md.Values(nil)
	lo, hi := md.ValueBounds(nil, nil)
	batch, _ := testmat.Eigen(t, kernel.Centre(kernel.Matrix(kernel.RBF{Sigma: 1}, X)))
	if md.Len() != len(pts) || len(values) != o.Components {
		t.Fatalf("a model of %d points and %d values", md.Len(), len(values))
	}
	for j, v := range values {
		if math.Abs(v-out.cert.Values[j]) > 1e-12*values[0] {
			t.Errorf("value %d %.17g, the certificate's %.17g", j, v, out.cert.Values[j])
		}
		if tol := 1e-12 * batch[0]; batch[j] < lo[j]-tol || batch[j] > hi[j]+tol {
			t.Errorf("batch value %d %.17g outside the model's [%.17g, %.17g]", j, batch[j], lo[j], hi[j])
		}
	}
	var Y mat.Dense
	if err := md.Transform(&Y, X, o.Components); err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		got := out.scores[p.Source+"@"+strconv.FormatInt(p.Offset, 10)]
		for j := range o.Components {
			if math.Abs(math.Abs(Y.At(i, j))-math.Abs(got.values[j])) > 1e-9*math.Sqrt(values[0]) {
				t.Fatalf("point %d: the model's score %d %.17g, the pipeline's %.17g", i, j, Y.At(i, j), got.values[j])
			}
		}
	}
}

// TestPolishOptions checks the options Polish refuses at construction, and the model
// PolishFrom refuses.
func TestPolishOptions(t *testing.T) {
	good := PolishOptions{Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Dim: 3, Components: 2, Rank: 4, Passes: 2, Shards: 2, Work: "w"}
	for name, edit := range map[string]func(*PolishOptions){
		"sigmoid":       func(o *PolishOptions) { o.Kernel = kernel.Spec{Name: "sigmoid", Gamma: 1} },
		"no bandwidth":  func(o *PolishOptions) { o.Kernel = kernel.Spec{Name: "rbf"} },
		"dimension 0":   func(o *PolishOptions) { o.Dim = 0 },
		"0 shards":      func(o *PolishOptions) { o.Shards = 0 },
		"no work":       func(o *PolishOptions) { o.Work = "" },
		"0 passes":      func(o *PolishOptions) { o.Passes = 0 },
		"17 passes":     func(o *PolishOptions) { o.Passes = 17 },
		"rank below k":  func(o *PolishOptions) { o.Rank = 1 },
		"no components": func(o *PolishOptions) { o.Components = 0 },
	} {
		o := good
		edit(&o)
		_, s := beam.NewPipelineWithRoot()
		if _, err := Polish(s, beam.CreateList(s, []Point{{X: []float64{1, 2, 3}}}), o); !errors.Is(err, ErrArgument) {
			t.Errorf("%s: %v, want an ErrArgument", name, err)
		}
	}
	// PolishFrom refuses an invalid model PCollection, and a windowed one.
	_, s := beam.NewPipelineWithRoot()
	pts := beam.CreateList(s, []Point{{X: []float64{1, 2, 3}}})
	if _, err := PolishFrom(s, beam.PCollection{}, pts, good); !errors.Is(err, ErrArgument) {
		t.Errorf("an invalid model: %v, want an ErrArgument", err)
	}
	windowed := beam.WindowInto(s, window.NewFixedWindows(time.Minute), beam.Create(s, []byte("model")))
	if _, err := PolishFrom(s, windowed, pts, good); !errors.Is(err, ErrArgument) {
		t.Errorf("a windowed model: %v, want an ErrArgument", err)
	}
}

// TestPolishVolumes: what enters each grouping of a Polish is what its tiles and
// reductions need, never the points: on m points, S shards, blocks of c columns and P
// passes, a grouping sees at most 2·(S² + S + S(S+1)) elements — a pass's blocks on
// their way to the S(S+1)/2 tiles (S per shard), the states and tile parts joined per
// shard, S parts of a reduction — (twice: prism counts a PCollection that crosses
// stages twice), and at most the bytes of S copies of the blocks and of the states,
// 8·m·(S·(c + 1) + (P + 4)·c) with room for the encodings' overhead. With
// PolishOptions.Model one grouping more sees the points: S elements, each shard's points
// and Ritz vectors, 8·m·(d + c) bytes with the same room (and WriteModel's, the model's
// encoding, one element).
func TestPolishVolumes(t *testing.T) {
	const m, S, c, P, d = 4000, 4, 6, 3, 3
	for _, model := range []bool{false, true} {
		dir := beamtest.TempDir(t)
		glob := volumeFiles(t, dir, m, 4)
		p, s := beam.NewPipelineWithRoot()
		res, err := Polish(s, readPoints(t, s, glob, d), PolishOptions{Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Dim: d,
			Components: 3, Rank: c, Passes: P, Seed: 1, Shards: S, Work: filepath.Join(dir, "work"), Model: model})
		if err != nil {
			t.Fatal(err)
		}
		cf := writeModel(t, s, filepath.Join(dir, "certificate.json"), res.Certificate)
		if model {
			writeModel(t, s, filepath.Join(dir, "model.ikpca"), res.Model)
		}
		beam.ParDo0(s, discardScores, res.Scores)
		groupings, _, err := beamtest.Volumes(p)
		if err != nil {
			t.Fatal(err)
		}
		var cert PolishCertificate
		if err := json.Unmarshal(beamtest.ReadFile(t, cf), &cert); err != nil || cert.Points != m {
			t.Fatalf("certificate of %d points (%v), want %d", cert.Points, err, m)
		}
		elements := int64(2 * (S*S + S + S*(S+1)))
		bytes := int64(3 * 8 * m * (S*(c+1) + (P+4)*c))
		points := int64(3 * 8 * m * (d + c))
		seen, gathered := 0, 0
		for _, g := range groupings {
			t.Logf("  model %v: %v", model, g)
			if g.Elements > 0 {
				seen++
			}
			switch {
			case model && strings.HasPrefix(g.Name, "Polish/") && g.Elements <= 2*S && g.Bytes >= 8*m*(d+c):
				gathered++ // the polished model's: every shard's points and Ritz vectors
				if g.Bytes > points {
					t.Errorf("%s %s gathers %d bytes, above %d", g.Kind, g.Name, g.Bytes, points)
				}
			case g.Elements > elements:
				t.Errorf("%s %s sees %d elements, above %d", g.Kind, g.Name, g.Elements, elements)
			case g.Bytes > bytes:
				t.Errorf("%s %s sees %d bytes, above %d", g.Kind, g.Name, g.Bytes, bytes)
			}
		}
		// Per pass a tile grouping, a join and 7 reductions; the start's 6 and the Ritz step's.
		if seen < P*2+6 {
			t.Errorf("model %v: %d groupings saw elements: the measure measures nothing", model, seen)
		}
		if want := map[bool]int{false: 0, true: 1}[model]; gathered != want {
			t.Errorf("model %v: %d groupings gather the points, want %d", model, gathered, want)
		}
	}
}
