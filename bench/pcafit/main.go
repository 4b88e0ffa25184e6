// Command pcafit fits package pca's exact incremental linear PCA to the images of an IDX
// file, one way per process, for bench/pca_vs_sklearn.sh (issue 22), which runs it beside
// scikit-learn's PCA and IncrementalPCA (bench/sklearn_pca.py) on the same file and
// compares their outputs (bench/pca_report.py).
//
// The images are streamed from the file (data.NewIDXReader: bytes divided by 255, what
// "go run ./bench/points -dataset fashion-mnist" writes and bench/sklearn_pca.py reads),
// so that the process holds the model and one row (one block with -method batch), never
// the points: its peak memory is the model's, as an incremental fit's is. -method is
//
//   - add: pca.New(d, Options{Components: k}) and one Add an image — one rank-one update
//     of the d×d decomposition each (docs/design.md, "Linear PCA");
//   - batch: the same model fed AddBatch of -block rows at a time (the last block may be
//     shorter), each block of 8 rows or more one refactorisation (Chan–Golub–LeVeque
//     merging and one d×d eigendecomposition);
//   - rank: pca.New(d, Options{Components: r, Rank: r}), r = -rank, one Add an image —
//     the rank-r form, O(d·r) memory and O(d·r²) work a point, whose certificate
//     (ErrorBound, over λ₁) the JSON holds.
//
// It writes the top k components' variances S/(W − 1) (VarsTo: scikit-learn's
// explained_variance_), one a line, to PREFIX.values, and the components themselves,
// one a line of d comma-separated numbers (scikit-learn's components_ layout: VectorsTo
// transposed), to PREFIX.components, every number with 17 significant digits (-out
// PREFIX; a rank-r model writes min(k, r)). It then times one d×d×d dgemm
// (native.Gemm, C = A·B of random d×d matrices) on the same backend: one untimed call,
// then the best of -dgemm-runs, the physical limit of a rank-one update, whose
// eigenvectors cost one such product (update.Sym.RankOne, docs/design.md, "Rank-one
// updates"). The JSON (-json FILE, "-" for standard output) holds the time in the
// model's calls alone (reading excluded), the model's Bytes, the dgemm time, and the time
// an image (and a block) as a multiple of it. Build it with -tags openblas:
//
//	go run ./bench/points -dataset fashion-mnist -n 0 -o /tmp/fashion.idx
//	go build -tags openblas -o /tmp/pcafit ./bench/pcafit
//	/tmp/pcafit -method add -input /tmp/fashion.idx -out /tmp/pca-add -json /tmp/pca-add.json      # ~15 min
//	/tmp/pcafit -method batch -block 1000 -input /tmp/fashion.idx -out /tmp/pca-block-1000 -json -
//	/tmp/pcafit -method rank -rank 50 -input /tmp/fashion.idx -out /tmp/pca-rank-50 -json -
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/bench/internal/cli"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/pca"
)

// config is the command line.
type config struct {
	method, input, out, json string
	n, k, block, rank        int
	dgemmRuns                int
	cpuProfile               string
}

func main() {
	cli.Main("pcafit", 2, parse, func(cfg config) error {
		out, err := run(cfg)
		if err != nil {
			return err
		}
		return cli.WriteJSON(cfg.json, out)
	})
}

