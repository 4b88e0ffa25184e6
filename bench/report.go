package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ikpca/ikpca/native"
)

// The targets, with OpenBLAS at m = 2000 on 2 threads.
const (
	targetM           = 2000
	targetThreads     = 2
	targetXDgemm      = 1.3 // mean-adjusted bordered step ≤ 1.3 dgemm
	targetBatchFactor = 4   // ≥ 4× faster than a batch dsyevd per step
	targetPaperFactor = 3.5 // ≥ 3.5× faster than the paper's four-update step
)

// xBatch is the time of op o relative to its batch op, through their paired dgemm
// ratios; NaN if the batch was not timed.
func (res *results) xBatch(o op, m, t int) float64 {
	s, ok := res.time[key{o.id, m, t}]
	if !ok {
		return math.NaN()
	}
	if o.batch == "" {
		return 1
	}
	b, ok := res.time[key{o.batch, m, t}]
	if !ok {
		return math.NaN()
	}
	return s.xDgemm / b.xDgemm
}

func gflops(m int, d time.Duration) float64 {
	fm := float64(m)
	return 2 * fm * fm * fm / d.Seconds() / 1e9
}

// writeMarkdown writes the report.
func (res *results) writeMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	res.writeHeader(bw)
	res.writeTimes(bw)
	res.writeProfile(bw)
	res.writeScaling(bw)
	res.writeMemory(bw)
	res.writeTargets(bw)
	return bw.Flush()
}

func (res *results) writeHeader(w io.Writer) {
	cfg := res.cfg
	fmt.Fprintf(w, "# ikpca benchmark\n\n")
	fmt.Fprintf(w, "- date: %s\n", res.started.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- machine: %s\n", machine())
	fmt.Fprintf(w, "- backend: %s\n", native.Active())
	fmt.Fprintf(w, "- Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "- command: `%s` (sizes %s; threads %s; %d timed steps per entry, %d for the batch eigensolver)\n",
		strings.Join(cfg.args, " "), joinInts(cfg.sizes), joinInts(cfg.threads), cfg.reps, cfg.batchReps)
	fmt.Fprintf(w, "- wall time: %s\n\n", res.elapsed.Round(time.Second))
}

func (res *results) writeTimes(w io.Writer) {
	heading(w, "Time per step",
		"Each step is timed with one m×m×m dgemm timed just before it; × dgemm is the median of the",
		"paired ratios, × batch the step's time over the batch eigendecomposition of the same kind of",
		"matrix (random for update.Sym, the MAGIC kernel matrix for kpca), order m+1. GFLOP/s is 2m³",
		"over the median time. Deflated counts the components deflated per step (for the paper's",
		"method, not the expansion's trivial ones).")
	tableHeader(w, "operation", "m", "threads", "median ms", "min–max ms", "× dgemm", "× batch", "GFLOP/s", "allocs/step", "deflated/step")
	for _, t := range res.cfg.threads {
		for _, m := range res.cfg.sizes {
			for _, o := range res.ops {
				k := key{o.id, m, t}
				s, ok := res.time[k]
				if !ok {
					if why, skipped := res.skipped[k]; skipped {
						fmt.Fprintf(w, "| %s | %d | %d | not timed: %s | | | | | | |\n", o.name, m, t, why)
					}
					continue
				}
				fmt.Fprintf(w, "| %s | %d | %d | %s | %s–%s | %.2f | %s | %.1f | %s | %s |\n",
					o.name, m, t, fmtMs(s.median), fmtMs(s.min), fmtMs(s.max), s.xDgemm,
					fmtRatio(res.xBatch(o, m, t)), gflops(m, s.median), fmtCount(s.allocs), res.deflated(o, s))
			}
		}
	}
	fmt.Fprintln(w)
}

// deflated formats the deflation column: empty for the ops that do not deflate.
func (res *results) deflated(o op, s summary) string {
	if s.updates == 0 {
		return ""
	}
	return strconv.Itoa(s.deflated)
}

// profileSize is the size of the profile table: the largest measured m ≤ targetM, or the
// smallest measured.
func (res *results) profileSize() int {
	best := res.cfg.sizes[0]
	for _, m := range res.cfg.sizes {
		if m <= targetM {
			best = m
		}
	}
	return best
}

func (res *results) writeProfile(w io.Writer) {
	m, t := res.profileSize(), slices.Max(res.cfg.threads)
	heading(w, fmt.Sprintf("Where the time goes (m = %d, %d threads)", m, t),
		"Means per step, summed over its eigen-updates (package update's phases): products is the number of",
		"updates that form an m×m×m-class product, ΣK the sum of their secular sizes (each product costs",
		"about 2·m·K² flops), project the Uᵀv products, solve the secular solves, assemble the products",
		"U·Ũ, other the rest (kernel column, Helmert transform, the paper's backup copy of U).")
	tableHeader(w, "operation", "products", "ΣK", "deflated", "project ms", "solve ms", "assemble ms", "other ms", "mean step ms")
	for _, o := range res.ops {
		s, ok := res.time[key{o.id, m, t}]
		if !ok || s.updates == 0 {
			continue
		}
		other := s.mean - s.project - s.solve - s.assemble
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s | %s | %s | %s |\n", o.name, s.updates, s.secular, s.deflated,
			fmtMs(s.project), fmtMs(s.solve), fmtMs(s.assemble), fmtMs(other), fmtMs(s.mean))
	}
	fmt.Fprintln(w)
}

