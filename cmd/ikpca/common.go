package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kernel"
)

// tableFlags select how points are read from text (an IDX input refuses them: idxFlags).
type tableFlags struct {
	sep     string
	header  string
	columns string
}

func (f *tableFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.sep, "sep", "auto", `field separator: "comma", "tab", "space" (any run of spaces and tabs, as in the UCI .data files), a single character, or "auto": tab if the first two lines have one, else comma if they have one, else space if their fields are separated by spaces`)
	fs.StringVar(&f.header, "header", "auto", `first line is a header: "yes", "no", or "auto": a header if every selected field of it is a name (said on stderr), data if every one is a number, an error asking for yes or no otherwise`)
	fs.StringVar(&f.columns, "columns", "", `columns to use: 1-based indices, ranges ("2-5", "4-") or header names, comma-separated; default all`)
}

// options converts the flags to table options for the named input. Mistakes found
// without the data, the column selection's included, are usage errors.
func (f *tableFlags) options(name string) (table.Options, error) {
	o := table.Options{Name: name, Columns: f.columns}
	switch f.sep {
	case "auto":
	case "comma", ",":
		o.Comma = ','
	case "tab", `\t`, "\t":
		o.Comma = '\t'
	case "space", " ", "whitespace":
		o.Comma = table.Space
	default:
		r := []rune(f.sep)
		if len(r) != 1 || r[0] == '"' || r[0] == '\n' || r[0] == '\r' {
			return o, usageError{fmt.Errorf(`--sep %q: want "auto", "comma", "tab", "space" or one character`, f.sep)}
		}
		o.Comma = r[0]
	}
	switch f.header {
	case "auto":
		o.Header = table.HeaderAuto
	case "yes":
		o.Header = table.HeaderYes
	case "no":
		o.Header = table.HeaderNo
	default:
		return o, usageError{fmt.Errorf(`--header %q: want "auto", "yes" or "no"`, f.header)}
	}
	if err := table.CheckColumns(f.columns); err != nil {
		return o, usageError{fmt.Errorf("--columns %q: %w", f.columns, err)}
	}
	return o, nil
}

// inputName is the file a command reads (args[0]), "-" for standard input.
func inputName(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return "-"
}

// readPoints reads the table named by args (a file, "-" or nothing for standard
// input): a text table, or an IDX file of images (isIDX). It returns at once, with
// errInterrupted, when ctx is cancelled while it reads. When the first line was taken
// for a header because of its content, it says so on stderr: a data row is never
// dropped silently.
func readPoints(ctx context.Context, e env, args []string, f *tableFlags) (*table.Table, error) {
	br, label, done, err := openInput(e, args)
	if err != nil {
		return nil, err
	}
	defer done()
	return readTable(ctx, e, br, label, f)
}

// openInput opens the input that args name (standard input for none or "-") and
// returns it buffered, its name for messages, and what closes it.
func openInput(e env, args []string) (br *bufio.Reader, label string, done func(), err error) {
	name := inputName(args)
	if name == "-" {
		return bufio.NewReader(e.in), table.StdinName, func() {}, nil
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, "", nil, err
	}
	return bufio.NewReader(file), name, func() { file.Close() }, nil
}

// readTable is readPoints of the input in br, named label.
func readTable(ctx context.Context, e env, br *bufio.Reader, label string, f *tableFlags) (*table.Table, error) {
	o, err := f.options(label)
	if err != nil {
		return nil, err
	}
	t, err := interruptible(ctx, "while reading "+label, func() (*table.Table, error) {
		if isIDX(br) {
			return readIDX(br, label, f)
		}
		return table.Read(br, o)
	})
	if err != nil {
		return nil, err
	}
	if t.HeaderDetected {
		fmt.Fprintf(e.errw, "ikpca: %s: line %d taken as a header (every field is a name); give --header no if it is data\n", label, t.HeaderLine)
	}
	return t, nil
}

