package main

import (
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// TestHeaderRule: a typo in the first row of a file without a header is an error asking
// for --header, not a header that silently drops the row; a header of names is taken,
// and stderr says so.
func TestHeaderRule(t *testing.T) {
	typo := "2.5O,1,2\n1,2,3\n4,5,6.5\n7,8,1\n"
	code, _, stderr := ikpca(t, typo, "fit")
	if code != 1 || !strings.Contains(stderr, "<stdin>:1:") || !strings.Contains(stderr, `"2.5O"`) || !strings.Contains(stderr, "--header") {
		t.Errorf("typo: exit %d: %s", code, stderr)
	}
	code, _, stderr = ikpca(t, typo, "fit", "--header", "no")
	if code != 1 || !strings.Contains(stderr, `"2.5O" is not a number`) {
		t.Errorf("typo with --header no: exit %d: %s", code, stderr)
	}
	code, out, stderr := ikpca(t, "x,y\n1,2\n3,4.5\n4,1\n", "fit")
	if code != 0 || !strings.Contains(stderr, "line 1 taken as a header") || strings.Count(out, "\n") != 3 {
		t.Errorf("header of names: exit %d: %s%s", code, out, stderr)
	}
	code, _, stderr = ikpca(t, "1,2\n3,4.5\n4,1\n", "fit")
	if code != 0 || stderr != "" {
		t.Errorf("numbers only: exit %d: %s", code, stderr)
	}
}

// TestYeastFile: the README's example reads the UCI Yeast file as shipped (runs of
// spaces, a name first and a class last). The fit runs on its first 120 lines
// (testdata/yeast-head.data, a copy) and equals the library's model of the same points;
// the whole file is read by nystrom, which uses only its first points.
func TestYeastFile(t *testing.T) {
	dir := t.TempDir()
	ckpt, scores := filepath.Join(dir, "yeast.ckpt"), filepath.Join(dir, "scores.csv")
	code, out, stderr := ikpca(t, "", "fit", "--columns", "2-9", "--model", ckpt, "--scores", scores, "testdata/yeast-head.data")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	x := mat.DenseCopyOf(data.Yeast().X.Slice(0, 120, 0, 8))
	sigma, err := kernel.DefaultBandwidth(x)
	if err != nil {
		t.Fatal(err)
	}
	md := loadCheckpoint(t, ckpt)
	if md.Len() != 120 || md.Kernel() != (kernel.RBF{Sigma: sigma}) || md.Options().Rank != 5 {
		t.Fatalf("checkpoint: %d points, kernel %v, rank %d", md.Len(), md.Kernel(), md.Options().Rank)
	}
	var pts mat.Dense
	md.Points(&pts)
	if !mat.Equal(&pts, x) {
		t.Error("the points read differ from the embedded Yeast data")
	}
	if n := strings.Count(out, "\n"); n != 6 { // a header and the top --k = 5 eigenvalues (a batch fit keeps --k)
		t.Errorf("%d lines of eigenvalues", n)
	}
	if rows := readCSV(t, scores); len(rows) != 120 || len(rows[0]) != 5 {
		t.Errorf("%d score rows", len(rows))
	}
	code, out, stderr = ikpca(t, "", "nystrom", "--columns", "2-9", "--n", "60", "--mmax", "4", "../../data/yeast.data")
	if code != 0 || strings.Count(out, "\n") != 5 {
		t.Errorf("nystrom on the whole file: exit %d: %s%s", code, out, stderr)
	}
	// --sep space, explicitly, and with standard input.
	raw, _ := os.ReadFile("testdata/yeast-head.data")
	if code, _, stderr := ikpca(t, string(raw), "fit", "--sep", "space", "--columns", "2-9", "--values", ""); code != 0 {
		t.Errorf("--sep space: exit %d: %s", code, stderr)
	}
}

// TestSmallInputs: a file of fewer than 10 rows fits with the defaults (--m0 adapts), and
// --k beyond the model's components is clipped with a note, by fit and transform alike.
func TestSmallInputs(t *testing.T) {
	dir := t.TempDir()
	three := "1,2\n3,4.5\n4,1\n"
	code, out, stderr := ikpca(t, three, "fit", "--scores", filepath.Join(dir, "s.csv"))
	if code != 0 || strings.Count(out, "\n") != 3 || stderr != "" {
		t.Errorf("3 rows: exit %d: %s%s", code, out, stderr)
	}
	if code, _, stderr := ikpca(t, three, "fit", "--m0", "5"); code != 2 || !strings.Contains(stderr, "more than the 3 points") {
		t.Errorf("--m0 5 of 3 rows: exit %d: %s", code, stderr)
	}
	if code, _, stderr := ikpca(t, "1,2\n", "fit", "--m0", "2"); code != 2 || !strings.Contains(stderr, "more than the 1 point") {
		t.Errorf("--m0 2 of 1 row: exit %d: %s", code, stderr)
	}
	if code, _, stderr := ikpca(t, "1,2\n", "fit", "--sigma", "1", "--scores", filepath.Join(dir, "one.csv"), "--values", ""); code != 1 ||
		!strings.Contains(stderr, "with 1 point") {
		t.Errorf("scores of 1 point: exit %d: %s", code, stderr)
	}

	// 40 points: 39 components (centred).
	in := writeYeast(t, dir, 40)
	ckpt, s := filepath.Join(dir, "m.ckpt"), filepath.Join(dir, "s40.csv")
	code, _, stderr = ikpca(t, "", "fit", "--columns", "2-9", "--k", "100", "--model", ckpt, "--scores", s, "--values", "", in)
	if code != 0 || !strings.Contains(stderr, "--k 100: the model has 39 components; the scores have 39 columns") {
		t.Errorf("fit --k 100: exit %d: %s", code, stderr)
	}
	if rows := readCSV(t, s); len(rows[0]) != 39 {
		t.Errorf("fit --k 100: %d columns", len(rows[0]))
	}
	code, out, stderr = ikpca(t, "", "transform", "--model", ckpt, "--columns", "2-9", "--k", "100", in)
	if code != 0 || !strings.Contains(stderr, "--k 100: the model has 39 components; the scores have 39 columns") ||
		strings.Count(strings.SplitN(out, "\n", 2)[0], ",") != 38 {
		t.Errorf("transform --k 100: exit %d: %s", code, stderr)
	}
}

// TestKernelFlags: names in any case, unknown names listed, scikit-learn's gamma, flags
// that do not apply, and bandwidths that underflow or overflow, all before or right after
// reading the data.
func TestKernelFlags(t *testing.T) {
	_, in, ckpt := yeastRun(t, 30)
	fit := func(args ...string) (int, string) {
		code, _, stderr := ikpca(t, "", append([]string{"fit", "--columns", "2-9", "--values", "", "--model", ckpt, in}, args...)...)
		return code, stderr
	}
	kernelOf := func() kernel.Kernel { return loadCheckpoint(t, ckpt).Kernel() }
	for _, c := range []struct {
		args []string
		want kernel.Kernel
	}{
		{[]string{"--kernel", "RBF", "--sigma", "0.5"}, kernel.RBF{Sigma: 0.5}},
		{[]string{"--gamma", "2"}, kernel.RBF{Gamma: 2}}, // recorded as given: γ = 1/2σ², σ = 0.5
		{[]string{"--kernel", "Laplacian", "--gamma", "4"}, kernel.Laplacian{Gamma: 4}},
		{[]string{"--kernel", "polynomial", "--gamma", "0.5", "--degree", "2", "--coef0", "0"}, kernel.Polynomial{Degree: 2, Gamma: 0.5}},
		{[]string{"--kernel", "polynomial"}, kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}},
		{[]string{"--kernel", "LINEAR"}, kernel.Linear{}},
		{[]string{"--kernel", "sigmoid"}, kernel.Sigmoid{Gamma: 1, Coef0: 1}},
		{[]string{"--kernel", "Sigmoid", "--gamma", "0.25", "--coef0", "-1.5"}, kernel.Sigmoid{Gamma: 0.25, Coef0: -1.5}},
		{[]string{"--kernel", "cosine"}, kernel.Cosine{}},
	} {
		if code, stderr := fit(c.args...); code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		if got := kernelOf(); got != c.want {
			t.Errorf("%v: kernel %v, want %v", c.args, got, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kernel", "gauss"}, "choose rbf, laplacian, polynomial, linear, sigmoid or cosine"},
		{[]string{"--gamma", "2", "--sigma", "1"}, "not both"},
		{[]string{"--gamma", "-1"}, "--gamma must be positive"},
		{[]string{"--kernel", "linear", "--gamma", "1"}, "--gamma applies to"},
		{[]string{"--kernel", "linear", "--sigma", "1"}, "--sigma applies to"},
		{[]string{"--degree", "2"}, "--degree applies to the polynomial kernel only"},
		{[]string{"--sigma", "1e-300"}, "underflows"},
		{[]string{"--sigma", "1e200"}, "overflows"},
		{[]string{"--gamma", "1e-320"}, "overflows"},
		{[]string{"--gamma", "1e308"}, "too large"},
		{[]string{"--kernel", "polynomial", "--gamma", "0"}, "--gamma must be positive and finite for the polynomial kernel"},
		{[]string{"--kernel", "polynomial", "--gamma", "1e-310"}, "subnormal"},
		{[]string{"--gamma", "1e8"}, "the kernel underflows on these data"},
		{[]string{"--sigma", "1e-4"}, "the kernel underflows on these data"},
		{[]string{"--kernel", "laplacian", "--sigma", "1e-6"}, "the kernel underflows on these data"},
		{[]string{"--sigma", "1e12"}, "cannot tell these points apart"},
		{[]string{"--kernel", "polynomial", "--degree", "2000"}, "overflows"},
		{[]string{"--kernel", "sigmoid", "--gamma", "0"}, "--gamma must be positive and finite for the sigmoid kernel"},
		{[]string{"--kernel", "sigmoid", "--gamma", "1e-310"}, "subnormal"},
		{[]string{"--kernel", "sigmoid", "--coef0", "inf"}, "--coef0 +Inf: want a finite number"},
		{[]string{"--kernel", "sigmoid", "--degree", "2"}, "--degree applies to the polynomial kernel only"},
		{[]string{"--kernel", "sigmoid", "--sigma", "1"}, "--sigma applies to"},
		{[]string{"--kernel", "sigmoid", "--gamma", "1e3"}, "the sigmoid kernel saturates on these data"},
		{[]string{"--kernel", "cosine", "--gamma", "1"}, "--gamma applies to the rbf, laplacian, polynomial and sigmoid kernels only"},
		{[]string{"--kernel", "cosine", "--coef0", "1"}, "--coef0 applies to the polynomial and sigmoid kernels only"},
	} {
		if code, stderr := fit(c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s", c.args, code, c.want, stderr)
		}
	}
	// A flag mistake is found before the input is read (which is bad here).
	for _, args := range [][]string{{"--sigma", "1e-300"}, {"--kernel", "gauss"}, {"--columns", "0"}, {"--columns", "3-2"}, {"--columns", "1,,2"}} {
		code, _, stderr := ikpca(t, "1,2\n3\n", append([]string{"fit"}, args...)...)
		if code != 2 || strings.Contains(stderr, "<stdin>:") {
			t.Errorf("%v: exit %d, want 2 before reading: %s", args, code, stderr)
		}
	}
	// Data that overflow the kernel, with no kernel flag given: an error in the data.
	if code, _, stderr := ikpca(t, "1e200,1\n2,3\n4,5\n", "fit", "--kernel", "linear"); code != 1 || !strings.Contains(stderr, "k(x, x) = +Inf for point 1") {
		t.Errorf("overflowing data: exit %d: %s", code, stderr)
	}
}

// TestNystromStdin: nystrom reads standard input without "-", as fit does.
func TestNystromStdin(t *testing.T) {
	code, out, stderr := ikpca(t, "1,2\n3,4.5\n4,1\n0,0\n", "nystrom")
	if code != 0 || !strings.HasPrefix(out, "m,Frobenius") || strings.Count(out, "\n") != 5 {
		t.Errorf("exit %d: %s%s", code, out, stderr)
	}
}

// TestCommandLine: unknown commands are usage errors with suggestions, the completion
// command stays out of help, and the package documentation lists every command.
func TestCommandLine(t *testing.T) {
	code, _, stderr := ikpca(t, "", "tranform")
	if code != 2 || !strings.Contains(stderr, `unknown command "tranform"`) || !strings.Contains(stderr, "did you mean transform?") {
		t.Errorf("unknown command: exit %d: %s", code, stderr)
	}
	code, out, _ := ikpca(t, "", "help")
	if code != 0 || strings.Contains(out, "completion") || !strings.Contains(out, "transform") {
		t.Errorf("help: exit %d:\n%s", code, out)
	}
	if code, out, _ := ikpca(t, "", "completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d", code)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	var names []string
	for _, c := range newRoot(env{}).Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" {
			names = append(names, c.Name())
			if !strings.Contains(doc, "ikpca "+c.Name()) {
				t.Errorf("the package documentation does not list %q", c.Name())
			}
		}
	}
	if len(names) != 10 { // demo, fit, transform, nystrom, experiment, streaming, kaf, chinsuter, tracking, backend
		t.Errorf("%d commands: %v", len(names), names)
	}
}

