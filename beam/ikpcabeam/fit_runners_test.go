package ikpcabeam

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

// The tests of what prism hides: how a fit behaves on runners that do not lift
// combiners, split files otherwise, limit the graph's size, or see no valid point —
// checked on the pipeline's graph, its counters, or by forcing the runner's choices.

// counter returns the sum over steps of the counter name in namespace "ikpca".
func counter(res beam.PipelineResult, name string) int64 {
	var n int64
	for _, c := range res.Metrics().Query(func(r metrics.SingleResult) bool {
		return r.Namespace() == "ikpca" && r.Name() == name
	}).Counters() {
		n += c.Result()
	}
	return n
}

// TestFitCounters: a fit counts the points folded into partial models — every good
// point once, not the bad line nor the point the model refuses — and the partial models
// merged: at least one, and at most one per good point, so that what reaches the
// Combine is partial models, not points (on today's prism a few bundles, but the bound
// does not depend on the runner). SKPCA and Nyström on sampled landmarks, whose folds
// are the same.
func TestFitCounters(t *testing.T) {
	dir := beamtest.TempDir(t)
	X := curve(500, 3, 4)
	glob, _ := pointFiles(t, dir, X, 2)
	for _, method := range []string{"skpca", "nystrom"} {
		p, s := beam.NewPipelineWithRoot()
		points := beam.Flatten(s, readPoints(t, s, glob, 3), beam.Create(s, Point{Source: "made", X: []float64{1e308, 1e308, 1e308}}))
		var model beam.PCollection
		var err error
		if method == "skpca" {
			model, _, err = FitSKPCA(s, points, testKernel, 3, testOptions, FitOptions{Block: 16})
		} else {
			model, _, err = FitNystrom(s, points, NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Landmarks: 10, Seed: 3}, FitOptions{Block: 16})
		}
		if err != nil {
			t.Fatal(err)
		}
		writeModel(t, s, filepath.Join(dir, "model-"+method), model)
		res, err := ptest.RunWithMetrics(p)
		if err != nil {
			t.Fatalf("%s: pipeline: %v", method, err)
		}
		// The huge point: SKPCA's random features refuse it, the RBF Nyström model
		// takes it (its kernel values are 0 or 1).
		want := int64(500)
		if method == "nystrom" {
			want++
		}
		if got := counter(res, "points_folded"); got != want {
			t.Errorf("%s: points_folded = %d, want %d", method, got, want)
		}
		if got := counter(res, "models_merged"); got < 1 || got > want {
			t.Errorf("%s: models_merged = %d, want 1 to %d partial models", method, got, want)
		}
	}
}

// TestLandmarksIndependentOfSplitting: the sampled landmarks do not depend on how the
// runner splits the input file. Read whole (one block: every line numbered) and split
// into blocks of 256 bytes (most lines then have no line number, as in a residual of a
// dynamic split), the same file gives the same landmarks, bit for bit, and with them
// the same model to rounding (sums merged in another order: eigenvalues to 1e-12·λ₁, as
// in TestNystromMatchesSingleProcess).
func TestLandmarksIndependentOfSplitting(t *testing.T) {
	saved, savedSmall := blockSize, tooSmall
	t.Cleanup(func() { blockSize, tooSmall = saved, savedSmall })
	dir := beamtest.TempDir(t)
	X := curve(300, 3, 12)
	glob, _ := pointFiles(t, dir, X, 1)
	var models []*Nystrom
	for _, block := range []int64{saved, 256} {
		blockSize, tooSmall = block, block/4
		p, s := beam.NewPipelineWithRoot()
		points := readPoints(t, s, glob, 3)
		model, _, err := FitNystrom(s, points, NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Landmarks: 12, Seed: 5}, FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, fmt.Sprint(block))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		mf := writeModel(t, s, filepath.Join(sub, "model"), model)
		pf := writePoints(s, sub, "points", points)
		run(t, p)
		unnumbered := 0
		for _, r := range readRecords(t, pf, true) {
			if r.line == 0 {
				unnumbered++
			}
		}
		if block == 256 && unnumbered < 100 || block != 256 && unnumbered != 0 {
			t.Fatalf("blocks of %d bytes: %d of 300 points without a line number", block, unnumbered)
		}
		models = append(models, readModel(t, mf).(*Nystrom))
	}
	var whole, split mat.Dense
	models[0].Landmarks(&whole)
	models[1].Landmarks(&split)
	if !mat.Equal(&whole, &split) {
		t.Errorf("landmarks read whole\n%v\nsplit\n%v", mat.Formatted(&whole), mat.Formatted(&split))
	}
	sameValues(t, "split", models[1].Values(nil), models[0].Values(nil))
}