func (res *results) writeScaling(w io.Writer) {
	if len(res.cfg.sizes) < 2 {
		return
	}
	heading(w, "Scaling",
		"p fits time ∝ mᵖ by least squares over the sizes; a constant × dgemm across m is the dgemm",
		"constant.")
	cols := []string{"operation", "threads", "p"}
	for _, m := range res.cfg.sizes {
		cols = append(cols, fmt.Sprintf("× dgemm m=%d", m))
	}
	tableHeader(w, cols...)
	for _, t := range res.cfg.threads {
		for _, o := range res.ops {
			var ms []int
			var ts []time.Duration
			cells := ""
			for _, m := range res.cfg.sizes {
				if s, ok := res.time[key{o.id, m, t}]; ok {
					ms = append(ms, m)
					ts = append(ts, s.median)
					cells += fmt.Sprintf(" %.2f |", s.xDgemm)
				} else {
					cells += " |"
				}
			}
			if len(ms) == 0 {
				continue
			}
			fmt.Fprintf(w, "| %s | %d | %s |%s\n", o.name, t, fmtRatio(exponent(ms, ts)), cells)
		}
	}
	fmt.Fprintln(w)
}

func (res *results) writeMemory(w io.Writer) {
	if !res.cfg.memory {
		return
	}
	const title = "Peak resident memory of a step"
	if res.memErr != "" {
		heading(w, title, "Not measured: "+res.memErr)
		return
	}
	if len(res.memory) == 0 {
		heading(w, title, fmt.Sprintf("No memory op selected (%s).", strings.Join(memoryOps, ", ")))
		return
	}
	heading(w, title,
		"Measured in a child process per entry that holds one decomposition (or model), after two",
		"warm-up steps and with the garbage returned to the OS, against the 2·(m+1)²·8 bytes of the",
		"eigenvectors and their double buffer. The live heap is what the op holds in Go memory",
		"(exact). Resident memory is counted above the process's before the op was prepared",
		"(runtime, data set, BLAS and LAPACK buffers warmed at the same size): at rest, and its peak",
		"during one more step (VmHWM, reset before the step); beyond the live heap it counts what the",
		"C libraries keep after the op's LAPACK calls.")
	tableHeader(w, "operation", "m", "2(m+1)²·8 MiB", "live heap MiB", "live ÷ 2(m+1)²·8", "resident at rest MiB", "peak resident MiB", "peak ÷ 2(m+1)²·8")
	for _, r := range res.memory {
		f := float64(floor(r.M))
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f |\n", res.opByID(r.Op).name, r.M, f/(1<<20),
			mib(r.Live), float64(r.Live)/f, mib(r.Rest-r.Start), mib(r.Peak-r.Start), float64(r.Peak-r.Start)/f)
	}
	fmt.Fprintln(w)
}

