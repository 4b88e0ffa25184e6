package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/kernel"
)

// The command's inputs: a landmarks file read in the pipeline, and empty, all-bad,
// mixed and compressed inputs.

// TestLandmarksFileGraph: with --landmarks-file the landmarks are read in the pipeline,
// not held in its graph: for r = 2000 landmarks of dimension d = 784 (8·r·d = 12.5 MB,
// over Dataflow's 10 MB graph limit), the serialised pipeline — what a runner receives
// — stays below 1 MB.
func TestLandmarksFileGraph(t *testing.T) {
	const r, d = 2000, 784
	dir := beamtest.TempDir(t)
	var b strings.Builder
	for i := range r {
		for j := range d {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", (i*(j+1))%97)
		}
		b.WriteByte('\n')
	}
	lf, in := filepath.Join(dir, "landmarks.csv"), filepath.Join(dir, "in.csv")
	beamtest.WriteFile(t, lf, []byte(b.String()))
	beamtest.WriteFile(t, in, []byte(strings.SplitAfter(b.String(), "\n")[0]))
	o := options{mode: "fit", method: "nystrom", landmarksFile: lf, input: in, sep: ",", format: "csv",
		model: filepath.Join(dir, "m"), seed: 1, block: 256}
	p, err := build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	size, err := beamtest.GraphSize(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the graph takes %d bytes", size)
	if size > 1<<20 {
		t.Errorf("the graph takes %d bytes, above 1 MB (the landmarks take %d)", size, 8*r*d)
	}
}

// TestLandmarksFileModel: the model the command fits on a landmarks file, read in the
// pipeline, is FitNystrom's with the file's good lines as LandmarkPoints, in the file's
// order, and σ by the median heuristic on them (sameFit: the same bytes, or
// eigenvalues to 1e-12·λ₁ if the runner merges in another order); a line of the
// landmarks file that is not a point is a dead letter with its reason, and the model
// is built on the others.
func TestLandmarksFileModel(t *testing.T) {
	dir := beamtest.TempDir(t)
	X, text := toyInput(300, ';')
	var b strings.Builder
	b.WriteString("a;b;c\n" + text)
	in, lf := filepath.Join(dir, "in.csv"), filepath.Join(dir, "landmarks.csv")
	// The landmarks: the header, 6 points, a bad line, 6 more points.
	lines := strings.SplitAfter(b.String(), "\n")
	landmarks := strings.Join(lines[:7], "") + "1;x;2\n" + strings.Join(lines[7:13], "")
	for f, text := range map[string]string{in: b.String(), lf: landmarks} {
		beamtest.WriteFile(t, f, []byte(text))
	}
	o := options{mode: "fit", method: "nystrom", landmarksFile: lf, input: in, sep: ";", header: true, format: "csv",
		model: filepath.Join(dir, "m"), seed: 1, block: 16}
	if err := run(context.Background(), o, io.Discard); err != nil {
		t.Fatal(err)
	}
	got := beamtest.ReadFile(t, o.model)
	// The reference: FitNystrom on the same points with the 12 good landmarks given.
	L := mat.DenseCopyOf(X.Slice(0, 12, 0, 3))
	p, s := beam.NewPipelineWithRoot()
	csvOpts := ikpcabeam.CSVOptions{Comma: ';', Header: true, Dim: 3, Fields: 3}
	points, _, err := ikpcabeam.ReadCSV(s, in, csvOpts)
	if err != nil {
		t.Fatal(err)
	}
	model, _, err := ikpcabeam.FitNystrom(s, points, ikpcabeam.NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf"}, LandmarkPoints: L},
		ikpcabeam.FitOptions{Block: 16})
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref")
	if err := ikpcabeam.WriteModel(s, ref, model); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	want := beamtest.ReadFile(t, ref)
	sameFit(t, want, got, 300, 3)
	m, err := ikpcabeam.DecodeModel(got)
	if err != nil {
		t.Fatal(err)
	}
	var gotL mat.Dense
	m.(*ikpcabeam.Nystrom).Landmarks(&gotL)
	if !mat.Equal(&gotL, L) {
		t.Errorf("landmarks\n%v\nwant the file's good lines in order\n%v", mat.Formatted(&gotL), mat.Formatted(L))
	}
	dead := readDead(t, o.model+".dead")
	if len(dead) != 1 || !strings.HasPrefix(dead[0], lf+",") || !strings.Contains(dead[0], `"column 2: ""x"" is not a number",1;x;2`) {
		t.Errorf("dead letters %q, want the landmarks file's bad line with its reason", dead)
	}
}

// readDead returns the lines of the shards (dead letters, or scores) prefix-SSSSS-of-NNNNN.csv.
func readDead(t *testing.T, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob(prefix + "-*-of-*.csv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dead-letter shards %s-*-of-*.csv (%v)", prefix, err)
	}
	var lines []string
	for _, f := range files {
		b := beamtest.ReadFile(t, f)
		if len(b) > 0 {
			lines = append(lines, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
		}
	}
	return lines
}

// TestInputs runs the command, for SKPCA and Nyström KPCA on sampled landmarks and on a
// landmarks file, on inputs that are
//   - empty: an error naming the input;
//   - all bad (lines that are not points): an error naming the input and the
//     dead-letter file, from the pipeline's ErrNoPoints (SKPCA with --sigma, which the
//     pipeline needs: without it the command has no two points to set σ by, and says
//     so before it runs);
//   - mixed, good and bad lines: the right model — SKPCA's that of a file of the good
//     lines only (sameFit), Nyström's the one-process fit on its own landmarks
//     (checkNystrom) — and each bad line a dead letter with a reason, so that the
//     model's points and the dead letters add up to the input's lines;
//   - a .gz copy of the mixed file: the plain file's model (sameFit; for sampled
//     landmarks, whose sample hashes the file's name, checkNystrom again).
//
// An error leaves no model file. A landmarks file of bad lines only, or empty, is an
// error naming it, and one of a single landmark one about the median heuristic.
func TestInputs(t *testing.T) {
	dir := beamtest.TempDir(t)
	var good, mixed strings.Builder
	bad := []string{"1,x,2", "1,2", "NaN,1,2", "foo", "1,2,3,4"}
	X, text := toyInput(120, ',')
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines[:len(lines)-1] { // the last is the empty rest after the last "\n"
		good.WriteString(l)
		mixed.WriteString(l)
		if i%24 == 1 {
			mixed.WriteString(bad[i/24] + "\n")
		}
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write([]byte(mixed.String())); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"empty.csv":     nil,
		"bad.csv":       []byte("a,b,c\nx,y,z\nfoo\n\n1;2;3\n"),
		"good.csv":      []byte(good.String()),
		"mixed.csv":     []byte(mixed.String()),
		"mixed.csv.gz":  z.Bytes(),
		"landmarks.csv": []byte(strings.Join(strings.SplitAfter(good.String(), "\n")[:10], "")),
		"badlm.csv":     []byte("x,y,z\n1,x,2\n"),
		"emptylm.csv":   []byte("\n"),
		"onelm.csv":     []byte("1,2,3\n"),
	}
	for f, text := range files {
		beamtest.WriteFile(t, filepath.Join(dir, f), text)
	}
	path := func(f string) string { return filepath.Join(dir, f) }
	methods := []struct {
		name      string
		edit      func(*options)
		landmarks int
	}{
		{"skpca", func(o *options) { o.features, o.sketch, o.sigma = 64, 5, 1 }, 0},
		{"nystrom-sampled", func(o *options) { o.method, o.landmarks = "nystrom", 20 }, 20},
		{"nystrom-file", func(o *options) { o.method, o.landmarksFile = "nystrom", path("landmarks.csv") }, 10},
	}
	fit := func(method int, in string) (options, error) {
		o := options{mode: "fit", method: "skpca", input: path(in), sep: ",", format: "csv",
			model: path(methods[method].name + "-" + in + ".model"), seed: 1, block: 16}
		methods[method].edit(&o)
		return o, run(context.Background(), o, io.Discard)
	}
	noModel := func(o options) {
		t.Helper()
		if _, err := os.Stat(o.model); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a model file after an error (%v)", o.model, err)
		}
	}
	for i, m := range methods {
		t.Run(m.name, func(t *testing.T) {
			o, err := fit(i, "empty.csv")
			if err == nil || !strings.Contains(err.Error(), o.input) {
				t.Errorf("empty input: error %v, want one naming %s", err, o.input)
			}
			noModel(o)

			o, err = fit(i, "bad.csv")
			if want := fmt.Sprintf("no valid point in %s: every record is a dead letter, see %s", o.input, o.model+".dead-*-of-*.csv"); err == nil || err.Error() != want {
				t.Errorf("all-bad input: error %v, want %q", err, want)
			}
			noModel(o)
			// The failed fit's runner may have stopped its dead letters' write; the
			// command writes them again, every bad line with its reason.
			var texts []string
			for _, d := range readDead(t, o.model+".dead") {
				// source, offset, line, reason, record (FormatDeadLetter)
				f, err := csv.NewReader(strings.NewReader(d)).Read()
				if err != nil || len(f) != 5 || f[0] != o.input || f[3] == "" {
					t.Errorf("all-bad input: dead letter %q without its file, place or reason (%v)", d, err)
					continue
				}
				texts = append(texts, f[4])
			}
			slices.Sort(texts)
			if want := []string{"1;2;3", "a,b,c", "foo", "x,y,z"}; !slices.Equal(texts, want) {
				t.Errorf("all-bad input: dead letters end with %q, want %q (every line, once)", texts, want)
			}

			models := map[string]ikpcaModel{}
			for _, in := range []string{"mixed.csv", "mixed.csv.gz", "good.csv"} {
				if m.landmarks > 0 && in == "good.csv" {
					continue
				}
				o, err := fit(i, in)
				if err != nil {
					t.Fatalf("%s: %v", in, err)
				}
				raw := beamtest.ReadFile(t, o.model)
				model, err := ikpcabeam.DecodeModel(raw)
				if err != nil {
					t.Fatal(err)
				}
				models[in] = ikpcaModel{raw, model}
				if in == "good.csv" {
					continue
				}
				if m.landmarks > 0 {
					checkNystrom(t, m.name+" "+in, model, X, m.landmarks)
				}
				dead := readDead(t, o.model+".dead")
				if model.Len()+len(dead) != 125 || len(dead) != len(bad) {
					t.Errorf("%s: %d points in the model and %d dead letters, want 120 and %d", in, model.Len(), len(dead), len(bad))
				}
				for _, d := range dead {
					// file,offset,line,reason,record: a reason and one of the bad lines.
					f := strings.SplitN(d, ",", 4)
					if len(f) < 4 || !strings.HasPrefix(f[0], o.input) || f[3] == "" || !hasBadRecord(d, bad) {
						t.Errorf("%s: dead letter %q", in, d)
					}
				}
			}
			if m.name == "skpca" {
				sameFit(t, models["good.csv"].raw, models["mixed.csv"].raw, 120, 3)
			}
			if m.landmarks == 0 || m.name == "nystrom-file" {
				sameFit(t, models["mixed.csv"].raw, models["mixed.csv.gz"].raw, 120, 3)
			}
		})
	}
	t.Run("nystrom-bad-landmarks", func(t *testing.T) {
		for _, c := range []struct{ file, want string }{
			{"badlm.csv", "no valid landmark in " + path("badlm.csv") + ": every record is a dead letter, see " + path("badlm.csv.model.dead-*-of-*.csv")},
			{"emptylm.csv", "no valid landmark in " + path("emptylm.csv") + ": every record is a dead letter, see " + path("emptylm.csv.model.dead-*-of-*.csv")},
			// One landmark has no median distance, which σ needs.
			{"onelm.csv", "median"},
		} {
			o := options{mode: "fit", method: "nystrom", landmarksFile: path(c.file), input: path("mixed.csv"), sep: ",", format: "csv",
				model: path(c.file + ".model"), seed: 1, block: 16}
			if err := run(context.Background(), o, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want %q", c.file, err, c.want)
			}
			noModel(o)
		}
	})
}

