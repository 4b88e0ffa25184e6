package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/cpu"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
)

func backendCommand(e env) *cobra.Command {
	var quick bool
	c := &cobra.Command{
		Use:   "backend",
		Short: "Report the BLAS/LAPACK backend, OpenBLAS's kernels, the CPU and dgemm's speed, with advice",
		Long: `backend reports what the library computes with — the build (OpenBLAS or pure Go), OpenBLAS's
configuration and the kernels ("core") it runs, chosen by OpenBLAS or switched by the library
and why, the threads, the CPU and its vector instruction sets — and times a dgemm at n = 1000
and 2000 on the current threads against the CPU's nominal peak. It ends with advice when
something is off: kernels below what the CPU runs, too few threads, the pure-Go build, a dgemm
far below the peak. The output is plain text, for bug reports.

The library switches OpenBLAS's kernels when OpenBLAS chose ones below what the CPU runs
(docs/design.md, "Choosing OpenBLAS's kernels"): OPENBLAS_CORETYPE, when set, is respected;
IKPCA_OPENBLAS_CORE=keep leaves OpenBLAS's choice alone, and IKPCA_OPENBLAS_CORE=NAME asks for
a core (Haswell, SkylakeX, Cooperlake, ...), which the CPU must run.`,
	}
	c.Flags().BoolVar(&quick, "quick", false, "time dgemm at n = 1000 only, with 3 runs")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		f, err := gatherBackend(cmd, quick)
		if err != nil {
			return err
		}
		writeBackend(e.out, f)
		return nil
	}
	return c
}

// backendFacts is what "ikpca backend" reports, gathered by gatherBackend and written
// by writeBackend, so that the advice can be tested on any machine.
type backendFacts struct {
	info     native.Info
	core     native.CoreReport
	compiled string
	env      []string // the relevant environment variables that are set, NAME=value
	coreType string   // OPENBLAS_CORETYPE, if set
	typeSet  bool
	choice   string // native.CoreEnv's value

	threads, gomaxprocs, cpus, cores int
	maxThreads                       int // OpenBLAS's MAX_THREADS, 0 if unknown

	model  string // "AMD EPYC (AuthenticAMD, family 26, model 2)"
	flags  []string
	flops  int    // nominal double-precision flops per cycle and core
	simd   string // the instruction set behind flops
	ghz    float64
	ghzSrc string

	rates []dgemmRate
}

// dgemmRate is a timed dgemm: order n, the median rate over runs.
type dgemmRate struct {
	n      int
	gflops float64
	runs   int
}

// peak is the nominal peak in GFLOP/s, 0 if the frequency is unknown.
func (f backendFacts) peak() float64 { return float64(f.cores) * f.ghz * float64(f.flops) }