// TestFitHelpBandwidthSample: fit's help gives the number of points a stream's
// bandwidth is taken from as kernel.BandwidthSample says, not a number of its own.
func TestFitHelpBandwidthSample(t *testing.T) {
	code, out, _ := ikpca(t, "", "fit", "--help")
	out = strings.Join(strings.Fields(out), " ") // whatever the line breaks
	n := strconv.Itoa(kernel.BandwidthSample)
	if code != 0 || !strings.Contains(out, "the first "+n+" points read") || !strings.Contains(out, "a seeded sample of "+n+" of the first --m0") {
		t.Errorf("fit --help: exit %d, the bandwidth sample is not %s:\n%s", code, n, out)
	}
}

// TestFitMatchesLibrary: fit's eigenvalues are those of the library's model of the same
// points, bit for bit: a batch fit is kpca.Fit of all the points with Components and
// Rank --k (or the --rank given; 0 for every pair, Components All), a stream is
// kpca.Fit of the first --m0 (10 by default) followed by one Add per point, exact or at
// --rank, and a window's is the same with Options.Window.
func TestFitMatchesLibrary(t *testing.T) {
	dir := t.TempDir()
	in := writeYeast(t, dir, 25)
	x := mat.DenseCopyOf(data.Yeast().X.Slice(0, 25, 0, 8))
	sigma, _ := kernel.DefaultBandwidth(x)
	k := kernel.RBF{Sigma: sigma}
	for _, c := range []struct {
		args []string
		m0   int
		opts kpca.Options
	}{
		{nil, 25, kpca.Options{Components: 5, Rank: 5}},
		{[]string{"--k", "3"}, 25, kpca.Options{Components: 3, Rank: 3}},
		{[]string{"--rank", "0"}, 25, kpca.Options{Components: kpca.All}},
		{[]string{"--stream"}, 10, kpca.Options{Components: kpca.All}},
		{[]string{"--m0", "12", "--rank", "4"}, 12, kpca.Options{Components: 4, Rank: 4}},
		{[]string{"--m0", "12", "--rank", "4", "--block", "1"}, 12, kpca.Options{Components: 4, Rank: 4, Block: 1}},
		{[]string{"--m0", "12", "--rank", "4", "--block", "5"}, 12, kpca.Options{Components: 4, Rank: 4, Block: 5}},
		{[]string{"--batch-max", "20", "--rank", "4"}, 20, kpca.Options{Components: 4, Rank: 4}},
		{[]string{"--batch-max", "24", "--k", "3"}, 25, kpca.Options{Components: 3, Rank: 3}}, // too few points to track at rank 50: a batch fit
		{[]string{"--window", "15"}, 10, kpca.Options{Components: kpca.All, Window: 15}},
		{[]string{"--window", "15", "--rank", "6", "--uncentred"}, 10, kpca.Options{Window: 15, Components: 6, Rank: 6, Uncentred: true}},
	} {
		vals := filepath.Join(dir, "v.csv")
		if code, _, stderr := ikpca(t, "", append([]string{"fit", "--columns", "2-9", "--values", vals, in}, c.args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		md, err := kpca.Fit(k, x.Slice(0, c.m0, 0, 8), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.m0 < 25 && c.opts.Rank > 0 && c.opts.Window == 0 && c.opts.Block != 1:
			// At rank r the rows come in blocks of --block (64 by default), the last
			// one short: AddBatch of them all, which adds Options.Block at a time.
			if err := md.AddBatch(x.Slice(c.m0, 25, 0, 8)); err != nil {
				t.Fatal(err)
			}
		default:
			testmat.AddRows(t, md, x, c.m0, 25)
		}
		var got []float64
		for _, row := range readCSV(t, vals) {
			got = append(got, row[1])
		}
		if want := md.Values(nil); !slices.Equal(got, want) {
			t.Errorf("%v: eigenvalues differ: max |Δ| %g", c.args, maxDiff(got, want))
		}
	}
}

func maxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}
