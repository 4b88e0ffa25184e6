// Command transform measures how many points per second ikpca's models project, the Go
// counterpart of bench/sklearn_transform.py: the same data (MAGIC, d = 10, and a9a,
// d = 123, from package data, which embeds data/magic04.data and data/a9a.gz), the same
// split (fit on the first m rows, project the n following ones, wrapping around), k = 6
// components, an RBF kernel with the median distance between the first min(m, 1000) rows
// as bandwidth, and the same CSV on stdout:
//
//	method,n,d,m,points_per_s,seconds,peak_rss_mib
//
// The methods:
//
//   - ikpca-kpca-transform: kpca.Model (centred, batch fit of the m rows).Transform;
//   - ikpca-nystrom-transform: nystrom.Approximation with the m rows as landmarks,
//     Transform;
//   - ikpca-nyskpca-transform: nystrom.Model (Nyström kernel PCA) with the m rows as
//     landmarks, fitted on them, Transform;
//   - ikpca-rnca-transform, ikpca-skpca-transform: RNCA (centred) and SKPCA (sketch of
//     20 rows) with D = m random Fourier features, Transform;
//   - ikpca-kernel-block: the kernel values alone, kernel.Cross blocks of 256 points
//     against the m rows (the bulk path);
//   - ikpca-kernel-column: the same values by kernel.Column, one point at a time (the
//     element path the models used before kernel blocks);
//   - ikpca-dgemm-floor: the n×d by d×m product alone (native.Mul), the inner products
//     every kernel block needs: the physical limit of a projection at d = 123.
//
// Each measurement runs in a child process of its own, so that its peak resident memory
// (VmHWM: data, model and scores) is its own; the time is the best of -reps projections.
// Usage, in the same session as the Python script:
//
//	go run -tags openblas ./bench/transform                 # n = 10000, m = 1000
//	go run -tags openblas ./bench/transform -n 200 -m 50    # a quick check
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/bench/internal/cli"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/stream"
)

// components is k, the number of scores per point.
const components = 6

var (
	methods = []string{
		"ikpca-kpca-transform", "ikpca-nystrom-transform", "ikpca-nyskpca-transform", "ikpca-rnca-transform",
		"ikpca-skpca-transform", "ikpca-kernel-block", "ikpca-kernel-column", "ikpca-dgemm-floor",
	}
	datasets = []string{"magic", "a9a"}
)

// config is the command line.
type config struct {
	n, m, reps        int
	methods, datasets []string
	one               []string // method and data set of a child
}

func main() {
	cli.Main("transform", 1, func(args []string) (config, error) { return parse(args, os.Stderr) },
		func(cfg config) error { return run(cfg, os.Stdout, os.Stderr) })
}

func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("transform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var ms, ds, one string
	fs.IntVar(&cfg.n, "n", 10000, "points to project")
	fs.IntVar(&cfg.m, "m", 1000, "points to fit on (landmarks, features)")
	fs.IntVar(&cfg.reps, "reps", 3, "projections timed; the best is reported")
	fs.StringVar(&ms, "methods", strings.Join(methods, ","), "comma-separated subset of "+strings.Join(methods, ", "))
	fs.StringVar(&ds, "datasets", strings.Join(datasets, ","), "comma-separated: magic, a9a")
	fs.StringVar(&one, "one", "", "internal: measure METHOD,DATASET in this process")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if cfg.n < 1 || cfg.m < components || cfg.reps < 1 {
		return cfg, fmt.Errorf("need -n ≥ 1, -m ≥ %d, -reps ≥ 1", components)
	}
	cfg.methods, cfg.datasets = strings.Split(ms, ","), strings.Split(ds, ",")
	for _, m := range cfg.methods {
		if !slices.Contains(methods, m) {
			return cfg, fmt.Errorf("unknown method %q", m)
		}
	}
	for _, d := range cfg.datasets {
		if !slices.Contains(datasets, d) {
			return cfg, fmt.Errorf("unknown data set %q", d)
		}
	}
	if one != "" {
		cfg.one = strings.Split(one, ",")
		if len(cfg.one) != 2 {
			return cfg, fmt.Errorf("-one %q: want METHOD,DATASET", one)
		}
	}
	return cfg, nil
}

// run prints the CSV: one child process per method and data set.
func run(cfg config, stdout, stderr io.Writer) error {
	if cfg.one != nil {
		return measure(cfg.one[0], cfg.one[1], cfg, stdout)
	}
	fmt.Fprintf(stderr, "backend: %s\n", native.Use())
	fmt.Fprintln(stdout, "method,n,d,m,points_per_s,seconds,peak_rss_mib")
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for _, d := range cfg.datasets {
		for _, m := range cfg.methods {
			cmd := exec.Command(self, "-n", strconv.Itoa(cfg.n), "-m", strconv.Itoa(cfg.m),
				"-reps", strconv.Itoa(cfg.reps), "-one", m+","+d)
			cmd.Stdout, cmd.Stderr = stdout, stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s on %s: %w", m, d, err)
			}
		}
	}
	return nil
}

// load returns the data set's points.
func load(name string) *mat.Dense {
	if name == "magic" {
		return data.Magic().X
	}
	return data.A9A().X
}