// interruptible runs fn and waits for it, or for ctx: a read from a terminal or a pipe,
// or a batch decomposition (one LAPACK call), cannot be stopped part-way, but the
// command need not wait for it. On cancellation it returns errInterrupted, naming what
// was abandoned; fn goes on in the background until the process exits. A panic in fn is
// returned as an internalError.
func interruptible[T any](ctx context.Context, what string, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if err := recovered(recover()); err != nil {
				r = result{err: err} // a panic in fn: an internal error, not a crash
			}
			done <- r
		}()
		r.v, r.err = fn()
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w %s", errInterrupted, what)
	}
}

// count writes n and the noun, plural unless n is 1: "1 point", "2 points".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// datasetPoints returns an embedded data set's feature matrix: "yeast" or "magic".
func datasetPoints(name string) (*mat.Dense, error) {
	switch name {
	case "yeast":
		return data.Yeast().X, nil
	case "magic":
		return data.Magic().X, nil
	}
	return nil, usageError{fmt.Errorf("--dataset %q: want yeast or magic", name)}
}

// kernelFlags choose a kernel.
type kernelFlags struct {
	fs     *pflag.FlagSet
	name   string
	sigma  float64
	degree int
	gamma  float64
	coef0  float64
}

func (f *kernelFlags) add(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.name, "kernel", "rbf", "kernel (any case): rbf exp(−‖x−y‖²/2σ²), laplacian exp(−‖x−y‖₁/σ), polynomial (γxᵀy+c)^d, linear xᵀy, sigmoid tanh(γxᵀy+c) (not positive semi-definite), cosine xᵀy/(‖x‖‖y‖) (0 with a zero point)")
	fs.Float64Var(&f.sigma, "sigma", 0, fmt.Sprintf("bandwidth σ of rbf and laplacian (default: the median distance between the points, of a seeded sample of %d when there are more)", kernel.BandwidthSample))
	fs.Float64Var(&f.gamma, "gamma", 0, "scikit-learn's gamma: for rbf exp(−γ‖x−y‖²) and laplacian exp(−γ‖x−y‖₁), instead of --sigma (γ = 1/2σ² and 1/σ); for polynomial and sigmoid the scale γ (default 1)")
	fs.IntVar(&f.degree, "degree", 3, "degree d of the polynomial kernel")
	fs.Float64Var(&f.coef0, "coef0", 1, "offset c of the polynomial kernel (not negative) and of the sigmoid kernel (any sign)")
}

// given reports whether the named flag was set on the command line.
func (f *kernelFlags) given(name string) bool { return f.fs != nil && f.fs.Changed(name) }