// backendEnv lists the environment variables that change the backend's kernels or threads.
var backendEnv = []string{"OPENBLAS_CORETYPE", native.CoreEnv, "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "GOMAXPROCS"}

func gatherBackend(cmd *cobra.Command, quick bool) (backendFacts, error) {
	f := backendFacts{compiled: native.Compiled}
	f.coreType, f.typeSet = os.LookupEnv("OPENBLAS_CORETYPE")
	f.choice = os.Getenv(native.CoreEnv)
	for _, name := range backendEnv {
		if v, ok := os.LookupEnv(name); ok {
			f.env = append(f.env, name+"="+v)
		}
	}
	f.info = native.Use()
	f.core = native.Core()
	f.threads, f.gomaxprocs, f.cpus = native.Threads(), runtime.GOMAXPROCS(0), runtime.NumCPU()
	for _, w := range strings.Fields(f.info.Config) {
		if v, ok := strings.CutPrefix(w, "MAX_THREADS="); ok {
			f.maxThreads, _ = strconv.Atoi(v)
		}
	}
	info := readCPUInfo()
	f.cores = info.cores
	if f.cores == 0 {
		f.cores = f.cpus
	}
	f.model = runtime.GOARCH
	if info.model != "" {
		f.model = info.model
	}
	if info.vendor != "" {
		f.model += fmt.Sprintf(" (%s, family %s, model %s)", info.vendor, info.family, info.modelNo)
	}
	f.flags, f.flops, f.simd = cpuFlags()
	f.ghz, f.ghzSrc = cpuGHz(info)

	sizes := []struct{ n, runs int }{{1000, 5}, {2000, 3}}
	if quick {
		sizes = sizes[:1]
		sizes[0].runs = 3
	}
	for _, s := range sizes {
		r, err := timeDgemm(cmd, s.n, s.runs)
		if err != nil {
			return f, err
		}
		f.rates = append(f.rates, r)
	}
	return f, nil
}

// timeDgemm times C = A·B of order n with native.Gemm on the current threads: one run
// to warm up, then the median of runs.
func timeDgemm(cmd *cobra.Command, n, runs int) (dgemmRate, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func() blas64.General {
		g := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i := range g.Data {
			g.Data[i] = rng.Float64() - 0.5
		}
		return g
	}
	a, b, c := mk(), mk(), mk()
	times := make([]float64, 0, runs)
	for i := range runs + 1 {
		if err := cmd.Context().Err(); err != nil {
			return dgemmRate{}, fmt.Errorf("%w while timing dgemm", errInterrupted)
		}
		start := time.Now()
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
		if i > 0 {
			times = append(times, time.Since(start).Seconds())
		}
	}
	slices.Sort(times)
	med := times[len(times)/2]
	if len(times)%2 == 0 {
		med = (times[len(times)/2-1] + med) / 2
	}
	fn := float64(n)
	return dgemmRate{n: n, gflops: 2 * fn * fn * fn / med / 1e9, runs: runs}, nil
}

// cpuInfo is what /proc/cpuinfo says of the CPU (Linux; empty elsewhere).
type cpuInfo struct {
	model, vendor, family, modelNo string
	mhz                            float64 // the first processor's "cpu MHz"
	cores                          int     // distinct (physical id, core id) pairs
}

func readCPUInfo() cpuInfo {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return cpuInfo{}
	}
	return parseCPUInfo(string(b))
}

func parseCPUInfo(text string) cpuInfo {
	var c cpuInfo
	cores := map[string]bool{}
	var phys string
	for _, line := range strings.Split(text, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		first := func(dst *string) {
			if *dst == "" {
				*dst = val
			}
		}
		switch key {
		case "model name":
			first(&c.model)
		case "vendor_id":
			first(&c.vendor)
		case "cpu family":
			first(&c.family)
		case "model":
			first(&c.modelNo)
		case "cpu MHz":
			if c.mhz == 0 {
				c.mhz, _ = strconv.ParseFloat(val, 64)
			}
		case "physical id":
			phys = val
		case "core id":
			cores[phys+"/"+val] = true
		}
	}
	c.cores = len(cores)
	return c
}

// cpuFlags lists the vector instruction sets that the CPU and the operating system
// support (golang.org/x/sys/cpu), in /proc/cpuinfo's names, and the nominal
// double-precision flops per cycle and core they give: 32 with AVX-512 (two 512-bit FMA
// units assumed), 16 with AVX2 and FMA (two 256-bit units), 8 otherwise.
func cpuFlags() (flags []string, flops int, simd string) {
	if runtime.GOARCH != "amd64" {
		return nil, 8, runtime.GOARCH
	}
	x := cpu.X86
	for _, f := range []struct {
		has  bool
		name string
	}{
		{x.HasSSE3, "sse3"}, {x.HasSSSE3, "ssse3"}, {x.HasSSE42, "sse4_2"}, {x.HasAVX, "avx"}, {x.HasAVX2, "avx2"}, {x.HasFMA, "fma"},
		{x.HasAVX512F, "avx512f"}, {x.HasAVX512DQ, "avx512dq"}, {x.HasAVX512BW, "avx512bw"}, {x.HasAVX512VL, "avx512vl"},
		{x.HasAVX512BF16, "avx512_bf16"},
	} {
		if f.has {
			flags = append(flags, f.name)
		}
	}
	switch {
	case x.HasAVX512F:
		return flags, 32, "AVX-512, 2 FMA units assumed"
	case x.HasAVX2 && x.HasFMA:
		return flags, 16, "AVX2 and FMA, 2 FMA units assumed"
	}
	return flags, 8, "SSE/AVX without FMA"
}

