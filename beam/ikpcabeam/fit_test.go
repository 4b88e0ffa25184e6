package ikpcabeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/stream"
)

// pointFiles writes the rows of X to parts CSV files in dir, row i to file i mod parts,
// with a bad line after every 100th row, and returns the glob and the number of bad
// lines.
func pointFiles(t *testing.T, dir string, X *mat.Dense, parts int) (glob string, bad int) {
	t.Helper()
	n, _ := X.Dims()
	files := make([]strings.Builder, parts)
	for i := range n {
		files[i%parts].WriteString(formatFloats(X.RawRowView(i)) + "\n")
		if i%100 == 0 {
			files[i%parts].WriteString("1,x,2\n")
			bad++
		}
	}
	for i := range files {
		beamtest.WriteFile(t, filepath.Join(dir, fmt.Sprintf("points%d.csv", i)), []byte(files[i].String()))
	}
	return filepath.Join(dir, "points*.csv"), bad
}

// readModel reads and decodes a model file.
func readModel(t *testing.T, file string) Summary {
	t.Helper()
	b := beamtest.ReadFile(t, file)
	m, err := DecodeSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeFit writes a pipeline's model and dead letters to the files model and dead in
// dir, whose names it returns.
func writeFit(t *testing.T, s beam.Scope, dir string, model, dead beam.PCollection) (mf, df string) {
	t.Helper()
	mf, df = filepath.Join(dir, "model"), filepath.Join(dir, "dead")
	writeModel(t, s, mf, model)
	if err := WriteDeadLetters(s, df, dead); err != nil {
		t.Fatal(err)
	}
	return mf, df
}

// sameValues checks the eigenvalues a of a pipeline's model against b, a single
// process's of the same points (what names the case): as many, and each within
// 1e-12·b₀ — the rounding of sums merged in another order.
func sameValues(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) || len(b) == 0 {
		t.Fatalf("%s: %d values, single process %d", what, len(a), len(b))
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12*b[0] {
			t.Errorf("%s: λ%d = %v, single process %v", what, i, a[i], b[i])
		}
	}
}