// check validates the kernel flags before any data are read: the name, flags that do
// not apply to the kernel, --sigma and --gamma together, and parameters that
// kernel.Validate refuses whatever the data (bandwidths whose 2σ², σ or γ leaves the
// normal range: see kernel.Validate).
func (f *kernelFlags) check() error {
	name := strings.ToLower(f.name)
	if !kernel.IsBuiltin(name) || name == (kernel.Precomputed{}).Spec().Name {
		// The command reads points; kernel values given as columns are the Go API's
		// (kpca.Model.AddColumn).
		return usageError{fmt.Errorf("--kernel %q: choose %s", f.name, orList(kernel.Names()))}
	}
	f.name = name
	bandwidth := name == "rbf" || name == "laplacian"
	for _, flag := range []struct {
		name    string
		applies bool
		to      string
	}{
		{"sigma", bandwidth, "the rbf and laplacian kernels"},
		{"gamma", name != "linear" && name != "cosine", "the rbf, laplacian, polynomial and sigmoid kernels"},
		{"degree", name == "polynomial", "the polynomial kernel"},
		{"coef0", name == "polynomial" || name == "sigmoid", "the polynomial and sigmoid kernels"},
	} {
		if f.given(flag.name) && !flag.applies {
			return usageError{fmt.Errorf("--%s applies to %s only, not to %s", flag.name, flag.to, name)}
		}
	}
	switch {
	case !bandwidth:
		if !f.given("gamma") {
			f.gamma = 1
		}
		if name == "polynomial" {
			// kernel.Validate's rules, before the data are read.
			switch {
			case f.degree < 1:
				return usageError{fmt.Errorf("--degree must be at least 1, got %d", f.degree)}
			case !(f.gamma > 0) || math.IsInf(f.gamma, 0):
				return usageError{fmt.Errorf("--gamma must be positive and finite for the polynomial kernel, got %v", f.gamma)}
			case !(f.coef0 >= 0) || math.IsInf(f.coef0, 0):
				return usageError{fmt.Errorf("--coef0 must be finite and not negative, got %v", f.coef0)}
			}
			if err := kernel.Validate(f.build(0)); err != nil {
				return usageError{fmt.Errorf("--gamma %v: %w", f.gamma, err)}
			}
		}
		if name == "sigmoid" {
			switch {
			case !(f.gamma > 0) || math.IsInf(f.gamma, 0):
				return usageError{fmt.Errorf("--gamma must be positive and finite for the sigmoid kernel, got %v", f.gamma)}
			case math.IsNaN(f.coef0) || math.IsInf(f.coef0, 0):
				return usageError{fmt.Errorf("--coef0 must be finite, got %v", f.coef0)}
			}
			if err := kernel.Validate(f.build(0)); err != nil {
				return usageError{fmt.Errorf("--gamma %v: %w", f.gamma, err)}
			}
		}
		return nil
	case f.given("sigma") && f.given("gamma"):
		return usageError{fmt.Errorf("give --sigma or --gamma, not both (for %s, γ = %s)", name, map[string]string{"rbf": "1/2σ²", "laplacian": "1/σ"}[name])}
	case f.given("gamma"):
		if !(f.gamma > 0) || math.IsInf(f.gamma, 0) {
			return usageError{fmt.Errorf("--gamma must be positive and finite, got %v", f.gamma)}
		}
		if err := kernel.Validate(f.build(0)); err != nil {
			return usageError{fmt.Errorf("--gamma %v: %w", f.gamma, err)}
		}
	case f.given("sigma"):
		if !(f.sigma > 0) || math.IsInf(f.sigma, 0) {
			return usageError{fmt.Errorf("--sigma must be positive and finite, got %v", f.sigma)}
		}
		if err := kernel.Validate(f.build(f.sigma)); err != nil {
			return usageError{fmt.Errorf("--sigma %v: %w", f.sigma, err)}
		}
	}
	return nil
}

// build returns the kernel the flags describe, not validated, an rbf or laplacian
// kernel with the parameter as given — γ if --gamma chose it, so that the model records
// γ, and the bandwidth sigma otherwise.
func (f *kernelFlags) build(sigma float64) kernel.Kernel {
	gamma := 0.0
	if f.given("gamma") {
		sigma, gamma = 0, f.gamma
	}
	switch f.name {
	case "rbf":
		return kernel.RBF{Sigma: sigma, Gamma: gamma}
	case "laplacian":
		return kernel.Laplacian{Sigma: sigma, Gamma: gamma}
	case "polynomial":
		return kernel.Polynomial{Degree: f.degree, Gamma: f.gamma, Coef0: f.coef0}
	case "sigmoid":
		return kernel.Sigmoid{Gamma: f.gamma, Coef0: f.coef0}
	case "cosine":
		return kernel.Cosine{}
	}
	return kernel.Linear{}
}

// kernel builds the kernel for the points x (check must have been called), computing
// the median-distance bandwidth if neither --sigma nor --gamma gives it, and checks that
// it can tell the points apart.
func (f *kernelFlags) kernel(x *mat.Dense) (kernel.Kernel, error) {
	return f.kernelOf(denseRows{x})
}

