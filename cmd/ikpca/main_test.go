package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// ikpca runs one command line and returns its exit status and outputs.
func ikpca(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return ikpcaCtx(t, context.Background(), stdin, args...)
}

func ikpcaCtx(t *testing.T, ctx context.Context, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errw bytes.Buffer
	code := run(ctx, args, env{in: strings.NewReader(stdin), out: &out, errw: &errw})
	if strings.Contains(errw.String(), "goroutine ") || strings.Contains(errw.String(), "panic") {
		t.Fatalf("%v: stack trace on stderr:\n%s", args, errw.String())
	}
	return code, out.String(), errw.String()
}

// notWritten fails for each of the files that exists: the outputs of a command that
// failed, or was interrupted, before it wrote them.
func notWritten(t *testing.T, files ...string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written: %v", f, err)
		}
	}
}

// yeastRun prepares a command's test: a temporary directory, the first n Yeast rows
// written there (writeYeast), and the path of a checkpoint in it.
func yeastRun(t *testing.T, n int) (dir, in, ckpt string) {
	t.Helper()
	dir = t.TempDir()
	return dir, writeYeast(t, dir, n), filepath.Join(dir, "m.ckpt")
}

// writeYeast writes the first n Yeast rows as CSV with a header and the sequence-name
// and class columns around the 8 features (columns 2–9), like the UCI file.
func writeYeast(t *testing.T, dir string, n int) string {
	t.Helper()
	ds := data.Yeast()
	var b strings.Builder
	b.WriteString("name," + strings.Join(ds.Features, ",") + ",class\n")
	for i := range n {
		b.WriteString(fmt.Sprintf("p%d", i))
		for _, v := range ds.X.RawRowView(i) {
			b.WriteString("," + strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteString("," + ds.Labels[i] + "\n")
	}
	path := filepath.Join(dir, "yeast.csv")
	writeFile(t, path, b.String(), 0o644)
	return path
}

func readCSV(t *testing.T, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, r := range recs[1:] {
		row := make([]float64, len(r))
		for j, s := range r {
			row[j], err = strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, row)
	}
	return out
}

func TestDemo(t *testing.T) {
	code, out, stderr := ikpca(t, "", "-n", "120", "--m0", "5", "--top", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + out)
	for _, want := range []string{"backend:", "UCI Yeast (embedded), 120 of 1484", "115 points added", "none dropped", "top 3:", "drift:", "batch:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	m := regexp.MustCompile(`within ([0-9.e+-]+)·λmax.*within ([0-9.e+-]+); probe: orthogonality ([0-9.e+-]+), residual ([0-9.e+-]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no drift line")
	}
	for _, s := range m[1:] {
		if v, err := strconv.ParseFloat(s, 64); err != nil || v > 1e-12 {
			t.Errorf("drift measure %s", s)
		}
	}
	// "demo" is the same command.
	if code, _, stderr := ikpca(t, "", "demo", "-n", "40"); code != 0 {
		t.Errorf("ikpca demo: exit %d: %s", code, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "1"}, {"-n", "99999"}, {"--top", "0"}, {"--bogus"}, {"extra-arg"},
		{"fit", "--method", "sideways"}, {"fit", "--m0", "0"}, {"fit", "--values", "-", "--scores", "-"},
		{"fit", "--header", "maybe"}, {"fit", "--sep", "ab"}, {"transform"},
		{"nystrom", "--dataset", "iris"}, {"experiment", "--mmax", "10"}, {"fit", "a", "b"},
		{"bogus"}, {"fitt"}, {"fit", "--m0", "5"}, {"nystrom", "--mmax", "3"}, {"fit", "--refresh-tol", "NaN"},
	} {
		code, _, stderr := ikpca(t, "1,2\n3,4\n", args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
		if !strings.HasPrefix(stderr, "ikpca: ") {
			t.Errorf("%v: stderr %q", args, stderr)
		}
	}
}

// TestFitTransform: fit's outputs equal the library's own model of the same points, and
// transform of the training points gives back fit's training scores.
func TestFitTransform(t *testing.T) {
	dir, in, ckpt := yeastRun(t, 150)
	vals, scores, proj := filepath.Join(dir, "v.csv"), filepath.Join(dir, "s.csv"), filepath.Join(dir, "p.csv")
	code, _, stderr := ikpca(t, "", "fit", "--columns", "2-9", "--m0", "12", "--k", "4",
		"--values", vals, "--scores", scores, "--model", ckpt, in)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	// Standard input and the model from the file.
	raw, _ := os.ReadFile(in)
	code, _, stderr = ikpca(t, string(raw), "transform", "--model", ckpt, "--columns", "mcg-nuc", "--k", "4", "--out", proj)
	if code == 0 {
		t.Fatal("a range of names was accepted") // columns are indices or names, not name ranges
	}
	code, _, stderr = ikpca(t, string(raw), "transform", "--model", ckpt, "--columns", "2-9", "--k", "4", "--out", proj, "-")
	if code != 0 {
		t.Fatalf("transform: exit %d: %s", code, stderr)
	}

	// The library's own model of the same points.
	x := mat.DenseCopyOf(data.Yeast().X.Slice(0, 150, 0, 8))
	sigma, _ := kernel.DefaultBandwidth(x)
	md, err := kpca.Fit(kernel.RBF{Sigma: sigma}, x.Slice(0, 12, 0, 8), kpca.Options{Components: kpca.All})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := md.AddRows(context.Background(), x.Slice(12, 150, 0, 8), nil); err != nil {
		t.Fatal(err)
	}
	want := md.Values(nil)
	v := readCSV(t, vals)
	if len(v) != len(want) {
		t.Fatalf("%d eigenvalues written, want %d", len(v), len(want))
	}
	for i := range v {
		if v[i][1] != want[i] {
			t.Fatalf("eigenvalue %d: %v, library %v", i, v[i][1], want[i])
		}
	}
	var ws mat.Dense
	if err := md.Scores(&ws, 4); err != nil {
		t.Fatal(err)
	}
	s, p := readCSV(t, scores), readCSV(t, proj)
	if len(s) != 150 || len(p) != 150 || len(s[0]) != 4 {
		t.Fatalf("%d score rows, %d projections", len(s), len(p))
	}
	for i := range 150 {
		for j := range 4 {
			if s[i][j] != ws.At(i, j) {
				t.Fatalf("score (%d, %d): %v, library %v", i, j, s[i][j], ws.At(i, j))
			}
			if math.Abs(p[i][j]-s[i][j]) > 1e-12 {
				t.Fatalf("transform of training point %d, component %d: %v, score %v", i, j, p[i][j], s[i][j])
			}
		}
	}
	// The checkpoint is the library's model.
	if loaded := loadCheckpoint(t, ckpt); loaded.Len() != 150 {
		t.Fatalf("checkpoint: %d points", loaded.Len())
	}
}

// TestMalformedInput: bad input is a clear error naming the file, line and field, with
// exit status 1.
func TestMalformedInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content string
		want          []string
	}{
		{"ragged.csv", "1,2,3\n4,5,6\n7,8\n", []string{"ragged.csv:3", "2 fields, want 3"}},
		{"text.csv", "a,b,c\n1,2,3\n4,five,6\n", []string{"text.csv:3", `column 2 ("b")`, `"five"`}},
		{"empty.csv", "", []string{"empty.csv", "no data rows"}},
		{"header-only.csv", "a,b\n", []string{"header-only.csv", "no data rows"}},
		{"nan.csv", "1,2\n3,NaN\n", []string{"nan.csv:2", "column 2", "NaN"}},
		{"inf.tsv", "1\t2\n-Inf\t4\n", []string{"inf.tsv:2", "column 1"}},
		{"quote.csv", "1,2\n3,\"4\n", []string{"quote.csv:2"}},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		writeFile(t, path, c.content, 0o644)
		code, _, stderr := ikpca(t, "", "fit", "--m0", "1", "--values", "", path)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (%s)", c.name, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, stderr, w)
			}
		}
	}
	// A missing file, and a corrupted model.
	if code, _, stderr := ikpca(t, "", "fit", filepath.Join(dir, "missing.csv")); code != 1 || !strings.Contains(stderr, "missing.csv") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.ckpt")
	os.WriteFile(bad, []byte("IKPCAMDL garbage"), 0o644)
	if code, _, stderr := ikpca(t, "1,2\n", "transform", "--model", bad); code != 1 || !strings.Contains(stderr, "bad encoding") {
		t.Errorf("bad checkpoint: exit %d, %s", code, stderr)
	}
	// Standard input names itself.
	if code, _, stderr := ikpca(t, "1,2\n3\n", "fit", "--m0", "1"); code != 1 || !strings.Contains(stderr, "<stdin>:2") {
		t.Errorf("stdin: exit %d, %s", code, stderr)
	}
}