// prototype returns the encoding of the Nyström model without points whose landmarks
// are the first 10 rows of X (RBF of σ = 1): the prototype of a foldFn.
func prototype(t *testing.T, X *mat.Dense) []byte {
	t.Helper()
	proto, err := newNystromModel(mat.DenseCopyOf(X.Slice(0, 10, 0, 3)), NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return wiretest.Marshal(t, proto)
}

// TestFitSKPCA: the pipeline's SKPCA of points read from three files — partial models
// of its bundles merged in an order the runner chooses — satisfies the sketch's
// certificate over all the points, and its eigenvalues are within the bounds of the
// single-process model's: both lie in [λᵢ(ZᵀZ) − Δ, λᵢ(ZᵀZ)]. Bad lines and bad points
// are dead letters.
func TestFitSKPCA(t *testing.T) {
	dir := beamtest.TempDir(t)
	X := curve(1000, 3, 9)
	glob, badLines := pointFiles(t, dir, X, 3)
	single, err := stream.NewSKPCA(testKernel, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := single.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	points, deadLines, err := ReadCSV(s, glob, CSVOptions{Dim: 3})
	if err != nil {
		t.Fatal(err)
	}
	odd := beam.Create(s, Point{Source: "made", Line: 1, X: []float64{1, 2}}, Point{Source: "made", Offset: 9, Line: 2, X: []float64{1, math.NaN(), 2}})
	model, deadPoints, err := FitSKPCA(s, beam.Flatten(s, points, odd), testKernel, 3, testOptions, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mf, df := writeFit(t, s, dir, model, beam.Flatten(s, deadLines, deadPoints))
	run(t, p)

	m := readModel(t, mf).(*SKPCA)
	certify(t, m, X)
	ours, theirs := m.Values(nil), single.Values(nil)
	slack := m.ErrorBound() + single.ErrorBound() + 1e-10*float64(len(ours))
	for i := range ours {
		if math.Abs(ours[i]-theirs[i]) > slack {
			t.Errorf("λ%d = %v, single process %v: apart by more than Δ + Δ' = %v", i, ours[i], theirs[i], slack)
		}
	}
	dead := readRecords(t, df, false)
	if len(dead) != badLines+2 {
		t.Errorf("%d dead letters, want %d", len(dead), badLines+2)
	}
	reasons := 0
	for _, d := range dead {
		switch {
		case d.source == "made" && d.line == 1 && strings.Contains(d.reason, "dimension") && d.text == "1,2",
			d.source == "made" && d.line == 2 && strings.Contains(d.reason, "NaN") && d.text == "1,NaN,2",
			d.source != "made" && d.line > 0 && d.text == "1,x,2" && strings.Contains(d.reason, "not a number"):
			reasons++
		default:
			t.Errorf("unexpected dead letter %+v", d)
		}
	}
	if reasons != len(dead) {
		t.Errorf("%d of %d dead letters as expected", reasons, len(dead))
	}
}

// TestFitEmpty: a fit that no valid point reaches — no points at all, or only points
// of another dimension or with a NaN — fails the pipeline with ErrNoPoints (found by its
// text in the runner's error) and writes no model file, for SKPCA and for Nyström on
// given landmarks, rather than write a model of nothing and succeed.
func TestFitEmpty(t *testing.T) {
	inputs := map[string][]Point{
		"no points": {},
		"only bad points": {
			{Source: "made", Line: 1, X: []float64{1, 2}},
			{Source: "made", Line: 2, X: []float64{1, math.NaN(), 2}},
		},
	}
	L := mat.NewDense(2, 3, []float64{0, 0, 1, 1, 0, 0})
	fits := map[string]func(s beam.Scope, points beam.PCollection) (beam.PCollection, beam.PCollection, error){
		"SKPCA": func(s beam.Scope, points beam.PCollection) (beam.PCollection, beam.PCollection, error) {
			return FitSKPCA(s, points, testKernel, 3, testOptions, FitOptions{})
		},
		"Nyström on given landmarks": func(s beam.Scope, points beam.PCollection) (beam.PCollection, beam.PCollection, error) {
			return FitNystrom(s, points, NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, LandmarkPoints: L}, FitOptions{})
		},
	}
	for fname, fit := range fits {
		for iname, in := range inputs {
			dir := beamtest.TempDir(t)
			p, s := beam.NewPipelineWithRoot()
			model, _, err := fit(s, beam.CreateList(s, in))
			if err != nil {
				t.Fatal(err)
			}
			mf := writeModel(t, s, filepath.Join(dir, "model"), model)
			if err := ptest.Run(p); err == nil || !strings.Contains(err.Error(), ErrNoPoints.Error()) {
				t.Errorf("%s of %s: pipeline error %v, want one that says %q", fname, iname, err, ErrNoPoints)
			}
			if _, err := os.Stat(mf); err == nil {
				t.Errorf("%s of %s: a model file without a model", fname, iname)
			}
		}
	}
}

// TestFitPrototypeWithPoints: a prototype that holds points already contributes them
// once, whatever the number of bundles: each bundle folds its points into an empty
// model of the prototype's options, and the Combine merges the prototype in once. A
// Nyström model on given landmarks holding 200 points, fitted over 800 more from three
// files, holds 1000 and has the eigenvalues of one process's fit of all of them (to
// 1e-12·λ₁, sums merged in another order); an SKPCA holding 200 likewise holds 1000.
// (Before, each bundle started from the prototype with its points, and the fit counted
// them once per bundle and once more.)
func TestFitPrototypeWithPoints(t *testing.T) {
	dir := beamtest.TempDir(t)
	X := curve(1000, 3, 5)
	glob, _ := pointFiles(t, dir, mat.DenseCopyOf(X.Slice(200, 1000, 0, 3)), 3)
	L := mat.DenseCopyOf(X.Slice(0, 20, 0, 3))
	opts := NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}}
	single, err := newNystromModel(L, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := single.(batchAdder).AddBatch(X); err != nil {
		t.Fatal(err)
	}
	nys, err := newNystromModel(L, opts)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := NewSKPCA(testKernel, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Summary{nys, sk} {
		if err := m.(batchAdder).AddBatch(X.Slice(0, 200, 0, 3)); err != nil {
			t.Fatal(err)
		}
	}
	p, s := beam.NewPipelineWithRoot()
	points := readPoints(t, s, glob, 3)
	files := map[string]Summary{"nystrom": nys, "skpca": sk}
	for name, proto := range files {
		model, _, err := Fit(s, points, proto, FitOptions{Block: 64})
		if err != nil {
			t.Fatal(err)
		}
		writeModel(t, s, filepath.Join(dir, name), model)
	}
	run(t, p)
	for name := range files {
		m := readModel(t, filepath.Join(dir, name))
		if m.Len() != 1000 {
			t.Errorf("%s: the fit holds %d points, want the prototype's 200 and 800 read", name, m.Len())
		}
		if name == "nystrom" {
			sameValues(t, name, m.Values(nil), single.Values(nil))
		}
	}
}

// TestFitArguments: a nil model, a negative block and bad options are ErrArgument
// errors at construction.
func TestFitArguments(t *testing.T) {
	_, s := beam.NewPipelineWithRoot()
	points := beam.Create(s, Point{X: []float64{1, 2, 3}})
	if _, _, err := Fit(s, points, nil, FitOptions{}); !errors.Is(err, ErrArgument) {
		t.Errorf("nil model: %v", err)
	}
	if _, _, err := Fit(s, points, (*SKPCA)(nil), FitOptions{}); !errors.Is(err, ErrArgument) {
		t.Errorf("nil *SKPCA: %v", err)
	}
	m, err := NewSKPCA(testKernel, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Fit(s, points, m, FitOptions{Block: -1}); !errors.Is(err, ErrArgument) {
		t.Errorf("block −1: %v", err)
	}
	if _, _, err := FitSKPCA(s, points, testKernel, 3, stream.SKPCAOptions{Features: 3, Sketch: 2}, FitOptions{}); !errors.Is(err, ErrArgument) {
		t.Errorf("odd features: %v", err)
	}
}

// TestAccumulatorCoder: the accumulator's coder gives back the model, and the empty
// accumulator.
func TestAccumulatorCoder(t *testing.T) {
	m := filledSKPCA(t, curve(40, 3, 1))
	b, err := encodeAccumulator(&accumulator{s: m})
	if err != nil {
		t.Fatal(err)
	}
	a, err := decodeAccumulator(b)
	if err != nil {
		t.Fatal(err)
	}
	if a.s.Len() != 40 || !vec.SameBits(a.s.Values(nil), m.Values(nil)) {
		t.Error("the accumulator's model changed in its coder")
	}
	b, err = encodeAccumulator(&accumulator{})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := decodeAccumulator(b); err != nil || a.s != nil {
		t.Errorf("empty accumulator: %v, %v", a, err)
	}
	if _, err := decodeAccumulator([]byte("garbage!")); !errors.Is(err, ErrModel) {
		t.Errorf("garbage: %v", err)
	}
}

// refusingFiles writes the rows of X to CSV files in dir, row i to file i mod 2, and
// the point huge as line 41 of the first file, and returns the glob, the huge point's
// file and offset.
func refusingFiles(t *testing.T, dir string, X *mat.Dense, huge []float64) (glob, file string, offset int64) {
	t.Helper()
	n, _ := X.Dims()
	var files [2]strings.Builder
	for i := range n {
		if i == 80 {
			offset = int64(files[0].Len())
			files[0].WriteString(formatFloats(huge) + "\n")
		}
		files[i%2].WriteString(formatFloats(X.RawRowView(i)) + "\n")
	}
	for i := range files {
		beamtest.WriteFile(t, filepath.Join(dir, fmt.Sprintf("refusing%d.csv", i)), []byte(files[i].String()))
	}
	return filepath.Join(dir, "refusing*.csv"), filepath.Join(dir, "refusing0.csv"), offset
}

// TestFitRefusedPoint: a point that passes the checks of dimension and finiteness but
// that the model refuses — a cubic kernel's value that overflows for coordinates 1e110
// (Nyström KPCA on given landmarks), random features that are not finite for
// coordinates 1e308 (SKPCA) — is a dead letter with its file, offset, line, text and
// the model's reason, and the other points of its block are added: the Nyström model
// equals one fitted in one process to the good points (eigenvalues to 1e-12·λ₁, the
// bound of TestNystromMatchesSingleProcess: compensated sums, added by AddBatch or,
// for the refused block, one by one), the SKPCA sketch holds every good point and
// satisfies its certificate over them. Blocks of the default size, of 7 and of 1.
func TestFitRefusedPoint(t *testing.T) {
	X := curve(300, 3, 5)
	cubic := kernel.Spec{Name: "polynomial", Degree: 3, Gamma: 1, Coef0: 1}
	L := mat.DenseCopyOf(X.Slice(0, 15, 0, 3))
	for _, c := range []struct {
		name string
		huge []float64
		fit  FitOptions
	}{
		{"nystrom", []float64{1e110, 1e110, 1e110}, FitOptions{}},
		{"nystrom", []float64{1e110, 1e110, 1e110}, FitOptions{Block: 1}},
		{"skpca", []float64{1e308, 1e308, 1e308}, FitOptions{Block: 7}},
		{"skpca", []float64{1e308, 1e308, 1e308}, FitOptions{Block: 1}},
	} {
		name := fmt.Sprintf("%s %+v", c.name, c.fit)
		sub := beamtest.TempDir(t)
		glob, file, offset := refusingFiles(t, sub, X, c.huge)
		p, s := beam.NewPipelineWithRoot()
		points, deadLines, err := ReadCSV(s, glob, CSVOptions{Dim: 3})
		if err != nil {
			t.Fatal(err)
		}
		var model, deadPoints beam.PCollection
		var want Summary
		if c.name == "nystrom" {
			model, deadPoints, err = FitNystrom(s, points, NystromOptions{Dim: 3, Kernel: cubic, LandmarkPoints: L}, c.fit)
			want, _ = newNystromModel(L, NystromOptions{Dim: 3, Kernel: cubic})
		} else {
			model, deadPoints, err = FitSKPCA(s, points, testKernel, 3, testOptions, c.fit)
			want, _ = NewSKPCA(testKernel, 3, testOptions)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := want.Add(c.huge); !errors.Is(err, ikpca.ErrNonFinite) {
			t.Fatalf("%s: the model takes the huge point (%v): nothing to test", name, err)
		}
		fill(t, want, X)
		mf, df := writeFit(t, s, sub, model, beam.Flatten(s, deadLines, deadPoints))
		run(t, p)

		dead := readRecords(t, df, false)
		d, ok := dead[file+"@"+fmt.Sprint(offset)]
		if len(dead) != 1 || !ok || d.line != 41 || d.text != formatFloats(c.huge) || !strings.Contains(d.reason, "finite") {
			t.Errorf("%s: dead letters %+v, want the huge point's (line 41 of %s, offset %d)", name, dead, file, offset)
		}
		got := readModel(t, mf)
		if got.Len() != 300 {
			t.Errorf("%s: %d points added, want the 300 good ones", name, got.Len())
		}
		if c.name == "skpca" {
			certify(t, got.(*SKPCA), X)
			continue
		}
		sameValues(t, name, got.Values(nil), want.Values(nil))
	}
}

// foldOf runs fn over one bundle of the points of X[from:to] on the prototype b, and
// returns the encoding of the partial model it emits and the dead letters.
func foldOf(t *testing.T, fn *foldFn, b []byte, X *mat.Dense, from, to int) ([]byte, []DeadLetter) {
	t.Helper()
	side := func(dst *[]byte) bool { *dst = b; return true }
	var out [][]byte
	var dead []DeadLetter
	emit := func(_ int, m []byte) { out = append(out, m) }
	letter := func(l DeadLetter) { dead = append(dead, l) }
	fn.StartBundle(side, emit, letter)
	for i := from; i < to; i++ {
		if err := fn.ProcessElement(Point{Offset: int64(i), X: X.RawRowView(i)}, side, emit, letter); err != nil {
			t.Fatal(err)
		}
	}
	if err := fn.FinishBundle(context.Background(), side, emit, letter); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 {
		t.Fatalf("%d partial models for a bundle of %d points, want 1", len(out), to-from)
	}
	return out[0], dead
}

// fromPartial returns the model the partial enc of a fold (the sums of a bundle's
// points, partial.go) makes with the prototype proto reset to no points: the bundle's
// partial model.
func fromPartial(t *testing.T, proto, enc []byte) Summary {
	t.Helper()
	m, err := DecodeSummary(proto)
	if err != nil {
		t.Fatal(err)
	}
	m.Reset()
	a, err := decodeAccumulator(enc)
	if err != nil {
		t.Fatal(err)
	}
	if a.p == nil {
		t.Fatalf("a fold of a %T emitted a model, not its partial", m)
	}
	if err := m.(partialSummary).addPartial(a.p); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFoldBlocks: foldFn's partial model of a bundle is the prototype fed the bundle's
// points in blocks of Block, the last one short, bit for bit (the same calls in the
// same order); a fresh copy of the prototype each bundle. A bundle with a point the
// model refuses gives its dead letter and the others' model: the refused block added
// point by point.
func TestFoldBlocks(t *testing.T) {
	X := curve(50, 3, 2)
	b := prototype(t, X)
	// want is the prototype fed X[from:to] in blocks of 8.
	want := func(from, to int) Summary {
		m, err := DecodeSummary(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i += 8 {
			if err := m.(batchAdder).AddBatch(X.Slice(i, min(i+8, to), 0, 3)); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	same := func(what string, enc []byte, want Summary) {
		t.Helper()
		got := fromPartial(t, b, enc)
		if got.Len() != want.Len() || !vec.SameBits(got.Values(nil), want.Values(nil)) {
			t.Errorf("%s: %d points, values %v; want %d, %v", what, got.Len(), got.Values(nil), want.Len(), want.Values(nil))
		}
	}
	fn := &foldFn{Block: 8}
	enc, dead := foldOf(t, fn, b, X, 0, 21)
	if len(dead) != 0 {
		t.Errorf("dead letters %v", dead)
	}
	same("bundle of 21", enc, want(0, 21))
	enc, _ = foldOf(t, fn, b, X, 21, 34)
	same("the next bundle, of 13", enc, want(21, 34))

	// A point beyond the sums stand-in's range: its block of 8 goes point by point.
	withDouble(t, true)
	bad := mat.DenseCopyOf(X)
	bad.Set(10, 0, 1e300)
	enc, dead = foldOf(t, fn, sumsPrototype(t, bad), bad, 0, 21)
	if len(dead) != 1 || dead[0].Offset != 10 || !strings.Contains(dead[0].Reason, "refuses") {
		t.Errorf("dead letters %+v, want point 10's", dead)
	}
	var m batchSums
	if err := m.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if m.N != 20 || m.MaxBatch != 8 {
		t.Errorf("%d points in blocks of up to %d, want 20 in blocks of 8", m.N, m.MaxBatch)
	}
}

// TestFoldDecodesOnce: a fold decodes its prototype once per instance, not once per
// bundle, and again only when the side input's bytes change; each bundle's partial
// model holds that bundle's points only, even of a prototype that holds points.
func TestFoldDecodesOnce(t *testing.T) {
	X := curve(60, 3, 2)
	b := prototype(t, X)
	fn := &foldFn{Block: 8}
	for i := range 3 {
		enc, _ := foldOf(t, fn, b, X, 10*i, 10*i+10)
		if m := fromPartial(t, b, enc); m.Len() != 10 {
			t.Fatalf("bundle %d: a partial model of %v points, want 10", i, m.Len())
		}
	}
	if fn.decodes != 1 {
		t.Errorf("three bundles decoded the prototype %d times, want once", fn.decodes)
	}
	full, err := DecodeSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := full.Add(X.RawRowView(59)); err != nil {
		t.Fatal(err)
	}
	other := wiretest.Marshal(t, full)
	enc, _ := foldOf(t, fn, other, X, 30, 45)
	if m := fromPartial(t, other, enc); m.Len() != 15 {
		t.Fatalf("a prototype of one point: a partial model of %v points, want the bundle's 15", m.Len())
	}
	if fn.decodes != 2 {
		t.Errorf("after the side input changed, %d decodings, want 2", fn.decodes)
	}
}

// sumsPrototype returns the encoding of the stand-in withDouble makes, on the first
// two rows of X.
func sumsPrototype(t *testing.T, X *mat.Dense) []byte {
	t.Helper()
	m, err := newNystromModel(mat.DenseCopyOf(X.Slice(0, 2, 0, 3)), NystromOptions{Dim: 3})
	if err != nil {
		t.Fatal(err)
	}
	return wiretest.Marshal(t, m)
}

// TestFoldAllocs: foldFn adds points to a model that adds blocks without allocating
// once its bundle's model and its block's buffer exist, the AddBatch of each full
// block included.
func TestFoldAllocs(t *testing.T) {
	X := curve(64, 3, 2)
	b := prototype(t, X)
	fn := &foldFn{Block: 16}
	side := func(dst *[]byte) bool { *dst = b; return true }
	emit := func(int, []byte) {}
	dead := func(DeadLetter) { t.Error("a dead letter") }
	fn.StartBundle(side, emit, dead)
	p := Point{X: X.RawRowView(0)}
	if err := fn.ProcessElement(p, side, emit, dead); err != nil {
		t.Fatal(err)
	}
	i := 0
	allocs := testing.AllocsPerRun(64, func() {
		p.X = X.RawRowView(i % 64)
		i++
		if err := fn.ProcessElement(p, side, emit, dead); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per point", allocs)
	}
	if fn.m.Len() < 64 {
		t.Errorf("%d points added in full blocks, want at least 64", fn.m.Len())
	}
}

// TestSampledRefusedPoint: with sampled landmarks (one read and two), a point whose
// own cubic-kernel value overflows (coordinates 1e110) is not sampled — as a landmark
// it would make the landmarks' kernel matrix infinite and the pipeline fail — and the
// model refuses it when it is added: a dead letter with its line and the model's
// reason. With more landmarks asked for than points, the landmarks are every good
// point, and the model equals one fitted to them in one process (eigenvalues to
// 1e-12·λ₁, as in TestFitRefusedPoint).
func TestSampledRefusedPoint(t *testing.T) {
	X := curve(160, 3, 6)
	huge := []float64{1e110, 1e110, 1e110}
	cubic := kernel.Spec{Name: "polynomial", Degree: 3, Gamma: 1, Coef0: 1}
	for _, twice := range []bool{false, true} {
		dir := beamtest.TempDir(t)
		glob, file, offset := refusingFiles(t, dir, X, huge)
		p, s := beam.NewPipelineWithRoot()
		read := func() beam.PCollection { return readPoints(t, s, glob, 3) }
		opts := NystromOptions{Dim: 3, Kernel: cubic, Landmarks: 200, Seed: 2}
		model, dead := fitNystrom(t, s, read, twice, opts, FitOptions{Block: 16})
		mf, df := writeFit(t, s, dir, model, dead)
		run(t, p)

		dl := readRecords(t, df, false)
		if d, ok := dl[file+"@"+fmt.Sprint(offset)]; len(dl) != 1 || !ok || d.line != 41 || !strings.Contains(d.reason, "finite") {
			t.Errorf("two reads %v: dead letters %+v, want the huge point's", twice, dl)
		}
		got := readModel(t, mf).(*Nystrom)
		var L mat.Dense
		got.Landmarks(&L)
		if r, _ := L.Dims(); r != 160 || got.Len() != 160 {
			t.Fatalf("two reads %v: %d landmarks, %d points; want the 160 good ones", twice, r, got.Len())
		}
		single, err := nystrom.New(kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, &L, nystrom.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := single.AddBatch(X); err != nil {
			t.Fatal(err)
		}
		sameValues(t, fmt.Sprintf("two reads %v", twice), got.Values(nil), single.Values(nil))
	}
}

// TestMergeGroups: the folds key their partial models into MergeGroups groups, evenly
// — 512 bundles into 16 groups, each group between 16 and 48 of them — so that the
// first level of merges gathers about bundles/groups partial models on a key and the
// last one the groups, never every bundle's on one key (fold). A bundle's key is that
// of its first point, the same on a rerun.
func TestMergeGroups(t *testing.T) {
	X := curve(512, 3, 2)
	b := prototype(t, X)
	fn := &foldFn{Block: 16, Groups: 16}
	side := func(dst *[]byte) bool { *dst = b; return true }
	counts := map[int]int{}
	var keys []int
	emit := func(k int, _ []byte) { counts[k]++; keys = append(keys, k) }
	dead := func(DeadLetter) {}
	for i := range 512 {
		fn.StartBundle(side, emit, dead)
		if err := fn.ProcessElement(Point{Source: "points.csv", Offset: int64(100 * i), X: X.RawRowView(i)}, side, emit, dead); err != nil {
			t.Fatal(err)
		}
		if err := fn.FinishBundle(context.Background(), side, emit, dead); err != nil {
			t.Fatal(err)
		}
	}
	if len(counts) != 16 {
		t.Errorf("%d groups used, want 16", len(counts))
	}
	for k, n := range counts {
		if k < 0 || k >= 16 || n < 16 || n > 48 {
			t.Errorf("group %d has %d of 512 partial models", k, n)
		}
	}
	for i, k := range keys {
		if want := groupOf(Point{Source: "points.csv", Offset: int64(100 * i), X: X.RawRowView(i)}, 16); k != want {
			t.Fatalf("bundle %d keyed %d, its first point's group %d", i, k, want)
		}
	}
	if _, err := checkFit(FitOptions{MergeGroups: -1}); err == nil {
		t.Error("negative merge groups accepted")
	}
}