// split returns the first m rows to fit on and the n following ones to project,
// wrapping around the data.
func split(X *mat.Dense, m, n int) (train, test *mat.Dense) {
	rows, d := X.Dims()
	train = mat.DenseCopyOf(X.Slice(0, m, 0, d))
	test = mat.NewDense(n, d, nil)
	for i := range n {
		copy(test.RawRowView(i), X.RawRowView((m+i)%rows))
	}
	return train, test
}

// measure fits one model and times its projections; it prints the CSV row.
func measure(method, dataset string, cfg config, stdout io.Writer) error {
	native.Use()
	X := load(dataset)
	_, d := X.Dims()
	if cfg.m > X.RawMatrix().Rows {
		return fmt.Errorf("-m %d: %s has %d rows", cfg.m, dataset, X.RawMatrix().Rows)
	}
	train, test := split(X, cfg.m, cfg.n)
	sigma, err := kernel.MedianDistance(train, 1000)
	if err != nil {
		return err
	}
	rbf := kernel.RBF{Sigma: sigma}
	project, err := subject(method, rbf, train, cfg.m, d)
	if err != nil {
		return err
	}
	best := time.Duration(1<<63 - 1)
	for range cfg.reps {
		start := time.Now()
		if err := project(test); err != nil {
			return err
		}
		best = min(best, time.Since(start))
	}
	s := best.Seconds()
	_, err = fmt.Fprintf(stdout, "%s,%d,%d,%d,%.6g,%.6g,%.1f\n", method, cfg.n, d, cfg.m, float64(cfg.n)/s, s, peakMiB())
	return err
}

// subject fits the model of method on train and returns its projection of a test set.
func subject(method string, k kernel.RBF, train *mat.Dense, m, d int) (func(*mat.Dense) error, error) {
	if f := floorSubject(method, k, train, m, d); f != nil {
		return f, nil
	}
	t, err := fittedSubject(method, k, train, m, d)
	if err != nil {
		return nil, err
	}
	var dst mat.Dense
	return func(test *mat.Dense) error {
		dst.Reset()
		return t.Transform(&dst, test, components)
	}, nil
}

// transformer is what the fitted subjects time.
type transformer interface {
	Transform(*mat.Dense, mat.Matrix, int) error
}

// fittedSubject returns the model method names, fitted to train (m×d).
func fittedSubject(method string, k kernel.RBF, train *mat.Dense, m, d int) (transformer, error) {
	switch method {
	case "ikpca-kpca-transform":
		md, err := kpca.Fit(k, train, kpca.Options{Components: kpca.All})
		if err != nil {
			return nil, err
		}
		return md, nil
	case "ikpca-nystrom-transform":
		order := make([]int, m)
		for i := range order {
			order[i] = i
		}
		ny, err := nystrom.NewApproximation(k, train, nystrom.ApproximationOptions{Order: order})
		if err != nil {
			return nil, err
		}
		if err := ny.Grow(m); err != nil {
			return nil, err
		}
		return ny, nil
	case "ikpca-nyskpca-transform":
		ny, err := nystrom.New(k, train, nystrom.Options{})
		if err != nil {
			return nil, err
		}
		if err := ny.AddBatch(train); err != nil {
			return nil, err
		}
		return ny, nil
	case "ikpca-rnca-transform":
		r, err := stream.NewRNCA(k, d, stream.RNCAOptions{Features: 2 * (m / 2), Seed: 1})
		if err != nil {
			return nil, err
		}
		if err := r.AddBatch(train); err != nil {
			return nil, err
		}
		return r, nil
	case "ikpca-skpca-transform":
		s, err := stream.NewSKPCA(k, d, stream.SKPCAOptions{Features: 2 * (m / 2), Sketch: 20, Seed: 1, Uncentred: true})
		if err != nil {
			return nil, err
		}
		if err := s.AddBatch(train); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("unknown method %q", method)
}

// floorSubject returns the kernel values or the product the method names, the floors
// of a transform, or nil for another method.
func floorSubject(method string, k kernel.RBF, train *mat.Dense, m, d int) func(*mat.Dense) error {
	switch method {
	case "ikpca-kernel-block":
		c := kernel.NewCross(k, train)
		var work kernel.BlockWork
		const block = 256
		kb := mat.NewDense(block, m, nil)
		return func(test *mat.Dense) error {
			n, _ := test.Dims()
			for lo := 0; lo < n; lo += block {
				hi := min(lo+block, n)
				c.BlockTo(kb.Slice(0, hi-lo, 0, m).(*mat.Dense), test.Slice(lo, hi, 0, d).(*mat.Dense), &work)
			}
			return nil
		}
	case "ikpca-dgemm-floor":
		var prod *mat.Dense // allocated once: not zeroed in the timed loop
		return func(test *mat.Dense) error {
			if n, _ := test.Dims(); prod == nil {
				prod = mat.NewDense(n, m, nil)
			}
			native.Mul(prod, test, train.T())
			return nil
		}
	case "ikpca-kernel-column":
		col := make([]float64, m)
		return func(test *mat.Dense) error {
			n, _ := test.Dims()
			for i := range n {
				kernel.Column(col, k, train, test.RawRowView(i))
			}
			return nil
		}
	}
	return nil
}

// peakMiB returns the process's peak resident memory (VmHWM), in MiB, or NaN if
// /proc/self/status cannot be read.
func peakMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if kib, err := strconv.ParseFloat(f[0], 64); err == nil {
				return kib / 1024
			}
		}
	}
	return math.NaN()
}