// TestFitInterrupted: a fit cancelled part-way exits 130 and leaves a checkpoint of the
// points processed so far that loads and continues.
func TestFitInterrupted(t *testing.T) {
	_, in, ckpt := yeastRun(t, 200)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	afterAdd = func(n int) {
		if n == 77 {
			cancel()
		}
	}
	defer func() { afterAdd = nil }()
	code, _, stderr := ikpcaCtx(t, ctx, "", "fit", "--stream", "--columns", "2-9", "--model", ckpt, "--values", "", in)
	if code != 130 || !strings.Contains(stderr, "interrupted after 77 points") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	md := loadCheckpoint(t, ckpt)
	if md.Len() != 77 {
		t.Fatalf("checkpoint: %d points", md.Len())
	}
	if err := md.Add(data.Yeast().X.RawRowView(77)); err != nil {
		t.Fatal(err)
	}
}

func TestNystromCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "nys.csv")
	code, _, stderr := ikpca(t, "", "nystrom", "--dataset", "yeast", "--n", "120", "--mmax", "25", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := readCSV(t, out)
	if len(rows) != 25 || len(rows[0]) != 7 || rows[24][0] != 25 {
		t.Fatalf("%d rows", len(rows))
	}
	for i := 1; i < 25; i++ {
		if rows[i][1] > rows[0][1] {
			t.Errorf("Frobenius error grew from %g to %g", rows[0][1], rows[i][1])
		}
	}
}