// kernelOf is kernel for the points of x, read a row at a time.
func (f *kernelFlags) kernelOf(x rowMatrix) (kernel.Kernel, error) {
	sigma := f.sigma
	if (f.name == "rbf" || f.name == "laplacian") && sigma == 0 && !f.given("gamma") {
		s, err := kernel.DefaultBandwidth(x)
		if err != nil {
			return nil, fmt.Errorf("median-distance bandwidth: %w; give --sigma", err)
		}
		sigma = s
	}
	k := f.build(sigma)
	if err := kernel.Validate(k); err != nil {
		return nil, usageError{err}
	}
	if err := checkScale(k, x); err != nil {
		given := ""
		for _, name := range []string{"sigma", "gamma", "degree", "coef0"} {
			if f.given(name) {
				given += " --" + name
			}
		}
		if given != "" {
			return nil, usageError{fmt.Errorf("%s, with%s: %w", k, given, err)}
		}
		return nil, fmt.Errorf("%s: %w", k, err)
	}
	return k, nil
}

// checkScale checks that the kernel is finite on the points and, for a bandwidth
// kernel, neither underflows to 0 nor rounds to 1 for most pairs of distinct points:
// the kernel matrix would then be the identity or all ones, and kernel PCA meaningless;
// and that a sigmoid kernel is not ±1 (tanh saturated, |γxᵀy + c| above about 19) for
// most of them, which makes its matrix a matrix of signs.
// It looks at k(x, x) for every point and at the pairs of up to 200 points spread over
// the data.
func checkScale(k kernel.Kernel, x rowMatrix) error {
	n, d := x.Dims()
	p, pa, pb := make([]float64, d), make([]float64, d), make([]float64, d)
	for i := range n {
		p := x.row(p, i)
		if v := k.Eval(p, p); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("k(x, x) = %v for point %d: the kernel overflows on these data; scale them or choose other parameters", v, i+1)
		}
	}
	_, sigmoid := k.(kernel.Sigmoid)
	switch k.(type) {
	case kernel.RBF, kernel.Laplacian, kernel.Sigmoid:
	default:
		return nil
	}
	m := min(n, 200)
	var pairs, zeros, ones int
	for a := range m {
		pa := x.row(pa, a*n/m)
		for b := a + 1; b < m; b++ {
			pb := x.row(pb, b*n/m)
			if slices.Equal(pa, pb) {
				continue
			}
			pairs++
			switch v := k.Eval(pa, pb); {
			case v == 0:
				zeros++
			case v == 1 || sigmoid && v == -1:
				ones++
			}
		}
	}
	switch {
	case pairs == 0:
	case sigmoid && 2*ones > pairs:
		return fmt.Errorf("the sigmoid kernel saturates on these data: k(x, y) = ±1 for %d%% of the pairs of distinct points; choose a smaller --gamma, or scale the data", 100*ones/pairs)
	case sigmoid:
	case 2*zeros > pairs:
		return fmt.Errorf("the kernel underflows on these data: k(x, y) = 0 for %d%% of the pairs of distinct points; choose a larger σ (a smaller γ), or leave both out for the median distance", 100*zeros/pairs)
	case 2*ones > pairs:
		return fmt.Errorf("the kernel cannot tell these points apart: k(x, y) = 1 for %d%% of the pairs of distinct points; choose a smaller σ (a larger γ), or leave both out for the median distance", 100*ones/pairs)
	}
	return nil
}

// orList joins words as "a, b, c or d".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// progress draws a progress bar on stderr, but only when stderr is a terminal and only
// once the work has taken more than a second.
type progress struct {
	e       env
	desc    string
	total   int
	start   time.Time
	bar     *progressbar.ProgressBar
	enabled bool
}

func newProgress(e env, desc string, total int) *progress {
	return &progress{e: e, desc: desc, total: total, start: time.Now(), enabled: e.terminal && total > 0}
}

// set records that done of total steps are complete.
func (p *progress) set(done int) {
	if !p.enabled {
		return
	}
	if p.bar == nil {
		if time.Since(p.start) < time.Second {
			return
		}
		p.bar = progressbar.NewOptions(p.total,
			progressbar.OptionSetWriter(p.e.errw),
			progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Set(done)
}

// finish removes the bar.
func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.e.errw)
	}
}

func stderrIsTerminal() bool { return term.IsTerminal(int(os.Stderr.Fd())) }
