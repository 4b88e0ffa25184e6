package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ikpca/ikpca/native"
)

// TestBackend runs "ikpca backend --quick" on this machine and checks its sections, in
// either build; it asserts no time.
func TestBackend(t *testing.T) {
	code, out, stderr := ikpca(t, "", "backend", "--quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + out)
	keys := []string{"backend", "build", "config", "core", "check", "env", "threads", "cpu", "flags", "peak", "dgemm", "advice"}
	if native.Compiled != "openblas" {
		keys = withoutKey(keys, "check")
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 25 {
		t.Errorf("%d lines, want at most 25", len(lines))
	}
	var got []string
	for _, l := range lines {
		key, _, ok := strings.Cut(l, ":")
		if !ok || strings.Contains(key, " ") {
			t.Errorf("line %q has no key", l)
			continue
		}
		if len(got) == 0 || got[len(got)-1] != key {
			got = append(got, key)
		}
	}
	if strings.Join(got, " ") != strings.Join(keys, " ") {
		t.Errorf("sections %v, want %v", got, keys)
	}
	wants := []string{"dgemm:    n=1000: ", "GOMAXPROCS"}
	if native.Compiled == "openblas" {
		wants = append(wants, "core:     found ", "(-tags openblas, cgo)", "OpenBLAS")
	} else {
		wants = append(wants, "core:     none (pure Go)", "build with -tags openblas")
	}
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Contains(out, "n=2000") {
		t.Error("--quick timed n = 2000")
	}
}

func withoutKey(s []string, drop string) []string {
	var out []string
	for _, v := range s {
		if v != drop {
			out = append(out, v)
		}
	}
	return out
}

// TestBackendAdvice checks the advice for what can be off, from made-up facts.
func TestBackendAdvice(t *testing.T) {
	good := backendFacts{
		compiled: "openblas", threads: 16, gomaxprocs: 16, cpus: 16, cores: 8, maxThreads: 64,
		core:  native.CoreReport{Found: "Cooperlake", Used: "Cooperlake", Best: "Cooperlake", Reason: "chosen by OpenBLAS"},
		flops: 32, ghz: 2, rates: []dgemmRate{{n: 1000, gflops: 300, runs: 5}},
	}
	sub := native.CoreReport{Found: "Haswell", Used: "Haswell", Best: "Cooperlake", Suboptimal: true}
	cases := []struct {
		name string
		edit func(*backendFacts)
		want []string // one substring per advice line, in order
	}{
		{"all good", func(*backendFacts) {}, nil},
		{"pure Go", func(f *backendFacts) {
			f.compiled, f.core = "gonum", native.CoreReport{}
			f.rates[0].gflops = 10
		}, []string{"build with -tags openblas"}},
		{"OPENBLAS_CORETYPE keeps a lower core", func(f *backendFacts) {
			f.core, f.typeSet, f.coreType = sub, true, "Haswell"
			f.core.Reason = "OPENBLAS_CORETYPE=Haswell"
		}, []string{"OPENBLAS_CORETYPE=Haswell keeps OpenBLAS on Haswell kernels, below this CPU's Cooperlake: unset it"}},
		{"opt-out keeps a lower core", func(f *backendFacts) {
			f.core, f.choice = sub, "keep"
			f.core.Reason = "IKPCA_OPENBLAS_CORE=keep"
		}, []string{"IKPCA_OPENBLAS_CORE=keep keeps OpenBLAS on Haswell"}},
		{"switch undone", func(f *backendFacts) {
			f.core = sub
			f.core.Found, f.core.Used, f.core.Refused, f.core.Reason = "Prescott", "Prescott", true, "switch to Cooperlake undone: no gain (1.02×)"
		}, []string{"OpenBLAS runs Prescott kernels on a CPU that runs Cooperlake (switch to Cooperlake undone: no gain (1.02×)): set OPENBLAS_CORETYPE=Cooperlake, or install"}},
		{"forced core refused", func(f *backendFacts) {
			f.core.Refused, f.core.Reason = true, "IKPCA_OPENBLAS_CORE=SkylakeX refused: the CPU lacks AVX-512 F"
		}, []string{"the core was not switched: IKPCA_OPENBLAS_CORE=SkylakeX refused"}},
		{"one thread", func(f *backendFacts) {
			f.threads, f.env = 1, []string{"OPENBLAS_NUM_THREADS=1"}
		}, []string{"OpenBLAS uses 1 thread of 16 logical CPUs (OPENBLAS_NUM_THREADS=1)"}},
		{"MAX_THREADS", func(f *backendFacts) {
			f.threads, f.cpus, f.gomaxprocs, f.maxThreads = 64, 128, 128, 64
			f.cores = 64
			f.rates[0].gflops = 2000
		}, []string{"OpenBLAS uses 64 threads of 128 logical CPUs (its build's MAX_THREADS)"}},
		{"GOMAXPROCS", func(f *backendFacts) {
			f.gomaxprocs = 4
		}, []string{"GOMAXPROCS is 4 of 16"}},
		{"slow dgemm", func(f *backendFacts) {
			f.rates[0].gflops = 100 // of 512
		}, []string{"dgemm reaches 20% of the nominal peak"}},
		{"unknown frequency: no peak advice", func(f *backendFacts) {
			f.ghz, f.rates[0].gflops = 0, 1
		}, nil},
	}
	for _, c := range cases {
		f := good
		f.rates = append([]dgemmRate(nil), good.rates...)
		c.edit(&f)
		got := backendAdvice(f)
		if len(got) != len(c.want) {
			t.Errorf("%s: advice %q, want %d lines", c.name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: advice %q lacks %q", c.name, got[i], w)
			}
		}
	}
}

// TestWriteBackendSwitch checks the core and check lines of a switch and of an undone one.
func TestWriteBackendSwitch(t *testing.T) {
	f := backendFacts{compiled: "openblas", threads: 2, gomaxprocs: 2, cpus: 2, cores: 2, flops: 32, ghz: 2, ghzSrc: "test",
		core: native.CoreReport{Found: "Prescott", Used: "SkylakeX", Best: "SkylakeX", Target: "SkylakeX", Switched: true,
			Reason: "OpenBLAS 0.3.21 chose a core below this CPU's AVX-512", FoundRate: 9.2, TargetRate: 61, Check: 38 * time.Millisecond}}
	var b strings.Builder
	writeBackend(&b, f)
	for _, w := range []string{
		"core:     found Prescott, using SkylakeX: OpenBLAS 0.3.21 chose a core below this CPU's AVX-512\n",
		"check:    passed in 38ms (dgemm and dsyevd against pure Go; one-thread dgemm Prescott 9.2 → SkylakeX 61 GFLOP/s, 6.63×); best core for this CPU: SkylakeX\n",
		"peak:     128 GFLOP/s nominal = 2 cores × 2.00 GHz (test) × 32 flops/cycle",
		"advice:   none\n",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, b.String())
		}
	}
	f.core.Used, f.core.Switched, f.core.Refused, f.core.Suboptimal = "Prescott", false, true, true
	f.core.Reason = "switch to SkylakeX undone: no gain (1.02×)"
	f.core.TargetRate = 9.4
	b.Reset()
	writeBackend(&b, f)
	for _, w := range []string{
		"core:     found Prescott, using it: switch to SkylakeX undone: no gain (1.02×)\n",
		"check:    failed in 38ms",
		"advice:   OpenBLAS runs Prescott kernels on a CPU that runs SkylakeX",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, b.String())
		}
	}
}

func TestParseCPUInfo(t *testing.T) {
	text := `processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 207
model name	: Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz
cpu MHz		: 2100.000
physical id	: 0
core id		: 0

processor	: 1
vendor_id	: GenuineIntel
model		: 207
physical id	: 0
core id		: 0

processor	: 2
physical id	: 0
core id		: 1
`
	c := parseCPUInfo(text)
	if c.vendor != "GenuineIntel" || c.family != "6" || c.modelNo != "207" || c.cores != 2 || c.mhz != 2100 ||
		c.model != "Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz" {
		t.Errorf("%+v", c)
	}
	if g := modelGHz(c.model); g != 2.1 {
		t.Errorf("modelGHz %v", g)
	}
	for _, m := range []string{"AMD EPYC", "AMD EPYC 9R14 96-Core Processor", "x @ fast"} {
		if g := modelGHz(m); g != 0 {
			t.Errorf("modelGHz(%q) = %v", m, g)
		}
	}
}