func TestExperimentCommand(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := ikpca(t, "", "experiment", "--datasets", "yeast", "--mmax", "40", "--runs", "2",
		"--nystrom-n", "80", "--nystrom-mmax", "15", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + out)
	checkOutputs(t, dir, "fig1-yeast.csv", "fig1-yeast.png", "fig2-yeast.csv", "fig2-yeast.png")
}

// checkOutputs checks that the files exist in dir and that the PNGs decode.
// runOK runs ikpca with args and returns its standard output, failing the test unless
// it exits 0.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := ikpca(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return out
}

// usageErrors fails for each of the cases that ikpca, run with base followed by the
// case, does not refuse as a usage error (exit 2).
func usageErrors(t *testing.T, base []string, cases ...[]string) {
	t.Helper()
	for _, args := range cases {
		if code, _, _ := ikpca(t, "", append(slices.Clone(base), args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func checkOutputs(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		raw := readFile(t, filepath.Join(dir, f))
		if strings.HasSuffix(f, ".png") {
			if _, err := png.Decode(strings.NewReader(raw)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}

// loadCheckpoint loads a checkpoint file.
func loadCheckpoint(t *testing.T, path string) *kpca.Model {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	md := new(kpca.Model)
	if _, err := md.UnmarshalBinaryFrom(f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return md
}

// readFile returns the content of the file path, failing the test if it cannot be read.
func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// writeFile writes content to path and returns path.
func writeFile(t *testing.T, path, content string, perm fs.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	return path
}