// ikpcaModel is a model's encoding and the model.
type ikpcaModel struct {
	raw   []byte
	model interface{ Len() int }
}

// hasBadRecord reports a dead-letter line that ends with one of the bad records (CSV
// quotes those with commas).
func hasBadRecord(line string, bad []string) bool {
	for _, b := range bad {
		if strings.HasSuffix(line, ","+b) || strings.HasSuffix(line, `,"`+b+`"`) {
			return true
		}
	}
	return false
}

// TestOutputsSpareInputs: outputs that would replace or remove an input are refused
// before anything runs — scores or dead letters whose prefix makes an input file one of
// their shards (a write removes the shards of another count), a model that is an input
// or a shard — and the inputs are left as they were.
func TestOutputsSpareInputs(t *testing.T) {
	dir := beamtest.TempDir(t)
	path := func(f string) string { return filepath.Join(dir, f) }
	_, text := toyInput(40, ',')
	for _, f := range []string{"scores-00000-of-00002.csv", "scores-00001-of-00002.csv"} {
		beamtest.WriteFile(t, path(f), []byte(text))
	}
	base := options{mode: "fit", method: "skpca", input: path("scores-*-of-*.csv"), sep: ",", format: "csv",
		model: path("m"), seed: 1, block: 16, features: 16, sketch: 2, sigma: 1}
	for name, c := range map[string]struct {
		edit func(*options)
		want string
	}{
		"--output":                           {func(o *options) { o.output = path("scores") }, "--output"},
		"--output, another form of the path": {func(o *options) { o.output = dir + "/./scores" }, "--output"},
		"--dead":                             {func(o *options) { o.dead = path("scores") }, "--dead"},
		"--model an input":                   {func(o *options) { o.model = path("scores-00000-of-00002.csv") }, "--model"},
		"--model a shard":                    {func(o *options) { o.model, o.dead = path("d-00000-of-00001.csv"), path("d") }, "--dead"},
	} {
		o := base
		c.edit(&o)
		_, err := build(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %s", name, err, c.want)
		}
	}
	for _, f := range []string{"scores-00000-of-00002.csv", "scores-00001-of-00002.csv"} {
		if b, err := os.ReadFile(path(f)); err != nil || string(b) != text {
			t.Errorf("%s changed (%v)", f, err)
		}
	}
	// Another prefix is fine.
	o := base
	o.output = path("new")
	if _, err := build(context.Background(), o); err != nil {
		t.Errorf("another prefix: %v", err)
	}
}