// TestGraphSize: the pipeline's graph — what a runner receives, and Dataflow limits to
// 10 MB (20 MB a job request) — stays small for every entry point at r = 2000 landmarks
// (D = 2000 features) of dimension d = 784, where a landmark matrix or a feature map
// takes 8·r·d = 12.5 MB: each fit and the projection, with what it writes, has a graph
// below 1 MB, or is refused at construction (ErrArgument) where the caller hands it
// data of that size to put in the graph (Fit's Nyström prototype, FitNystrom's
// LandmarkPoints). (An SKPCA's encoding holds its features' seed, not the features.)
func TestGraphSize(t *testing.T) {
	const r, d = 2000, 784
	dir := beamtest.TempDir(t)
	glob := filepath.Join(dir, "*.csv")
	L := curve(r, d, 3)
	nys := NystromOptions{Dim: d, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Landmarks: r, Seed: 1}
	given := nys
	given.LandmarkPoints = L
	skOpts := stream.SKPCAOptions{Features: r, Sketch: 50, Seed: 3}
	read := func(s beam.Scope) beam.PCollection { return readPoints(t, s, glob, d) }
	fits := []struct {
		name    string
		refused bool
		build   func(s beam.Scope) (model, dead beam.PCollection, err error)
	}{
		{"Fit, SKPCA", false, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			proto, err := NewSKPCA(kernel.RBF{Sigma: 1}, d, skOpts)
			if err != nil {
				t.Fatal(err)
			}
			return Fit(s, read(s), proto, FitOptions{})
		}},
		{"Fit, Nyström", true, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			// 500 landmarks, not 2000: already 8·(r·d + r²) ≈ 5 MB, and built here.
			proto, err := newNystromModel(mat.DenseCopyOf(L.Slice(0, 500, 0, d)), nys)
			if err != nil {
				t.Fatal(err)
			}
			return Fit(s, read(s), proto, FitOptions{})
		}},
		{"FitSKPCA", false, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			return FitSKPCA(s, read(s), kernel.RBF{Sigma: 1}, d, skOpts, FitOptions{})
		}},
		{"FitNystrom, sampled", false, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			return FitNystrom(s, read(s), nys, FitOptions{})
		}},
		{"FitNystromSampled", false, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			return FitNystromSampled(s, read(s), read(s), nys, FitOptions{})
		}},
		{"FitNystrom, given landmarks", true, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			return FitNystrom(s, read(s), given, FitOptions{})
		}},
		{"FitNystromOn", false, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			return FitNystromOn(s, read(s), read(s), nys, FitOptions{})
		}},
		{"Project", false, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
			model, err := ReadModel(s, filepath.Join(dir, "model"))
			if err != nil {
				t.Fatal(err)
			}
			scores, dead, err := Project(s, model, read(s), ProjectOptions{})
			if err != nil {
				return scores, dead, err
			}
			return beam.ParDo(s, formatScoresForSize, scores), dead, nil
		}},
	}
	for _, f := range fits {
		p, s := beam.NewPipelineWithRoot()
		out, dead, err := f.build(s)
		if f.refused {
			if !errors.Is(err, ErrArgument) {
				t.Errorf("%s: error %v, want an ErrArgument", f.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if f.name == "Project" {
			textio.Write(s, filepath.Join(dir, "scores"), out)
		} else if err := WriteModel(s, filepath.Join(dir, "model"), out); err != nil {
			t.Fatal(err)
		}
		if err := WriteDeadLetters(s, filepath.Join(dir, "dead"), dead); err != nil {
			t.Fatal(err)
		}
		size, err := beamtest.GraphSize(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: the graph takes %d bytes", f.name, size)
		if size > 1<<20 {
			t.Errorf("%s: the graph takes %d bytes, above 1 MB", f.name, size)
		}
	}
}

// formatScoresForSize writes scores as a line, for TestGraphSize's projection.
func formatScoresForSize(sc Scores) string { return formatFloats(sc.Y) }

func init() { register.Function1x1(formatScoresForSize) }

// TestNoValidPoints: a Nyström fit with sampled landmarks that no valid point reaches —
// a file of lines that are not numbers, points of another dimension — fails the
// pipeline with ErrNoPoints, found by its text in the runner's error, rather than end
// without a model; one read and two.
func TestNoValidPoints(t *testing.T) {
	dir := beamtest.TempDir(t)
	bad := filepath.Join(dir, "bad.csv")
	beamtest.WriteFile(t, bad, []byte("a,b,c\n1,x,2\n\n1,2\n"))
	for _, twice := range []bool{false, true} {
		p, s := beam.NewPipelineWithRoot()
		read := func() beam.PCollection { return readPoints(t, s, bad, 3) }
		opts := NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf"}, Landmarks: 10, Seed: 1}
		model, dead := fitNystrom(t, s, read, twice, opts, FitOptions{})
		mf, _ := writeFit(t, s, filepath.Join(dir), model, dead)
		err := ptest.Run(p)
		if err == nil || !strings.Contains(err.Error(), ErrNoPoints.Error()) {
			t.Errorf("two reads %v: pipeline error %v, want one that says %q", twice, err, ErrNoPoints)
		}
		if _, err := os.Stat(mf); err == nil {
			t.Errorf("two reads %v: a model file without a model", twice)
		}
	}
}
