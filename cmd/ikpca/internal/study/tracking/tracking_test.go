package tracking

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/studytest"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// The script and interpreter of the scikit-learn side, from this package's directory.
const (
	testPython = "/usr/bin/python3"
	testScript = "../../../../../bench/sklearn_fit.py"
)

// rowsOf returns the rows of one method, in order.
func rowsOf(rows []Row, method string) []Row {
	var out []Row
	for _, r := range rows {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// TestCompare runs the comparison on 400 MAGIC points and checks what the measurements
// must show whatever the machine:
//   - rank r: the errors shrink as r grows (measured 0.084, 5e-4, 2e-5 for the top-5
//     eigenvalues and 0.42, 0.01, 0.0013 for the subspace at r = 5, 10, 20), and the
//     certificate holds against the true ‖K′ − K̃‖₂ (to the rounding of the Lanczos
//     measurement, 1e-12 relative);
//   - exact growth equals its batch reference to rounding: eigenvalues within 1e-10
//     relative (kpca's growth tolerance) and subspaces within 1e-8 (rounding, 1e-13·λ₁,
//     over the gap of at least 0.04·λ₁ of this spectrum);
//   - SKPCA and Chin–Suter hold no more memory than the rank-r model they match;
//   - the tables have a row per model and a sine per model and j, and the figure draws.
func TestCompare(t *testing.T) {
	const k = 5
	o := CompareOptions{Dataset: "magic", N: 400, Ranks: []int{5, 10, 20}, Components: k, M0: 40, ExactN: 150,
		ChinSuterRanks: []int{5}, Chunk: 50, Seed: 1}
	res, err := Compare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 400 || res.Dim != 10 || len(res.Exact) != k+1 || len(res.ExactUncentred) != k+1 || len(res.ExactGrowth) != k+1 {
		t.Fatalf("n %d, dim %d, references %d, %d, %d", res.N, res.Dim, len(res.Exact), len(res.ExactUncentred), len(res.ExactGrowth))
	}
	if !(res.Residual <= 1e-11) {
		t.Errorf("reference residual %.3g·λ₁, want ≤ 1e-11 (Lanczos stops at 1e-12)", res.Residual)
	}
	rank := rowsOf(res.Rows, MethodRank)
	if len(rank) != 3 || len(rowsOf(res.Rows, MethodSKPCA)) != 3 || len(rowsOf(res.Rows, MethodChinSuter)) != 1 || len(rowsOf(res.Rows, MethodExact)) != 1 {
		t.Fatalf("%d rows: %+v", len(res.Rows), res.Rows)
	}
	budget := map[int]float64{}
	for i, r := range rank {
		budget[r.Rank] = r.Bytes
		if i > 0 {
			prev := rank[i-1]
			if !(r.EigenError < prev.EigenError) || !(r.Sines[k-1] < prev.Sines[k-1]) {
				t.Errorf("r = %d: errors %.3g and %.3g, not below r = %d's %.3g and %.3g", r.Rank, r.EigenError, r.Sines[k-1],
					prev.Rank, prev.EigenError, prev.Sines[k-1])
			}
		}
		if !(r.TrueError > 0) || !(r.TrueError <= r.Bound*(1+1e-12)) || r.Outside != 0 {
			t.Errorf("r = %d: ‖K′ − K̃‖₂ = %.6g, certificate %.6g, %d eigenvalues outside their intervals", r.Rank, r.TrueError, r.Bound, r.Outside)
		}
	}
	for _, r := range res.Rows {
		if len(r.Values) != k || len(r.Sines) != k || r.Best < 1 || r.Best > k || !(r.Seconds > 0) || !(r.Bytes > 0) {
			t.Errorf("%s r=%d: values %v, sines %v, best %d, %v s, %v bytes", r.Method, r.Rank, r.Values, r.Sines, r.Best, r.Seconds, r.Bytes)
		}
		for _, s := range r.Sines {
			if !(s >= 0 && s <= 1+1e-12) {
				t.Errorf("%s r=%d: sine %g", r.Method, r.Rank, s)
			}
		}
		if runtime.GOOS == "linux" && !(r.PeakRSS >= 0) {
			t.Errorf("%s r=%d: peak resident memory %v not measured", r.Method, r.Rank, r.PeakRSS)
		}
		switch r.Method {
		case MethodExact:
			if !(r.EigenError <= 1e-10) || !(slices.Max(r.Sines) <= 1e-8) || r.Points != 150 {
				t.Errorf("exact growth to %d points: eigenvalues %.3g, sines %.3g", r.Points, r.EigenError, r.Sines)
			}
		case MethodSKPCA, MethodChinSuter:
			if r.Bytes > budget[r.Rank] {
				t.Errorf("%s at r = %d: %v bytes, more than the rank-r model's %v", r.Method, r.Rank, r.Bytes, budget[r.Rank])
			}
		}
	}
	outs := res.outputs()
	if len(outs) != 2 {
		t.Fatalf("%d outputs", len(outs))
	}
	if n := studytest.Lines(t, outs[0].Table); n != len(res.Rows)+1 {
		t.Errorf("rank table: %d lines, want %d", n, len(res.Rows)+1)
	}
	if n := studytest.Lines(t, outs[1].Table); n != k*len(res.Rows)+1 {
		t.Errorf("sines table: %d lines, want %d", n, k*len(res.Rows)+1)
	}
	if !strings.Contains(outs[0].Markdown, "| ikpca rank r | 20 | m0 = 40 | 400 |") {
		t.Errorf("markdown:\n%s", outs[0].Markdown)
	}
	fig, err := drawRank(outs[0].Table, "magic")
	studytest.CheckPNG(t, fig, err)
	if len(fig.Panels) != 3 || len(fig.Panels[2].Curves) != 4 {
		t.Errorf("figure: %d panels, %d curves in the last", len(fig.Panels), len(fig.Panels[2].Curves))
	}
	h := res.headline(10).Markdown
	if !strings.Contains(h, "### Rank 10 on MAGIC: 400 points") || !strings.Contains(h, "| holds |") {
		t.Errorf("headline:\n%s", h)
	}
}

// TestCompareOptions: options the comparison cannot run with are ErrOptions, before any
// work.
func TestCompareOptions(t *testing.T) {
	ok := CompareOptions{Dataset: "magic", N: 100, Ranks: []int{5}, Components: 3, M0: 20}
	for _, tc := range []struct {
		name string
		edit func(*CompareOptions)
	}{
		{"unknown data set", func(o *CompareOptions) { o.Dataset = "nosuch" }},
		{"no ranks", func(o *CompareOptions) { o.Ranks = nil }},
		{"rank below k", func(o *CompareOptions) { o.Ranks = []int{2} }},
		{"start not above the rank", func(o *CompareOptions) { o.M0 = 5 }},
		{"start of every point", func(o *CompareOptions) { o.M0 = 100 }},
		{"exact growth within the start", func(o *CompareOptions) { o.ExactN = 20 }},
		{"exact growth beyond the points", func(o *CompareOptions) { o.ExactN = 101 }},
		{"too few sketch rows", func(o *CompareOptions) { o.SketchRows = 2 }},
		{"Chin–Suter at another rank", func(o *CompareOptions) { o.ChinSuterRanks = []int{6} }},
		{"unknown solver", func(o *CompareOptions) { o.Sklearn = []string{"lobpcg"} }},
		{"chunk", func(o *CompareOptions) { o.Chunk = -1 }},
	} {
		o := ok
		tc.edit(&o)
		_, err := Compare(context.Background(), o)
		studytest.Refused(t, tc.name, err)
	}
	studytest.Cancelled(t, "Compare", func(ctx context.Context) error { _, err := Compare(ctx, ok); return err })
}

// TestWindow runs the window experiment on 150 + 150 MAGIC points. The exact window
// holds exactly the recent points, so its top subspace is the batch's: its sine is at
// the resolution of the measure (√ε ≈ 1e-8; 1e-6 allows for a small gap), at every
// measurement. Once the window holds hadrons only, the window models must be closer to
// the recent points than the growing ones, which still hold every gamma row (measured:
// means 2e-8 and 0.024 for the windows, 0.45 for both growing models), and the growing
// models must be farther than before the change (0.45 against 0.23).
func TestWindow(t *testing.T) {
	o := WindowOptions{PerClass: 150, Size: 60, WindowRank: 8, Rank: 10, Exact: true, Components: 3, Every: 10, Seed: 1}
	res, err := Window(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Models) != 4 || len(res.Points) != (300-50)/10+1 {
		t.Fatalf("%d models, %d measurements", len(res.Models), len(res.Points))
	}
	mean := func(m string, from, to int) float64 {
		var s float64
		var c int
		for _, p := range res.Points {
			if p.Points >= from && p.Points <= to {
				s += p.Sines[m]
				c++
			}
		}
		return s / float64(c)
	}
	for _, p := range res.Points {
		if s := p.Sines[ModelWindow]; !(s <= 1e-6) {
			t.Errorf("after %d points the window is %.3g from the batch of its own points", p.Points, s)
		}
		for m, s := range p.Sines {
			if !(s >= 0 && s <= 1) {
				t.Errorf("%s after %d points: sine %g", m, p.Points, s)
			}
		}
	}
	after := func(m string) float64 { return mean(m, 210, 300) }
	for _, w := range []string{ModelWindow, ModelWindowRank} {
		for _, g := range []string{ModelGrowing, ModelGrowRank} {
			if !(after(w) < after(g)/4) {
				t.Errorf("after the change: %s at %.3g, not well below %s at %.3g", w, after(w), g, after(g))
			}
		}
	}
	for _, g := range []string{ModelGrowing, ModelGrowRank} {
		if before := mean(g, 0, 150); !(after(g) > before) {
			t.Errorf("%s: %.3g after the change, %.3g before", g, after(g), before)
		}
	}
	out := res.output()
	if n := studytest.Lines(t, out.Table); n != 4*len(res.Points)+1 {
		t.Errorf("window table: %d lines", n)
	}
	fig, err := drawWindow(out.Table, "")
	studytest.CheckPNG(t, fig, err)
	if len(fig.Curves) != 5 {
		t.Errorf("window figure: %d curves, want 4 models and the change", len(fig.Curves))
	}
	for _, bad := range []WindowOptions{
		{PerClass: 10, Size: 30},
		{PerClass: 100000},
		{PerClass: 100, Size: 50, Rank: 60},
		{PerClass: 100, Size: 50, Components: 60},
		{PerClass: 100, Size: 50, Rank: 2, Components: 3},
		{PerClass: 100, Size: 50, M0: 60},
	} {
		_, err := Window(context.Background(), bad)
		studytest.Refused(t, fmt.Sprintf("%+v", bad), err)
	}
}

// TestRun: Run returns every output with its figure, and the outputs' files are
// distinct.
func TestRun(t *testing.T) {
	outs, err := Run(context.Background(), Options{
		Compare:  []CompareOptions{{Dataset: "a9a", N: 120, Ranks: []int{6}, Components: 3, M0: 20, Seed: 2}},
		Headline: 6,
		Window:   WindowOptions{PerClass: 40, Size: 30, Components: 2, Every: 5, Seed: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := study.Files(outs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rank-a9a.csv", "rank-a9a.png", "sines-a9a.csv", "window.csv", "window.png"}
	if !slices.Equal(files, want) {
		t.Errorf("files %v, want %v (no headline: not MAGIC)", files, want)
	}
	tables := map[string]*study.Table{}
	for _, o := range outs {
		if o.Table != nil {
			tables[o.Name] = o.Table
		}
	}
	figs, err := study.Redraw(tables, Plots)
	if err != nil || len(figs) != 2 {
		t.Errorf("redraw: %d figures, %v", len(figs), err)
	}
}

// TestPoints: the seeded order is fixed, its prefixes agree, the points written read
// back exactly, and the class stream has every gamma row before every hadron row.
func TestPoints(t *testing.T) {
	all, err := Points("magic", 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := all.Dims(); r != 19020 {
		t.Fatalf("%d rows", r)
	}
	head, err := Points("magic", 100, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(head, all.Slice(0, 100, 0, 10)) {
		t.Error("the first 100 points are not the prefix of the order")
	}
	other, _ := Points("magic", 100, 8)
	if mat.Equal(head, other) {
		t.Error("another seed gives the same order")
	}
	var buf bytes.Buffer
	if err := table.Write(&buf, nil, head, 0); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 100 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for i, rec := range recs {
		for j, c := range rec {
			if v, err := strconv.ParseFloat(c, 64); err != nil || v != head.At(i, j) {
				t.Fatalf("(%d, %d): %q, want %v", i, j, c, head.At(i, j))
			}
		}
	}
	_, err = Points("nosuch", 10, 1)
	studytest.Refused(t, "unknown data set", err)

	ds := data.Magic()
	class := map[string]string{}
	for i, l := range ds.Labels {
		key := fmt.Sprint(ds.X.RawRowView(i))
		if c, ok := class[key]; ok && c != l {
			class[key] = "both"
			continue
		}
		class[key] = l
	}
	s, err := classStream(30, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		key := fmt.Sprint(s.RawRowView(i))
		want := "g"
		if i >= 30 {
			want = "h"
		}
		if c := class[key]; c != want && c != "both" {
			t.Errorf("row %d of the class stream is of class %q, want %q", i, c, want)
		}
	}
	_, err = classStream(7000, 3)
	studytest.Refused(t, "7000 hadron rows", err)
}

// TestReference: the Lanczos reference equals a full eigendecomposition of the centred
// and uncentred kernel matrices of 200 Yeast points, eigenvalues to 1e-12·λ₁ (a Ritz
// value errs by at most its residual, 1e-12·λ₁) and eigenvectors to 1e-9 (the residual
// over relative gaps above 1e-3); and truncationNorm is ‖K′ − VΛVᵀ‖₂ formed densely, to
// 1e-12 relative.
func TestReference(t *testing.T) {
	X := data.Yeast().X.Slice(0, 200, 0, 8).(*mat.Dense)
	kern := kernel.RBF{Sigma: 0.5}
	km := newKernelMatrix(kern, X)
	ref, err := km.references(context.Background(), 6, true, 4)
	if err != nil {
		t.Fatal(err)
	}
	K := kernel.Matrix(kern, X)
	for _, c := range []struct {
		name string
		a    *mat.SymDense
		vals []float64
		vecs *mat.Dense
	}{{"centred", kernel.Centre(K), ref.values, ref.vectors}, {"uncentred", K, ref.uvalues, ref.uvectors}} {
		var W mat.Dense
		want, err := native.EigenSym(nil, &W, c.a)
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range c.vals {
			w := want[len(want)-1-j]
			if math.Abs(v-w) > 1e-12*want[len(want)-1] {
				t.Errorf("%s λ%d = %.17g, want %.17g", c.name, j+1, v, w)
			}
			var d float64
			for i := range 200 {
				d += c.vecs.At(i, j) * W.At(i, len(want)-1-j)
			}
			if 1-math.Abs(d) > 1e-9 {
				t.Errorf("%s vector %d: |cos| = %.17g", c.name, j+1, math.Abs(d))
			}
		}
	}
	if !(ref.residual <= 1e-11) {
		t.Errorf("residual %.3g", ref.residual)
	}
	// ‖K′ − VΛVᵀ‖₂ with the top 4 pairs is λ₅ (exactly, up to rounding).
	got := km.truncationNorm(true, ref.values[:4], mat.DenseCopyOf(ref.vectors.Slice(0, 200, 0, 4)))
	if math.Abs(got-ref.values[4]) > 1e-12*ref.values[0] {
		t.Errorf("‖K′ − V₄Λ₄V₄ᵀ‖₂ = %.17g, want λ₅ = %.17g", got, ref.values[4])
	}
}

// sklearnAvailable reports whether the test's Python can import what the script needs,
// scikit-learn and NumPy; if not, the error says what is missing (no Python, or
// Python's own error, such as "No module named 'sklearn'").
func sklearnAvailable() error {
	if _, err := os.Stat(testPython); err != nil {
		return fmt.Errorf("no Python: %w", err)
	}
	out, err := exec.Command(testPython, "-c", "import numpy, sklearn.decomposition").CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return fmt.Errorf("%s cannot import scikit-learn: %s (%w)", testPython, lines[len(lines)-1], err)
	}
	return nil
}

// TestSklearn fits scikit-learn's KernelPCA with both solvers through the script on 80
// MAGIC points and compares its eigenvalues with a full eigendecomposition of the
// centred kernel matrix: both solvers are exact to rounding (arpack with tol = 0), so
// within 1e-9 relative; and the rows parse back with the points and components asked.
func TestSklearn(t *testing.T) {
	if err := sklearnAvailable(); err != nil {
		t.Skipf("%v: the scikit-learn side is not tested here; install Debian's python3-sklearn (ci/test.sh does)", err)
	}
	if _, err := os.Stat(testScript); err != nil {
		t.Fatal(err)
	}
	X, err := Points("magic", 80, 5)
	if err != nil {
		t.Fatal(err)
	}
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		t.Fatal(err)
	}
	const k = 4
	o := CompareOptions{Dataset: "magic", Components: k, Sklearn: []string{"dense", "arpack"}, Python: testPython, Script: testScript}
	rows, err := runSklearn(context.Background(), o, X, sigma, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := native.EigenSym(nil, nil, kernel.Centre(kernel.Matrix(kernel.RBF{Sigma: sigma}, X)))
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(want)
	if len(rows) != 2 || rows[0].Method != "sklearn-dense" || rows[1].Method != "sklearn-arpack" {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		rel, _ := study.EigenErrors(r.Values, want[:k])
		if r.Points != 80 || len(r.Values) != k || !(rel <= 1e-9) || !(r.Seconds > 0) || !(r.PeakRSS >= 0) {
			t.Errorf("%s: %d points, values %v (want %v, error %.3g), %v s, %v bytes", r.Method, r.Points, r.Values, want[:k], rel, r.Seconds, r.PeakRSS)
		}
	}
	o.Script = "../../../../../bench/no_such_script.py"
	if _, err := runSklearn(context.Background(), o, X, sigma, nil); err == nil {
		t.Error("a missing script is no error")
	}
}

// TestParseSklearn: the script's CSV is read by its column names, and malformed output is
// an error.
func TestParseSklearn(t *testing.T) {
	good := "method,n,d,solver,components,seconds,rss_before_mib,peak_rss_mib,lambda1,lambda2\n" +
		"sklearn-kernelpca,100,10,arpack,2,0.5,100,164,3.5,1.25\n"
	rows, err := parseSklearn([]byte(good), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Method != "sklearn-arpack" || rows[0].Points != 100 || rows[0].PeakRSS != 64<<20 ||
		!slices.Equal(rows[0].Values, []float64{3.5, 1.25}) {
		t.Errorf("%+v", rows)
	}
	for _, bad := range []string{
		"",
		"method,n\n",
		strings.Replace(good, "lambda2", "other", 1),
		strings.Replace(good, ",0.5,", ",x,", 1),
		strings.Replace(good, ",1.25", ",", 1),
	} {
		if _, err := parseSklearn([]byte(bad), 2); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
