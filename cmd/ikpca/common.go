package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// tableFlags select how points are read from text.
type tableFlags struct {
	sep     string
	header  string
	columns string
}

func (f *tableFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.sep, "sep", "auto", `field separator: "auto" (tab if the first line has one, else comma), "comma", "tab", or a single character`)
	fs.StringVar(&f.header, "header", "auto", `first line is a header: "auto" (if it is not all numbers), "yes" or "no"`)
	fs.StringVar(&f.columns, "columns", "", `columns to use: 1-based indices, ranges ("2-5", "4-") or header names, comma-separated; default all`)
}

// options converts the flags to table options for the named input.
func (f *tableFlags) options(name string) (table.Options, error) {
	o := table.Options{Name: name, Columns: f.columns}
	switch f.sep {
	case "auto":
	case "comma", ",":
		o.Comma = ','
	case "tab", `\t`:
		o.Comma = '\t'
	default:
		r := []rune(f.sep)
		if len(r) != 1 || r[0] == '"' || r[0] == '\n' || r[0] == '\r' {
			return o, usageError{fmt.Errorf(`--sep %q: want "auto", "comma", "tab" or one character`, f.sep)}
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
	return o, nil
}

// readPoints reads the table named by args (a file, "-" or nothing for standard input).
func readPoints(e env, args []string, f *tableFlags) (*table.Table, error) {
	name := "-"
	if len(args) > 0 {
		name = args[0]
	}
	var r io.Reader = e.in
	label := "<stdin>"
	if name != "-" {
		file, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		r, label = file, name
	}
	o, err := f.options(label)
	if err != nil {
		return nil, err
	}
	return table.Read(r, o)
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
	name   string
	sigma  float64
	degree int
	gamma  float64
	coef0  float64
}

func (f *kernelFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.name, "kernel", "rbf", "kernel: rbf exp(−‖x−y‖²/2σ²), laplacian exp(−‖x−y‖₁/σ), polynomial (γxᵀy+c)^d, linear xᵀy")
	fs.Float64Var(&f.sigma, "sigma", 0, "bandwidth σ of rbf and laplacian; 0 = the median distance between the first 1000 points")
	fs.IntVar(&f.degree, "degree", 3, "degree d of the polynomial kernel")
	fs.Float64Var(&f.gamma, "gamma", 1, "scale γ of the polynomial kernel")
	fs.Float64Var(&f.coef0, "coef0", 1, "offset c of the polynomial kernel")
}

// kernel builds the kernel for the points x, computing the median-distance bandwidth if
// needed.
func (f *kernelFlags) kernel(x *mat.Dense) (kernel.Kernel, error) {
	sigma := f.sigma
	if (f.name == "rbf" || f.name == "laplacian") && sigma == 0 {
		s, err := kernel.MedianDistance(x, 1000)
		if err != nil {
			return nil, fmt.Errorf("median-distance bandwidth: %w", err)
		}
		if s == 0 {
			return nil, fmt.Errorf("median-distance bandwidth is 0 (most points coincide): give --sigma")
		}
		sigma = s
	}
	k, err := kernel.New(kernel.Spec{Name: f.name, Sigma: sigma, Degree: f.degree, Scale: f.gamma, Offset: f.coef0})
	if err != nil {
		return nil, usageError{err}
	}
	return k, nil
}

// output is a destination given on the command line: a file path or "-" for standard
// output. Files are written to a temporary name and renamed on success, so that an
// interrupted or failed command never leaves a half-written file behind.
func create(e env, path string, write func(io.Writer) error) error {
	if path == "-" {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return err
		}
		_, err := e.out.Write(buf.Bytes())
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it private
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// oneStdout checks that at most one output goes to standard output.
func oneStdout(outputs map[string]string) error {
	var onStdout []string
	for flag, path := range outputs {
		if path == "-" {
			onStdout = append(onStdout, "--"+flag)
		}
	}
	if len(onStdout) > 1 {
		return usageError{fmt.Errorf("%s all write to standard output; give files", strings.Join(onStdout, " and "))}
	}
	return nil
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
