// Command bench is ikpca's performance harness: it times every step the library offers
// side by side with its two yardsticks, measured in the same run on the same backend —
// one m×m×m dgemm (the floor of an exact update, whose product U·Ũ is one) and a batch
// eigendecomposition of the same kind of matrix (the recompute-from-scratch
// alternative) — and reports ratios, GFLOP/s, allocations, deflation, the scaling
// exponent and the peak resident memory. It prints markdown and writes a CSV.
//
// Usage:
//
//	go run -tags openblas ./bench            # OpenBLAS: m = 500…4000, 1 and 2 threads
//	go run ./bench                           # pure-Go gonum: m = 500…2000
//	go run ./bench -short                    # the CI smoke test, under a minute
//	go run -tags openblas ./bench -sizes 2000 -threads 2 -ops centred-bordered,centred-paper -cpuprofile cpu.out
//
// Every step is timed with one dgemm of the same order timed just before it; × dgemm is
// the median of the paired ratios, which cancels the drifts of a shared machine's speed.
// × batch divides that by the batch op's own × dgemm. GFLOP/s is 2m³ over the step's time:
// the rate a dgemm as long as the step would have had. Threads are both the OpenBLAS
// threads and GOMAXPROCS (which bounds gonum's and the secular solver's goroutines).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ikpca/ikpca/bench/internal/cli"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/resident"
	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// config is the harness's command line.
type config struct {
	sizes      []int
	threads    []int
	reps       int
	batchReps  int
	batchMax   int
	ops        []string // ids; empty means all
	csvPath    string
	mdPath     string
	memory     bool
	short      bool
	cpuProfile string
	args       []string // the command line, for the report
}

func main() {
	native.Use()
	if child, err := runChild(); child {
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	cli.Main("bench", 2, func(args []string) (config, error) { return parseFlags(args, os.Stderr) },
		func(cfg config) error { return run(cfg, os.Stdout, os.Stderr) })
}

// parseFlags reads the command line. Defaults depend on the backend built and on -short.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "", "comma-separated model sizes m (default 500,1000,2000,4000 with OpenBLAS, 500,1000,2000 in pure Go; 200,400 with -short)")
	threads := fs.String("threads", "1,2", "comma-separated thread counts: OpenBLAS threads and GOMAXPROCS")
	reps := fs.Int("reps", 0, "timed steps per op, size and thread count (default 5; 3 with -short)")
	batchReps := fs.Int("batch-reps", 3, "timed batch eigendecompositions per size and thread count (at most -reps)")
	batchMax := fs.Int("batch-max", 0, "largest m at which the batch eigensolver is timed (default 4000 with OpenBLAS, 2000 in pure Go, where gonum's Dsyev takes 30 s at m = 2000)")
	opList := fs.String("ops", "", "comma-separated op ids to run (default all): "+strings.Join(opIDs(), ", "))
	csvPath := fs.String("csv", "ikpca-bench.csv", "CSV output file (empty: none)")
	mdPath := fs.String("md", "", "also write the markdown report to this file")
	memory := fs.Bool("memory", true, "measure the peak resident memory of a step (Linux; one child process per op and size)")
	short := fs.Bool("short", false, "smoke test: small sizes and few repetitions, under a minute")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run (preparation included) to this file")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := config{batchReps: *batchReps, batchMax: *batchMax, csvPath: *csvPath, mdPath: *mdPath,
		memory: *memory, short: *short, cpuProfile: *cpuProfile, args: append([]string{"bench"}, args...)}
	var err error
	defSizes := "500,1000,2000"
	switch {
	case cfg.short:
		defSizes = "200,400"
	case native.Compiled == "openblas":
		defSizes = "500,1000,2000,4000"
	}
	if *sizes == "" {
		*sizes = defSizes
	}
	if cfg.sizes, err = parseInts("sizes", *sizes, 2); err != nil {
		return config{}, err
	}
	if cfg.threads, err = parseInts("threads", *threads, 1); err != nil {
		return config{}, err
	}
	cfg.reps = *reps
	if cfg.reps == 0 {
		cfg.reps = 5
		if cfg.short {
			cfg.reps = 3
		}
	}
	if cfg.reps < 1 || cfg.batchReps < 1 {
		return config{}, fmt.Errorf("-reps %d and -batch-reps %d must be positive", cfg.reps, cfg.batchReps)
	}
	cfg.batchReps = min(cfg.batchReps, cfg.reps)
	if cfg.batchMax == 0 {
		cfg.batchMax = 2000
		if native.Compiled == "openblas" {
			cfg.batchMax = 4000
		}
	}
	if *opList != "" {
		known := opIDs()
		for _, id := range strings.Split(*opList, ",") {
			id = strings.TrimSpace(id)
			if !slices.Contains(known, id) {
				return config{}, fmt.Errorf("unknown op %q (known: %s)", id, strings.Join(known, ", "))
			}
			cfg.ops = append(cfg.ops, id)
		}
	}
	return cfg, nil
}

