package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
)

func TestMain(m *testing.M) { beamtest.Main(m) }

// TestFitProject: fit with --output, then project with the written model, for each
// method (SKPCA; Nyström KPCA on sampled landmarks and on a landmarks file, with σ by
// the median heuristic): the model decodes and has seen every point, every point is
// scored twice alike, and the bad line is a dead letter in both runs. The Nyström model
// is also checked against a one-process fit.
func TestFitProject(t *testing.T) {
	dir := beamtest.TempDir(t)
	X, text := toyInput(300, ';')
	var b strings.Builder
	b.WriteString("a;b;c\n" + text)
	b.WriteString("1;x;2\n")
	in := filepath.Join(dir, "in.csv")
	beamtest.WriteFile(t, in, []byte(b.String()))
	// The landmarks file: the input's format, its header and 12 points.
	lf := filepath.Join(dir, "landmarks.csv")
	beamtest.WriteFile(t, lf, []byte(strings.Join(strings.SplitAfter(b.String(), "\n")[:13], "")))
	for _, c := range []struct {
		name      string
		edit      func(*options)
		landmarks int
	}{
		{"skpca", func(o *options) { o.features, o.sketch = 64, 5 }, 0},
		{"nystrom sampled", func(o *options) { o.method, o.landmarks = "nystrom", 20 }, 20},
		{"nystrom file", func(o *options) { o.method, o.landmarksFile = "nystrom", lf }, 12},
	} {
		sub := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		model := filepath.Join(sub, "m")
		fit := options{mode: "fit", method: "skpca", input: in, sep: ";", header: true, format: "csv", model: model,
			output: filepath.Join(sub, "fit"), seed: 1, block: 7}
		c.edit(&fit)
		p, err := build(context.Background(), fit)
		if err != nil {
			t.Fatal(err)
		}
		if err := ptest.Run(p); err != nil {
			t.Fatal(err)
		}
		raw := beamtest.ReadFile(t, model)
		m, err := ikpcabeam.DecodeModel(raw)
		if err != nil {
			t.Fatal(err)
		}
		if m.Len() != 300 || m.Dim() != 3 {
			t.Errorf("%s: model of %d points of dimension %d, want 300 of 3", c.name, m.Len(), m.Dim())
		}
		if c.landmarks > 0 {
			checkNystrom(t, c.name, m, X, c.landmarks)
		} else if _, ok := m.(*ikpcabeam.SKPCA); !ok {
			t.Errorf("%s: a %T", c.name, m)
		}
		proj := fit
		proj.mode, proj.output, proj.k = "project", filepath.Join(sub, "project"), 5
		if p, err = build(context.Background(), proj); err != nil {
			t.Fatal(err)
		}
		if err := ptest.Run(p); err != nil {
			t.Fatal(err)
		}
		// The lines of the shards prefix-SSSSS-of-NNNNN.csv, sorted.
		sorted := func(prefix string) []string {
			files, _ := filepath.Glob(prefix + "-*-of-*.csv")
			if len(files) == 0 {
				t.Fatalf("no files %s-*-of-*.csv", prefix)
			}
			var b []byte
			for _, f := range files {
				c := beamtest.ReadFile(t, f)
				b = append(b, c...)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			slices.Sort(lines)
			return lines
		}
		// Fit projects on all components, project on 5: the first five scores alike.
		first5 := func(lines []string) string {
			var out []string
			for _, l := range lines {
				f := strings.Split(l, ",")
				out = append(out, strings.Join(f[:min(len(f), 8)], ","))
			}
			return strings.Join(out, "\n")
		}
		a, d := sorted(fit.output), sorted(proj.output)
		if len(a) != 300 || len(d) != 300 || first5(a) != first5(d) || len(strings.Split(d[0], ",")) != 8 {
			t.Errorf("%s: %d scores when fitting, %d when projecting, or they differ", c.name, len(a), len(d))
		}
		for _, f := range []string{fit.output, proj.output} {
			if d := sorted(f + ".dead"); len(d) != 1 || !strings.HasSuffix(d[0], `,302,"column 2: ""x"" is not a number",1;x;2`) {
				t.Errorf("%s: %s: dead letters %q", c.name, f, d)
			}
		}
	}
}

// checkNystrom checks the command's Nyström model: r landmarks, the RBF kernel with the
// median heuristic's σ on them, and the eigenvalues of nystrom.Model fed X in one
// process on the same landmarks and kernel, to 1e-12·λ₁ (compensated sums: both are
// the eigenvalues of the same r'×r' matrix to a few ε; TestNystromMatchesSingleProcess
// in ikpcabeam explains the bound).
func checkNystrom(t *testing.T, name string, m ikpca.Model, X *mat.Dense, r int) {
	t.Helper()
	got, ok := m.(*ikpcabeam.Nystrom)
	if !ok {
		t.Fatalf("%s: a %T", name, m)
	}
	var L mat.Dense
	got.Landmarks(&L)
	if rows, _ := L.Dims(); rows != r {
		t.Fatalf("%s: %d landmarks, want %d", name, rows, r)
	}
	sigma, err := kernel.DefaultBandwidth(&L)
	if err != nil {
		t.Fatal(err)
	}
	if spec := got.Kernel().(kernel.Specified).Spec(); spec.Name != "rbf" || spec.Sigma != sigma {
		t.Errorf("%s: kernel %+v, want rbf with σ = %v", name, spec, sigma)
	}
	single, err := nystrom.New(kernel.RBF{Sigma: sigma}, &L, nystrom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := single.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	a, b := got.Values(nil), single.Values(nil)
	if len(a) != len(b) || len(b) == 0 {
		t.Fatalf("%s: %d values, single process %d", name, len(a), len(b))
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12*b[0] {
			t.Errorf("%s: λ%d = %v, single process %v", name, i, a[i], b[i])
		}
	}
}

// TestBuildErrors: bad flags are errors before anything runs. (A landmarks file
// without a valid landmark is an error when the pipeline runs: TestInputs.)
func TestBuildErrors(t *testing.T) {
	dir := beamtest.TempDir(t)
	in := filepath.Join(dir, "in.csv")
	beamtest.WriteFile(t, in, []byte("1,2\n3,4\n"))
	junk := filepath.Join(dir, "junk")
	for f, text := range map[string]string{junk: "not a model"} {
		beamtest.WriteFile(t, f, []byte(text))
	}
	ok := options{mode: "fit", method: "skpca", input: in, format: "csv", sep: ",", model: filepath.Join(dir, "m"), features: 8, sketch: 2, sigma: 1, block: 256}
	for _, c := range []struct {
		edit func(*options)
		want string
	}{
		{func(o *options) { o.mode = "" }, "--mode"},
		{func(o *options) { o.input = "" }, "required"},
		{func(o *options) { o.format = "json" }, "--format"},
		{func(o *options) { o.sep = "ab" }, "--sep"},
		{func(o *options) { o.columns = "3-1" }, "--columns"},
		{func(o *options) { o.format = "libsvm" }, "--dim"},
		{func(o *options) { o.features = 7 }, "even"},
		{func(o *options) { o.method = "pca" }, "--method"},
		{func(o *options) { o.block = 0 }, "--block"},
		{func(o *options) { o.landmarks = 5 }, "for --method=nystrom"},
		{func(o *options) { o.method = "nystrom" }, "either"},
		{func(o *options) { o.method, o.landmarks, o.landmarksFile = "nystrom", 5, in }, "either"},
		{func(o *options) { o.method, o.landmarks = "nystrom", -1 }, "either"},
		{func(o *options) { o.method, o.landmarksFile = "nystrom", filepath.Join(dir, "none.csv") }, "none.csv"},
		{func(o *options) { o.input = filepath.Join(dir, "none*.csv") }, "no file"},
		{func(o *options) { o.mode, o.output = "project", "" }, "--output"},
		{func(o *options) { o.mode, o.output, o.model = "project", filepath.Join(dir, "s"), junk }, "model"},
	} {
		o := ok
		c.edit(&o)
		if _, err := build(context.Background(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one with %q", o, err, c.want)
		}
	}
	if _, err := build(context.Background(), ok); err != nil {
		t.Errorf("valid options: %v", err)
	}
	nys := ok
	nys.method, nys.landmarksFile = "nystrom", in
	if _, err := build(context.Background(), nys); err != nil {
		t.Errorf("valid Nyström options: %v", err)
	}
}

// TestCompressedInput: a .gz copy of a CSV file fits to the model of the file itself
// (sameFit), SKPCA with σ by the median heuristic on the first lines and Nyström KPCA
// on a landmarks file (both read the field count from the first line). A gzip file
// named without .gz is an error, not a fit of its compressed bytes.
func TestCompressedInput(t *testing.T) {
	dir := beamtest.TempDir(t)
	var b strings.Builder
	b.WriteString("a;b;c\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%g;%g;%g\n", float64(i%7)/7, float64(i%11)/11, float64(i%13)/13)
	}
	plain, packed, misnamed := filepath.Join(dir, "in.csv"), filepath.Join(dir, "in.csv.gz"), filepath.Join(dir, "packed.csv")
	lf := filepath.Join(dir, "landmarks.csv")
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for f, text := range map[string][]byte{
		plain: []byte(b.String()), packed: z.Bytes(), misnamed: z.Bytes(),
		lf: []byte(strings.Join(strings.SplitAfter(b.String(), "\n")[:11], "")),
	} {
		beamtest.WriteFile(t, f, text)
	}
	for _, c := range []struct {
		name string
		edit func(*options)
	}{
		{"skpca", func(o *options) { o.features, o.sketch = 64, 5 }},
		{"nystrom", func(o *options) { o.method, o.landmarksFile = "nystrom", lf }},
	} {
		t.Run(c.name, func(t *testing.T) {
			models := map[string][]byte{}
			for _, in := range []string{plain, packed} {
				o := options{mode: "fit", method: "skpca", input: in, sep: ";", header: true, format: "csv",
					model: filepath.Join(dir, c.name+"-"+filepath.Base(in)+".model"), seed: 1, block: 256}
				c.edit(&o)
				p, err := build(context.Background(), o)
				if err != nil {
					t.Fatalf("%s, %s: %v", c.name, in, err)
				}
				if err := ptest.Run(p); err != nil {
					t.Fatalf("%s, %s: %v", c.name, in, err)
				}
				if models[in], err = os.ReadFile(o.model); err != nil {
					t.Fatalf("%s, %s: %v", c.name, in, err)
				}
			}
			sameFit(t, models[plain], models[packed], 200, 3)
			o := options{mode: "fit", method: "skpca", input: misnamed, sep: ";", header: true, format: "csv",
				model: filepath.Join(dir, "misnamed.model"), seed: 1, block: 256}
			c.edit(&o)
			if _, err := build(context.Background(), o); err == nil || !strings.Contains(err.Error(), "gzip") {
				t.Errorf("%s: a gzip file named %s: error %v, want one about gzip", c.name, misnamed, err)
			}
		})
	}
}

// sameFit checks that two fits of the same text, one read from a .gz file, are the
// same model: bit for bit when each file is read in one bundle (as prism does unless a
// bundle is slow), and otherwise up to the order of the merges, since prism may split
// the plain file's read (it splits a slow bundle of a splittable DoFn) and not the .gz
// file's. So: the same bytes, or the same kernel Spec bit for bit (σ from the same
// first lines), n points of dimension d, and eigenvalues alike — SKPCA's within the
// sum of the two sketches' bounds Δ + Δ' (both bound the eigenvalues of the same
// features' covariance from below: docs/design.md, "Beyond one machine"), Nyström's
// compensated sums to 1e-12·λ₁ (checkNystrom's bound).
func sameFit(t *testing.T, plain, packed []byte, n, d int) {
	t.Helper()
	if bytes.Equal(plain, packed) {
		return
	}
	a, err := ikpcabeam.DecodeModel(plain)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ikpcabeam.DecodeModel(packed)
	if err != nil {
		t.Fatalf("the .gz file's model: %v", err)
	}
	if a.Len() != n || b.Len() != n || a.Dim() != d || b.Dim() != d {
		t.Fatalf("models of %d and %d points of dimension %d and %d, want %d of %d", a.Len(), b.Len(), a.Dim(), b.Dim(), n, d)
	}
	spec := func(m ikpca.Model) kernel.Spec {
		switch m := m.(type) {
		case *ikpcabeam.SKPCA:
			return m.Kernel().(kernel.Specified).Spec()
		case *ikpcabeam.Nystrom:
			return m.Kernel().(kernel.Specified).Spec()
		}
		t.Fatalf("a %T", m)
		return kernel.Spec{}
	}
	if sa, sb := spec(a), spec(b); sa != sb {
		t.Errorf("kernel %+v, from the .gz file %+v", sa, sb)
	}
	va, vb := a.Values(nil), b.Values(nil)
	if len(va) != len(vb) || len(va) == 0 {
		t.Fatalf("%d and %d eigenvalues", len(va), len(vb))
	}
	tol := 1e-12 * va[0]
	if sa, ok := a.(*ikpcabeam.SKPCA); ok {
		tol = sa.ErrorBound() + b.(*ikpcabeam.SKPCA).ErrorBound()
	}
	for i := range va {
		if math.Abs(va[i]-vb[i]) > tol {
			t.Errorf("λ%d = %v, from the .gz file %v (tolerance %v)", i, va[i], vb[i], tol)
		}
	}
}

// TestPrintsCounters: a run on prism prints the counters of namespace "ikpca" to
// stderr, one line each, sorted, among them the points projected: the 250 points of the
// input, not its bad line, when fitting with --output and when projecting.
func TestPrintsCounters(t *testing.T) {
	dir := beamtest.TempDir(t)
	var b strings.Builder
	for i := range 250 {
		fmt.Fprintf(&b, "%g,%g\n", float64(i%7)/7, float64(i%11)/11)
	}
	b.WriteString("1,x\n")
	in := filepath.Join(dir, "in.csv")
	beamtest.WriteFile(t, in, []byte(b.String()))
	fit := options{mode: "fit", method: "skpca", input: in, sep: ",", format: "csv", model: filepath.Join(dir, "m"),
		output: filepath.Join(dir, "fit.csv"), features: 16, sketch: 3, seed: 1, block: 64}
	proj := fit
	proj.mode, proj.output = "project", filepath.Join(dir, "project.csv")
	for _, o := range []options{fit, proj} {
		var stderr strings.Builder
		if err := run(context.Background(), o, &stderr); err != nil {
			t.Fatalf("%s: %v", o.mode, err)
		}
		var names []string
		for l := range strings.Lines(stderr.String()) {
			if !strings.HasPrefix(l, "ikpca-beam: ikpca.") {
				t.Errorf("%s: stderr line %q", o.mode, l)
			}
			names = append(names, l)
		}
		if !slices.IsSorted(names) {
			t.Errorf("%s: counters not sorted:\n%s", o.mode, stderr.String())
		}
		if !strings.Contains(stderr.String(), "ikpca-beam: ikpca.points_projected 250\n") {
			t.Errorf("%s: stderr\n%s\nwithout ikpca.points_projected 250", o.mode, stderr.String())
		}
	}
}

// toyInput returns n points of dimension 3 on a lattice (coordinates i mod 7, 11 and
// 13, scaled into [0, 1)) and their lines, fields separated by sep, each in the
// shortest form that reads back to the same bits.
func toyInput(n int, sep rune) (*mat.Dense, string) {
	X := mat.NewDense(n, 3, nil)
	var b strings.Builder
	for i := range n {
		X.SetRow(i, []float64{float64(i%7) / 7, float64(i%11) / 11, float64(i%13) / 13})
		fmt.Fprintf(&b, "%g%c%g%c%g\n", X.At(i, 0), sep, X.At(i, 1), sep, X.At(i, 2))
	}
	return X, b.String()
}
