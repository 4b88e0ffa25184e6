package ikpcabeam

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/beam/sharded"
	"github.com/ikpca/ikpca/kernel"
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

// runPolish runs Polish on prism over pts and returns the certificate and the scores,
// keyed by source@offset.
func runPolish(t *testing.T, pts []Point, o PolishOptions) (PolishCertificate, map[string]record) {
	t.Helper()
	dir := beamtest.TempDir(t)
	o.Work = filepath.Join(dir, "work")
	p, s := beam.NewPipelineWithRoot()
	points := beam.Reshuffle(s, beam.CreateList(s, pts))
	res, err := Polish(s, points, o)
	if err != nil {
		t.Fatal(err)
	}
	sf := filepath.Join(dir, "scores")
	if err := WriteScores(s, sf, res.Scores); err != nil {
		t.Fatal(err)
	}
	cf := writeModel(t, s, filepath.Join(dir, "certificate.json"), res.Certificate)
	run(t, p)
	var c PolishCertificate
	if err := json.Unmarshal(beamtest.ReadFile(t, cf), &c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(res.Work); err != nil {
		t.Errorf("the run's work directory: %v", err)
	}
	return c, readRecords(t, sf, true)
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
		cert, scores := runPolish(t, pts, o)

		shards, order := localShards(t, pts, c.shards, 3)
		k, so, err := checkPolish(PolishOptions{Kernel: o.Kernel, Dim: 3, Uncentred: c.uncentred, Components: 3, Rank: 6, Passes: c.passes, Seed: 9, Shards: c.shards, Work: "x"})
		if err != nil {
			t.Fatal(err)
		}
		want, err := sharded.Run(context.Background(), k, shards, so)
		if err != nil {
			t.Fatal(err)
		}
		values, lo, hi, _, below, above := want.Global.Bounds()
		if len(values) != 3 || len(cert.Values) != 3 {
			t.Fatalf("%+v: %d values, one process %d; want 3", c, len(cert.Values), len(values))
		}
		if cert.Points != len(pts) || cert.Passes != c.passes || cert.Centred == c.uncentred {
			t.Errorf("%+v: certificate of %d points, %d passes, centred %v", c, cert.Points, cert.Passes, cert.Centred)
		}
		for j := range values {
			if cert.Values[j] != values[j] || cert.Lower[j] != lo[j] || cert.Upper[j] != hi[j] {
				t.Errorf("%+v: value %d %v in [%v, %v], one process %v in [%v, %v]", c, j, cert.Values[j], cert.Lower[j], cert.Upper[j], values[j], lo[j], hi[j])
			}
		}
		if cert.Below != below || cert.Above != above {
			t.Errorf("%+v: error bounds %v and %v, one process %v and %v", c, cert.Below, cert.Above, below, above)
		}
		if len(scores) != len(pts) {
			t.Fatalf("%+v: %d scores for %d points", c, len(scores), len(pts))
		}
		for s, ps := range order {
			sc := want.Scores[s]
			for i, p := range ps {
				got := scores[p.Source+"@"+strconv.FormatInt(p.Offset, 10)]
				for j := range sc.Cols {
					if got.values[j] != sc.Data[i*sc.Cols+j] {
						t.Fatalf("%+v: point at %d: score %d %v, one process %v", c, p.Offset, j, got.values[j], sc.Data[i*sc.Cols+j])
					}
				}
			}
		}
	}
}

// TestPolishOptions checks the options Polish refuses at construction.
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
}

// TestPolishVolumes: what enters each grouping of a Polish is what its tiles and
// reductions need, never the points: on m points, S shards, blocks of c columns and P
// passes, a grouping sees at most 2·(S² + S + S(S+1)) elements — a pass's blocks on
// their way to the S(S+1)/2 tiles (S per shard), the states and tile parts joined per
// shard, S parts of a reduction — (twice: prism counts a PCollection that crosses
// stages twice), and at most the bytes of S copies of the blocks and of the states,
// 8·m·(S·(c + 1) + (P + 4)·c) with room for the encodings' overhead.
func TestPolishVolumes(t *testing.T) {
	const m, S, c, P = 4000, 4, 6, 3
	dir := beamtest.TempDir(t)
	glob := volumeFiles(t, dir, m, 4)
	p, s := beam.NewPipelineWithRoot()
	res, err := Polish(s, readPoints(t, s, glob, 3), PolishOptions{Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Dim: 3,
		Components: 3, Rank: c, Passes: P, Seed: 1, Shards: S, Work: filepath.Join(dir, "work")})
	if err != nil {
		t.Fatal(err)
	}
	cf := writeModel(t, s, filepath.Join(dir, "certificate.json"), res.Certificate)
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
	seen := 0
	for _, g := range groupings {
		t.Logf("  %v", g)
		if g.Elements > 0 {
			seen++
		}
		if g.Elements > elements {
			t.Errorf("%s %s sees %d elements, above %d", g.Kind, g.Name, g.Elements, elements)
		}
		if g.Bytes > bytes {
			t.Errorf("%s %s sees %d bytes, above %d", g.Kind, g.Name, g.Bytes, bytes)
		}
	}
	// Per pass a tile grouping, a join and 7 reductions; the start's 6 and the Ritz step's.
	if seen < P*2+6 {
		t.Errorf("%d groupings saw elements: the measure measures nothing", seen)
	}
}