// parse returns the configuration the command line args give, or the flag package's
// error for a flag it does not know or cannot parse.
func parse(args []string) (config, error) {
	var cfg config
	f := flag.NewFlagSet("pcafit", flag.ContinueOnError)
	f.StringVar(&cfg.method, "method", "add", "add (one image at a time), batch (AddBatch of -block rows) or rank (Options.Rank = -rank, one at a time)")
	f.StringVar(&cfg.input, "input", "", "IDX file of the images (required; gzip too)")
	f.IntVar(&cfg.n, "n", 0, "images read from the file (0: all)")
	f.IntVar(&cfg.k, "k", 50, "top components written")
	f.IntVar(&cfg.block, "block", 1000, "batch: rows an AddBatch")
	f.IntVar(&cfg.rank, "rank", 50, "rank: Options.Rank and Components")
	f.StringVar(&cfg.out, "out", "", "write PREFIX.values and PREFIX.components (none if empty)")
	f.StringVar(&cfg.json, "json", "-", `JSON output file ("-": standard output)`)
	f.IntVar(&cfg.dgemmRuns, "dgemm-runs", 10, "timed d×d×d dgemms, the best reported (0: none)")
	f.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the fit to this file (go tool pprof)")
	if err := f.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case f.NArg() > 0:
		return cfg, fmt.Errorf("unexpected arguments %q", f.Args())
	case cfg.input == "":
		return cfg, errors.New("-input is required")
	case cfg.method != "add" && cfg.method != "batch" && cfg.method != "rank":
		return cfg, fmt.Errorf("-method %q: want add, batch or rank", cfg.method)
	case cfg.n < 0 || cfg.k < 1 || cfg.block < 1 || cfg.rank < 1 || cfg.dgemmRuns < 0:
		return cfg, errors.New("need -n ≥ 0, -k, -block and -rank ≥ 1, -dgemm-runs ≥ 0")
	}
	return cfg, nil
}

// logf writes a line of the log to standard error.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pcafit: "+format+"\n", args...)
}

// run fits the model as cfg says and returns the JSON object of the run.
func run(cfg config) (map[string]any, error) {
	info := native.Use()
	out := map[string]any{
		"method": cfg.method, "cpu": cli.CPUName(), "cpus": runtime.NumCPU(),
		"backend": info.Name, "backend_config": info.Config, "threads": info.Threads,
		"date": time.Now().UTC().Format("2006-01-02"),
	}
	f, err := os.Open(cfg.input)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := data.NewIDXReader(bufio.NewReaderSize(f, 1<<20), data.IDXOptions{Limit: cfg.n})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.input, err)
	}
	n, d := r.Len(), r.Width()
	m, err := newModel(cfg, d, out)
	if err != nil {
		return nil, err
	}
	out["n"], out["d"] = n, d
	logf("%s: %d images of %d pixels, -method %s, %s (%s, %d threads)", cfg.input, n, d, cfg.method, info.Name, info.Config, info.Threads)

	if cfg.cpuProfile != "" {
		pf, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			return nil, err
		}
		defer pf.Close()
	}
	t0 := time.Now()
	fit, blocks, err := feed(m, r, cfg)
	if cfg.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return nil, err
	}
	out["fit_s"], out["total_s"], out["blocks"] = fit.Seconds(), time.Since(t0).Seconds(), blocks
	out["model_bytes"] = m.Bytes()
	out["per_point_s"] = fit.Seconds() / float64(n)
	logf("fit: %.4g s in the model's calls (%.4g s with reading), %.4g s an image, model %d bytes", fit.Seconds(), time.Since(t0).Seconds(), fit.Seconds()/float64(n), m.Bytes())

	if err := reportModel(cfg, m, out); err != nil {
		return nil, err
	}
	if cfg.dgemmRuns > 0 {
		best, all := dgemm(d, cfg.dgemmRuns)
		out["dgemm_s"], out["dgemm_runs_s"] = best, all
		out["dgemm_gflops"] = 2 * math.Pow(float64(d), 3) / best / 1e9
		out["per_point_dgemms"] = fit.Seconds() / float64(n) / best
		if blocks > 0 {
			out["per_block_dgemms"] = fit.Seconds() / float64(blocks) / best
		}
		logf("one %d³ dgemm: %.4g s (best of %d, %.3g GFLOP/s); an image costs %.3g of them", d, best, cfg.dgemmRuns, out["dgemm_gflops"], out["per_point_dgemms"])
	}
	return out, nil
}

// newModel makes the model of dimension d that cfg.method fits — k components, or the
// rank-r form with r = -rank — and records in out the setting that the method adds (the
// rank or the block size), so that the JSON says how the run was made.
func newModel(cfg config, d int, out map[string]any) (*pca.Model, error) {
	opts := pca.Options{Components: min(cfg.k, d)}
	switch cfg.method {
	case "rank":
		opts = pca.Options{Components: cfg.rank, Rank: cfg.rank}
		out["rank"] = cfg.rank
	case "batch":
		out["block"] = cfg.block
	}
	return pca.New(d, opts)
}