// TestFirstLines: the first lines the command reads to count fields and set σ come
// from the files of the glob in the order of their names, after each file's header,
// and from the next file while the first holds too few: an empty first file (a part
// that a job wrote empty) does not end in "no data line". Only no data line in any
// file does.
func TestFirstLines(t *testing.T) {
	dir := beamtest.TempDir(t)
	for name, text := range map[string]string{
		"part-0.csv": "h\n",
		"part-1.csv": "h\n1,2\n\n3,4\n",
		"part-2.csv": "h\n5,6\n7,8\n",
		"none-0.csv": "h\n",
		"none-1.csv": "\n",
	} {
		beamtest.WriteFile(t, filepath.Join(dir, name), []byte(text))
	}
	ctx := context.Background()
	for _, c := range []struct {
		n    int
		want []string
	}{
		{1, []string{"1,2"}},
		{3, []string{"1,2", "3,4", "5,6"}},
		{10, []string{"1,2", "3,4", "5,6", "7,8"}},
	} {
		got, err := firstLines(ctx, filepath.Join(dir, "part-*.csv"), c.n, true)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%d lines: %q (%v), want %q", c.n, got, err, c.want)
		}
	}
	if got, err := firstLines(ctx, filepath.Join(dir, "none-*.csv"), 5, true); err == nil || !strings.Contains(err.Error(), "no data line") {
		t.Errorf("files without data: %q, %v; want an error that says so", got, err)
	}
}