// parseInts parses a comma-separated list of integers ≥ lo, sorted and without repeats.
func parseInts(name, s string, lo int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < lo {
			return nil, fmt.Errorf("-%s: bad entry %q (want integers ≥ %d)", name, f, lo)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// opIDs returns the ids of every op in table order, the values -ops accepts.
func opIDs() []string {
	var ids []string
	for _, o := range ops() {
		ids = append(ids, o.id)
	}
	return ids
}

// setThreads sets the OpenBLAS threads (with -tags openblas) and GOMAXPROCS.
func setThreads(t int) {
	runtime.GOMAXPROCS(t)
	if native.Compiled == "openblas" {
		if err := native.SetThreads(t); err != nil {
			panic(err) // t ≥ 1 was checked; the OpenBLAS build always accepts it
		}
	}
}

// loadInputs prepares the MAGIC data and its kernel: RBF with the default bandwidth
// (kernel.DefaultBandwidth, the median heuristic on a seeded sample).
func loadInputs(reps int) (*inputs, error) {
	x := data.Magic().X
	sigma, err := kernel.DefaultBandwidth(x)
	if err != nil {
		return nil, err
	}
	return &inputs{magic: x, kern: kernel.RBF{Sigma: sigma}, reps: reps}, nil
}

// key identifies a measurement.
type key struct {
	id         string
	m, threads int
}

// results are everything a run measured.
type results struct {
	cfg     config
	ops     []op // in table order, filtered
	time    map[key]summary
	skipped map[key]string // why a measurement is missing
	memory  []memoryResult
	memErr  string
	started time.Time
	elapsed time.Duration
}

// run measures, then reports.
func run(cfg config, stdout, stderr io.Writer) error {
	start := time.Now()
	in, err := loadInputs(cfg.reps)
	if err != nil {
		return err
	}
	res := &results{cfg: cfg, time: map[key]summary{}, skipped: map[key]string{}, started: start,
		ops: selectOps(cfg.ops)}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	maxThreads := slices.Max(cfg.threads)
	for _, m := range cfg.sizes {
		if err := res.measureSize(m, in, maxThreads, stderr); err != nil {
			return err
		}
	}
	setThreads(maxThreads)
	if cfg.memory {
		res.measureMemory(stderr, maxThreads)
	}
	res.elapsed = time.Since(start)
	return res.report(stdout, stderr)
}

// selectOps returns the ops of the table whose ids are in ids, in table order, or all of
// them when ids is empty, so that the report lists the selected ops in the order it always
// does, whatever the order of -ops.
func selectOps(ids []string) []op {
	var selected []op
	for _, o := range ops() {
		if len(ids) == 0 || slices.Contains(ids, o.id) {
			selected = append(selected, o)
		}
	}
	return selected
}

// measureSize times every selected op at model size m against one yardstick of that
// order, which all the ops at m share. The batch ops above -batch-max are recorded as
// skipped for every thread count rather than timed, since the batch eigensolver takes too
// long there. Each op is prepared with the most threads (the preparation is not timed),
// and its memory is collected and returned to the operating system before the next op is
// built, so that the run never holds two ops' models at once.
func (res *results) measureSize(m int, in *inputs, maxThreads int, stderr io.Writer) error {
	cfg := res.cfg
	setThreads(maxThreads)
	stick := yardstick.New(m)
	for _, o := range res.ops {
		reps := cfg.reps
		if o.batch == "" {
			reps = cfg.batchReps
			if m > cfg.batchMax {
				for _, t := range cfg.threads {
					res.skipped[key{o.id, m, t}] = fmt.Sprintf("m > -batch-max %d", cfg.batchMax)
				}
				continue
			}
		}
		setThreads(maxThreads)
		if err := res.measureOp(o, m, reps, in, stick, stderr); err != nil {
			return err
		}
		resident.Free()
	}
	return nil
}

// measureOp prepares op o at size m and times reps of its steps at every thread count,
// recording each summary in res.time and logging the preparation and each median to
// stderr, since a full run takes long enough that its progress matters. It is called with
// the most threads set; the prepared runner is dropped on return, so that the caller can
// free its memory.
func (res *results) measureOp(o op, m, reps int, in *inputs, stick *yardstick.Stick, stderr io.Writer) error {
	built := time.Now()
	r, err := o.build(m, in)
	if err != nil {
		return fmt.Errorf("%s at m = %d: %w", o.id, m, err)
	}
	fmt.Fprintf(stderr, "m=%-5d %-20s prepared in %.1fs\n", m, o.id, time.Since(built).Seconds())
	for _, t := range res.cfg.threads {
		setThreads(t)
		began := time.Now()
		samples, err := measure(r, stick, reps)
		if err != nil {
			return fmt.Errorf("%s at m = %d, %d threads: %w", o.id, m, t, err)
		}
		s := summarize(samples)
		res.time[key{o.id, m, t}] = s
		fmt.Fprintf(stderr, "m=%-5d %-20s threads=%d  median %9.3f ms  %.2f× dgemm  (%.1fs)\n",
			m, o.id, t, ms(s.median), s.xDgemm, time.Since(began).Seconds())
	}
	return nil
}

// report writes the markdown report to stdout and, as -md and -csv ask, to the markdown
// and CSV files. The markdown file is closed even when writing it fails, and both errors
// are returned, since a failed close can lose what was written.
func (res *results) report(stdout, stderr io.Writer) error {
	cfg := res.cfg
	if err := res.writeMarkdown(stdout); err != nil {
		return err
	}
	if cfg.mdPath != "" {
		f, err := os.Create(cfg.mdPath)
		if err != nil {
			return err
		}
		if err := errors.Join(res.writeMarkdown(f), f.Close()); err != nil {
			return err
		}
	}
	if cfg.csvPath != "" {
		if err := res.writeCSV(cfg.csvPath); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", cfg.csvPath)
	}
	return nil
}

// measureMemory runs the memory children for the memory ops that were selected.
func (res *results) measureMemory(stderr io.Writer, threads int) {
	for _, m := range res.cfg.sizes {
		for _, o := range res.ops {
			if !slices.Contains(memoryOps, o.id) {
				continue
			}
			r, err := measureMemory(o.id, m, threads)
			if err != nil {
				res.memErr = err.Error()
				fmt.Fprintf(stderr, "memory: %v\n", err)
				return
			}
			res.memory = append(res.memory, r)
			fmt.Fprintf(stderr, "m=%-5d %-20s peak %.1f MiB above start (%.2f× 2(m+1)²·8)\n",
				m, o.id, mib(r.Peak-r.Start), float64(r.Peak-r.Start)/float64(floor(m)))
		}
	}
}

// ms returns d in milliseconds, the unit of the report's step times.
func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

// mib returns b bytes in MiB, the unit of the report's memory.
func mib(b int64) float64 { return float64(b) / (1 << 20) }