// cpuGHz returns the CPU's nominal frequency and where it was read: the base frequency
// the kernel reports, its maximum, the "@ x.xxGHz" of the model name, or the current
// "cpu MHz" of /proc/cpuinfo, in that order; 0 if none is known.
func cpuGHz(info cpuInfo) (float64, string) {
	const dir = "/sys/devices/system/cpu/cpu0/cpufreq/"
	for _, name := range []string{"base_frequency", "cpuinfo_max_freq"} {
		if b, err := os.ReadFile(dir + name); err == nil {
			if khz, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil && khz > 0 {
				return khz / 1e6, dir + name
			}
		}
	}
	if ghz := modelGHz(info.model); ghz > 0 {
		return ghz, `the model name's "@ GHz"`
	}
	if info.mhz > 0 {
		return info.mhz / 1000, `/proc/cpuinfo "cpu MHz"`
	}
	return 0, ""
}

// modelGHz reads the "@ 2.10GHz" of an Intel model name, 0 if there is none.
func modelGHz(model string) float64 {
	_, after, ok := strings.Cut(model, "@")
	if !ok {
		return 0
	}
	s, ok := strings.CutSuffix(strings.TrimSpace(after), "GHz")
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0
	}
	return v
}

// writeBackend writes the report: one fact a line, then the advice.
func writeBackend(w io.Writer, f backendFacts) {
	line := func(key, format string, args ...any) {
		fmt.Fprintf(w, "%-9s %s\n", key+":", fmt.Sprintf(format, args...))
	}
	line("backend", "%v", f.info)
	if f.compiled == "openblas" {
		line("build", "openblas (-tags openblas, cgo): OpenBLAS and LAPACKE")
	} else {
		line("build", "pure Go (no -tags openblas): gonum's BLAS and LAPACK")
	}
	line("config", "%s", f.info.Config)
	c := f.core
	switch {
	case c.Used == "":
		line("core", "none (pure Go)")
	case c.Switched:
		line("core", "found %s, using %s: %s", c.Found, c.Used, c.Reason)
	default:
		line("core", "found %s, using it: %s", c.Found, c.Reason)
	}
	if c.Used != "" {
		best := c.Best
		if best == "" {
			best = "none in ikpca's table"
		}
		check := "none: no switch tried"
		if c.Target != "" {
			verdict := "passed"
			if !c.Switched {
				verdict = "failed"
			}
			check = fmt.Sprintf("%s in %v (dgemm and dsyevd against pure Go", verdict, c.Check.Round(time.Millisecond))
			if c.FoundRate > 0 && c.TargetRate > 0 {
				check += fmt.Sprintf("; one-thread dgemm %s %.3g → %s %.3g GFLOP/s, %.2f×", c.Found, c.FoundRate, c.Target, c.TargetRate, c.TargetRate/c.FoundRate)
			}
			check += ")"
		}
		line("check", "%s; best core for this CPU: %s", check, best)
	}
	if len(f.env) == 0 {
		line("env", "none of %s set", strings.Join(backendEnv, ", "))
	} else {
		line("env", "%s", strings.Join(f.env, " "))
	}
	if f.compiled == "openblas" {
		line("threads", "OpenBLAS %d, GOMAXPROCS %d, logical CPUs %d, cores %d", f.threads, f.gomaxprocs, f.cpus, f.cores)
	} else {
		line("threads", "GOMAXPROCS %d, logical CPUs %d, cores %d", f.gomaxprocs, f.cpus, f.cores)
	}
	line("cpu", "%s", f.model)
	if len(f.flags) == 0 {
		line("flags", "none of the x86-64 vector sets")
	} else {
		line("flags", "%s", strings.Join(f.flags, " "))
	}
	if p := f.peak(); p > 0 {
		line("peak", "%.0f GFLOP/s nominal = %d cores × %.2f GHz (%s) × %d flops/cycle (%s)", p, f.cores, f.ghz, f.ghzSrc, f.flops, f.simd)
	} else {
		line("peak", "unknown (no CPU frequency found)")
	}
	for _, r := range f.rates {
		pct := ""
		if p := f.peak(); p > 0 {
			pct = fmt.Sprintf(", %.0f%% of nominal", 100*r.gflops/p)
		}
		line("dgemm", "n=%d: %.1f GFLOP/s (median of %d%s)", r.n, r.gflops, r.runs, pct)
	}
	advice := backendAdvice(f)
	if len(advice) == 0 {
		line("advice", "none")
	}
	for _, a := range advice {
		line("advice", "%s", a)
	}
}

