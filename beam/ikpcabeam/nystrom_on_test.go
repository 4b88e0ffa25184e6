package ikpcabeam

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/kernel"
)

// TestFitNystromOn: a Nyström fit on landmarks given as a PCollection<Point>, in
// another order than their places and with two bad ones (another dimension, a NaN),
// is FitNystrom's on the good ones as LandmarkPoints in the order of their offsets:
// the same landmarks bit for bit, σ by the median heuristic on them (taken on a
// worker), the same number of points, and eigenvalues within 1e-12·λ₁ (sameValues: the
// same sums merged in another order). The bad landmarks are dead letters with their
// reasons; landmarks that are all bad fail the pipeline with ErrNoLandmarks and write
// no model; landmarks both given and in a PCollection are an ErrArgument.
func TestFitNystromOn(t *testing.T) {
	X := curve(200, 3, 5)
	points := make([]Point, 200)
	for i := range points {
		points[i] = Point{Source: "in.csv", Offset: int64(100 * i), X: X.RawRowView(i)}
	}
	const r = 15
	L := mat.DenseCopyOf(X.Slice(0, r, 0, 3))
	var landmarks []Point
	for i := r - 1; i >= 0; i-- { // backwards
		landmarks = append(landmarks, Point{Source: "l.csv", Offset: int64(10 * i), X: L.RawRowView(i)})
	}
	landmarks = append(landmarks, Point{Source: "l.csv", Offset: 5, X: []float64{1, 2}},
		Point{Source: "l.csv", Offset: 7, X: []float64{1, math.NaN(), 2}})
	rbf := kernel.Spec{Name: "rbf"}

	dir := beamtest.TempDir(t)
	p, s := beam.NewPipelineWithRoot()
	model, dead, err := FitNystromOn(s, beam.CreateList(s, landmarks), beam.CreateList(s, points), NystromOptions{Dim: 3, Kernel: rbf}, FitOptions{Block: 16})
	if err != nil {
		t.Fatal(err)
	}
	mf, df := writeFit(t, s, filepath.Join(dir), model, dead)
	want, _, err := FitNystrom(s, beam.CreateList(s, points), NystromOptions{Dim: 3, Kernel: rbf, LandmarkPoints: L}, FitOptions{Block: 16})
	if err != nil {
		t.Fatal(err)
	}
	wf := writeModel(t, s, filepath.Join(dir, "want"), want)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	decode := func(f string) *Nystrom {
		b := beamtest.ReadFile(t, f)
		m, err := DecodeModel(b)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Nystrom)
	}
	got, ref := decode(mf), decode(wf)
	var gotL mat.Dense
	got.Landmarks(&gotL)
	if !mat.Equal(&gotL, L) {
		t.Errorf("landmarks\n%v\nwant, in the order of their offsets,\n%v", mat.Formatted(&gotL), mat.Formatted(L))
	}
	sigma, err := kernel.DefaultBandwidth(L)
	if err != nil {
		t.Fatal(err)
	}
	if spec := got.Kernel().(kernel.Specified).Spec(); spec.Sigma != sigma {
		t.Errorf("σ = %v, want the median heuristic's %v", spec.Sigma, sigma)
	}
	if got.Len() != 200 {
		t.Errorf("%d points, want 200", got.Len())
	}
	sameValues(t, "FitNystromOn", got.Values(nil), ref.Values(nil))
	b := readShards(t, df)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("dead letters %q, want the two bad landmarks", lines)
	}
	for _, want := range []string{`l.csv,5,0,"` + ErrDimension.Error(), "l.csv,7,0," + ErrNonFinite.Error()} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, want)
		}
		if !found {
			t.Errorf("dead letters %q, none starts with %q", lines, want)
		}
	}

	// All landmarks bad.
	p, s = beam.NewPipelineWithRoot()
	model, dead, err = FitNystromOn(s, beam.CreateList(s, landmarks[r:]), beam.CreateList(s, points), NystromOptions{Dim: 3, Kernel: rbf}, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mf, _ = writeFit(t, s, beamtest.TempDir(t), model, dead)
	if err := ptest.Run(p); err == nil || !strings.Contains(err.Error(), ErrNoLandmarks.Error()) {
		t.Errorf("no valid landmark: pipeline error %v, want one that says %q", err, ErrNoLandmarks)
	}
	if _, err := os.Stat(mf); err == nil {
		t.Error("no valid landmark: a model file")
	}

	_, s = beam.NewPipelineWithRoot()
	if _, _, err := FitNystromOn(s, beam.CreateList(s, landmarks), beam.CreateList(s, points),
		NystromOptions{Dim: 3, Kernel: rbf, LandmarkPoints: L}, FitOptions{}); !errors.Is(err, ErrArgument) {
		t.Errorf("landmarks given twice: error %v, want ErrArgument", err)
	}
}