// reportModel records in out what the fitted model m holds — its number of components
// and, for the rank-r form, its error certificate — and writes its components to the
// -out files, which bench/pca_report.py compares with scikit-learn's.
func reportModel(cfg config, m *pca.Model, out map[string]any) error {
	k := m.Components()
	out["k"] = k
	if cfg.method == "rank" && k > 0 {
		// The certificate of the rank-r form: ‖S − S̃‖₂ ≤ ErrorBound, so that every
		// tracked eigenvalue is within it of the true one (Weyl); over λ₁ it bounds the
		// report's max |Δvⱼ|/v₁.
		out["error_bound"] = m.ErrorBound()
		out["error_bound_relative"] = m.ErrorBound() / m.Values(nil)[0]
	}
	if cfg.out != "" {
		if err := writeOutputs(cfg.out, m); err != nil {
			return err
		}
	}
	return nil
}

// feed reads every image of r into m as cfg.method says and returns the time spent in
// the model's calls and, for batch, the number of blocks.
func feed(m *pca.Model, r *data.IDXReader, cfg config) (time.Duration, int, error) {
	n, d := r.Len(), r.Width()
	var fit time.Duration
	// A line of progress about every tenth of the images: the one-at-a-time fit of the
	// 70,000 images takes the better part of an hour.
	every := max(1, n/10)
	if cfg.method != "batch" {
		x := make([]float64, d)
		for i := 0; ; i++ {
			if err := r.Next(x); err == io.EOF {
				break
			} else if err != nil {
				return 0, 0, err
			}
			t := time.Now()
			if err := m.Add(x); err != nil {
				return 0, 0, fmt.Errorf("image %d: %w", i, err)
			}
			fit += time.Since(t)
			if (i+1)%every == 0 {
				logf("%d images, %.4g s", i+1, fit.Seconds())
			}
		}
		return fit, 0, nil
	}
	b := min(cfg.block, n)
	block := mat.NewDense(b, d, nil)
	blocks, rows := 0, 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		t := time.Now()
		if err := m.AddBatch(block.Slice(0, rows, 0, d)); err != nil {
			return fmt.Errorf("block %d: %w", blocks, err)
		}
		fit += time.Since(t)
		blocks++
		rows = 0
		return nil
	}
	for {
		if err := r.Next(block.RawRowView(rows)); err == io.EOF {
			break
		} else if err != nil {
			return 0, 0, err
		}
		if rows++; rows == b {
			if err := flush(); err != nil {
				return 0, 0, err
			}
		}
	}
	return fit, blocks, flush()
}

// writeOutputs writes the model's top components' variances to prefix.values and the
// components, one a line, to prefix.components.
func writeOutputs(prefix string, m *pca.Model) error {
	vars := m.VarsTo(nil)
	var V mat.Dense
	m.VectorsTo(&V)
	d, k := V.Dims()
	var vb, cb strings.Builder
	for _, v := range vars {
		vb.WriteString(strconv.FormatFloat(v, 'g', 17, 64) + "\n")
	}
	for j := range k {
		for i := range d {
			if i > 0 {
				cb.WriteByte(',')
			}
			cb.WriteString(strconv.FormatFloat(V.At(i, j), 'g', 17, 64))
		}
		cb.WriteByte('\n')
	}
	if err := os.WriteFile(prefix+".values", []byte(vb.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(prefix+".components", []byte(cb.String()), 0o644)
}

// dgemm times C = A·B for random d×d matrices with native.Gemm: one untimed call (OpenBLAS
// starts its threads and sizes its buffers on the first), then runs timed ones. It
// returns the best time and all of them.
func dgemm(d, runs int) (float64, []float64) {
	rnd := rand.New(rand.NewPCG(1, 2))
	gen := func() blas64.General {
		a := make([]float64, d*d)
		for i := range a {
			a[i] = rnd.NormFloat64()
		}
		return blas64.General{Rows: d, Cols: d, Stride: d, Data: a}
	}
	a, b, c := gen(), gen(), gen()
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
	best := math.Inf(1)
	all := make([]float64, runs)
	for i := range all {
		t := time.Now()
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
		all[i] = time.Since(t).Seconds()
		best = math.Min(best, all[i])
	}
	return best, all
}