// farBelowPeak is the share of the nominal peak below which dgemm is reported as slow:
// OpenBLAS reaches 60–90 % of it on an idle machine with the right kernels (the nominal
// frequency is often below the turbo frequency, so even more), and a third of it means
// narrower kernels, other load or fewer cores than it seems.
const farBelowPeak = 0.35

// backendAdvice says what to do about what looks wrong in f, one line each.
func backendAdvice(f backendFacts) []string {
	var out []string
	if f.compiled != "openblas" {
		out = append(out, "pure-Go build: build with -tags openblas for OpenBLAS, whose dgemm is 10× faster or more (Debian: sudo apt-get install libopenblas-dev liblapacke-dev)")
	}
	c := f.core
	switch {
	case c.Suboptimal && f.typeSet:
		out = append(out, fmt.Sprintf("OPENBLAS_CORETYPE=%s keeps OpenBLAS on %s kernels, below this CPU's %s: unset it unless it was set on purpose", f.coreType, c.Used, c.Best))
	case c.Suboptimal && strings.EqualFold(strings.TrimSpace(f.choice), "keep"):
		out = append(out, fmt.Sprintf("%s=keep keeps OpenBLAS on %s kernels, below this CPU's %s: unset it to let ikpca switch", native.CoreEnv, c.Used, c.Best))
	case c.Suboptimal:
		out = append(out, fmt.Sprintf("OpenBLAS runs %s kernels on a CPU that runs %s (%s): set OPENBLAS_CORETYPE=%s, or install an OpenBLAS that knows this CPU", c.Used, c.Best, c.Reason, c.Best))
	case c.Refused:
		out = append(out, "the core was not switched: "+c.Reason)
	}
	if f.compiled == "openblas" && f.threads < f.cpus {
		why := ""
		if f.maxThreads > 0 && f.threads == f.maxThreads {
			why = " (its build's MAX_THREADS)"
		}
		if set := envSet(f.env, "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"); set != "" {
			why = " (" + set + ")"
		}
		out = append(out, fmt.Sprintf("OpenBLAS uses %s of %d logical CPUs%s: unset the variable or call native.SetThreads", count(f.threads, "thread"), f.cpus, why))
	}
	if f.gomaxprocs < f.cpus {
		out = append(out, fmt.Sprintf("GOMAXPROCS is %d of %d logical CPUs (the GOMAXPROCS variable or a container's CPU limit): ikpca's own parallel loops use no more", f.gomaxprocs, f.cpus))
	}
	if p := f.peak(); p > 0 && f.compiled == "openblas" && len(f.rates) > 0 {
		var best float64
		for _, r := range f.rates {
			best = math.Max(best, r.gflops)
		}
		if best < farBelowPeak*p {
			out = append(out, fmt.Sprintf("dgemm reaches %.0f%% of the nominal peak: look for other load on the machine (top), kernels below the CPU's, or a virtual machine's CPU limits", 100*best/p))
		}
	}
	return out
}

// envSet returns the first of names set in env (NAME=value entries), as NAME=value.
func envSet(env []string, names ...string) string {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(names, name) {
			return kv
		}
	}
	return ""
}