func (res *results) writeTargets(w io.Writer) {
	cb, ok1 := res.time[key{"centred-bordered", targetM, targetThreads}]
	cp, ok2 := res.time[key{"centred-paper", targetM, targetThreads}]
	bm, ok3 := res.time[key{"batch-magic", targetM, targetThreads}]
	br, ok4 := res.time[key{"batch-random", targetM, targetThreads}]
	if !ok1 {
		return
	}
	if native.Compiled == "openblas" {
		heading(w, fmt.Sprintf("Targets (OpenBLAS, m = %d, %d threads)", targetM, targetThreads))
	} else {
		heading(w, fmt.Sprintf("The targets' ratios in pure Go (m = %d, %d threads; the targets are set for OpenBLAS)", targetM, targetThreads))
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	fmt.Fprintf(w, "- mean-adjusted bordered step: %.2f× dgemm (target ≤ %.1f): %s\n", cb.xDgemm, targetXDgemm, verdict(cb.xDgemm <= targetXDgemm))
	if ok3 {
		f := bm.xDgemm / cb.xDgemm
		fmt.Fprintf(w, "- %s of the same kernel matrix ÷ bordered step: %.1f× (target ≥ %g): %s\n", batchName(), f, float64(targetBatchFactor), verdict(f >= targetBatchFactor))
	}
	if ok4 {
		fmt.Fprintf(w, "- %s of a random matrix ÷ bordered step: %.1f×\n", batchName(), br.xDgemm/cb.xDgemm)
	}
	if ok2 {
		f := cp.xDgemm / cb.xDgemm
		fmt.Fprintf(w, "- paper's four-update step ÷ bordered step: %.2f× (target ≥ %g): %s\n", f, targetPaperFactor, verdict(f >= targetPaperFactor))
	}
	fmt.Fprintln(w)
}

// writeCSV writes one row per measurement: kind "time" rows fill the time columns, kind
// "memory" rows the memory columns.
func (res *results) writeCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	header := []string{"kind", "backend", "op", "name", "data", "m", "threads", "reps",
		"median_ms", "min_ms", "max_ms", "dgemm_ms", "x_dgemm", "x_batch", "gflops",
		"allocs_per_step", "bytes_per_step", "deflated_per_step", "products_per_step", "secular_per_step",
		"project_ms", "solve_ms", "assemble_ms",
		"floor_bytes", "start_bytes", "rest_bytes", "peak_bytes", "live_heap_bytes"}
	_ = cw.Write(header)
	backend := native.Compiled
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	d := func(v time.Duration) string { return g(ms(v)) }
	for _, t := range res.cfg.threads {
		for _, m := range res.cfg.sizes {
			for _, o := range res.ops {
				s, ok := res.time[key{o.id, m, t}]
				if !ok {
					continue
				}
				xb := ""
				if v := res.xBatch(o, m, t); !math.IsNaN(v) {
					xb = g(v)
				}
				row := []string{"time", backend, o.id, o.name, o.data, strconv.Itoa(m), strconv.Itoa(t), strconv.Itoa(s.reps),
					d(s.median), d(s.min), d(s.max), d(s.dgemm), g(s.xDgemm), xb, g(gflops(m, s.median)),
					g(s.allocs), g(s.bytes), strconv.Itoa(s.deflated), strconv.Itoa(s.updates), strconv.Itoa(s.secular),
					d(s.project), d(s.solve), d(s.assemble), "", "", "", "", ""}
				_ = cw.Write(row)
			}
		}
	}
	for _, r := range res.memory {
		o := res.opByID(r.Op)
		row := make([]string, len(header))
		copy(row, []string{"memory", backend, o.id, o.name, o.data, strconv.Itoa(r.M), strconv.Itoa(slices.Max(res.cfg.threads))})
		copy(row[len(header)-5:], []string{strconv.FormatInt(floor(r.M), 10), strconv.FormatInt(r.Start, 10),
			strconv.FormatInt(r.Rest, 10), strconv.FormatInt(r.Peak, 10), strconv.FormatInt(r.Live, 10)})
		_ = cw.Write(row)
	}
	cw.Flush()
	return errors.Join(cw.Error(), f.Close())
}

func (res *results) opByID(id string) op {
	for _, o := range ops() {
		if o.id == id {
			return o
		}
	}
	return op{id: id, name: id}
}

// machine describes the CPU and memory, from /proc on Linux: the model name, and the
// vendor, family and model, which tell CPUs of one model name apart (an "AMD EPYC" VM
// is a Zen 4 or a Zen 5, and OpenBLAS's kernels differ).
func machine() string {
	cpu := runtime.GOARCH
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		fields := map[string]string{}
		for _, line := range strings.Split(string(b), "\n") {
			key, val, ok := strings.Cut(line, ":")
			if key = strings.TrimSpace(key); ok && fields[key] == "" {
				fields[key] = strings.TrimSpace(val)
			}
		}
		if name := fields["model name"]; name != "" {
			cpu = name
		}
		if v := fields["vendor_id"]; v != "" {
			cpu += fmt.Sprintf(" (%s family %s model %s)", v, fields["cpu family"], fields["model"])
		}
	}
	desc := fmt.Sprintf("%s, %d logical CPUs", cpu, runtime.NumCPU())
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kib, err := strconv.ParseFloat(f[1], 64); err == nil {
					desc += fmt.Sprintf(", %.0f GiB", kib/(1<<20))
				}
			}
		}
	}
	return desc
}

// heading writes a section's title and the lines that explain it, each followed by a
// blank line.
func heading(w io.Writer, title string, lines ...string) {
	fmt.Fprintf(w, "## %s\n\n", title)
	if len(lines) > 0 {
		fmt.Fprintf(w, "%s\n\n", strings.Join(lines, "\n"))
	}
}

// tableHeader writes the header of a markdown table whose first column is left-aligned
// and the others right-aligned.
func tableHeader(w io.Writer, cols ...string) {
	fmt.Fprintf(w, "| %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("--:|", len(cols)-1))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// fmtMs formats a duration in milliseconds with three significant digits or more.
func fmtMs(d time.Duration) string {
	v := ms(d)
	switch {
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func fmtCount(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
