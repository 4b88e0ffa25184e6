package native

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

// CPUs of the decision table: what x/sys/cpu reports for them.
var (
	cpuSSE     = cpuInfo{x86: true, vendor: "GenuineIntel", sse3: true, ssse3: true}
	intelAVX2  = cpuInfo{x86: true, vendor: "GenuineIntel", sse3: true, ssse3: true, sse42: true, avx: true, avx2: true, fma: true}
	amdAVX2    = with(intelAVX2, func(c *cpuInfo) { c.vendor = "AuthenticAMD" })
	intel512   = with(intelAVX2, func(c *cpuInfo) { c.avx512f, c.avx512dq, c.avx512bw, c.avx512vl = true, true, true, true })
	intelBF16  = with(intel512, func(c *cpuInfo) { c.bf16 = true })
	amdBF16    = with(intelBF16, func(c *cpuInfo) { c.vendor = "AuthenticAMD" })
	hygonAVX2  = with(intelAVX2, func(c *cpuInfo) { c.vendor = "HygonGenuine" })
	viaAVX2    = with(intelAVX2, func(c *cpuInfo) { c.vendor = "CentaurHauls" })
	partial512 = with(intelAVX2, func(c *cpuInfo) { c.avx512f = true }) // F without BW, DQ, VL (Knights Landing)
	arm64      = cpuInfo{}
)

func with(c cpuInfo, f func(*cpuInfo)) cpuInfo {
	f(&c)
	return c
}

// TestDecideCore is the decision table: which core the library switches to, from what
// the environment says, the core OpenBLAS chose, the CPU and whether OpenBLAS can switch.
func TestDecideCore(t *testing.T) {
	cases := []struct {
		name        string
		in          coreInput
		target      string // "" for none
		forced      bool
		refused     bool
		best        string
		reasonParts []string
	}{
		{name: "OPENBLAS_CORETYPE=Prescott stays Prescott",
			in:          coreInput{coreType: "Prescott", coreTypeSet: true, found: "Prescott", cpu: intelBF16, dynamic: true},
			best:        "Cooperlake",
			reasonParts: []string{"OPENBLAS_CORETYPE=Prescott"}},
		{name: "OPENBLAS_CORETYPE wins over a forced core",
			in:          coreInput{coreType: "Haswell", coreTypeSet: true, choice: "SkylakeX", found: "Haswell", cpu: intel512, dynamic: true},
			best:        "SkylakeX",
			reasonParts: []string{"OPENBLAS_CORETYPE=Haswell", CoreEnv + " ignored"}},
		{name: "OPENBLAS_CORETYPE set but empty still counts",
			in:          coreInput{coreTypeSet: true, found: "Prescott", cpu: intelAVX2, dynamic: true},
			best:        "Haswell",
			reasonParts: []string{"OPENBLAS_CORETYPE="}},
		{name: "opt-out",
			in:          coreInput{choice: "keep", found: "Prescott", cpu: intel512, dynamic: true},
			best:        "SkylakeX",
			reasonParts: []string{CoreEnv + "=keep"}},
		{name: "opt-out in capitals",
			in:          coreInput{choice: " KEEP ", found: "Prescott", cpu: intel512, dynamic: true},
			best:        "SkylakeX",
			reasonParts: []string{"=keep"}},
		{name: "Prescott on AVX2 Intel → Haswell",
			in:     coreInput{found: "Prescott", version: "0.3.21", cpu: intelAVX2, dynamic: true},
			target: "Haswell", best: "Haswell",
			reasonParts: []string{"OpenBLAS 0.3.21 chose a core below this CPU's AVX2 and FMA"}},
		{name: "Prescott on AVX2 AMD → Zen",
			in:     coreInput{found: "Prescott", cpu: amdAVX2, dynamic: true},
			target: "Zen", best: "Zen"},
		{name: "Nehalem on AVX2 Hygon → Zen",
			in:     coreInput{found: "Nehalem", cpu: hygonAVX2, dynamic: true},
			target: "Zen", best: "Zen"},
		{name: "Sandybridge on AVX2 → Haswell",
			in:     coreInput{found: "Sandybridge", cpu: intelAVX2, dynamic: true},
			target: "Haswell", best: "Haswell"},
		{name: "Prescott on AVX-512 → SkylakeX",
			in:     coreInput{found: "Prescott", cpu: intel512, dynamic: true},
			target: "SkylakeX", best: "SkylakeX",
			reasonParts: []string{"below this CPU's AVX-512"}},
		{name: "Prescott on AVX-512 with BF16 → Cooperlake",
			in:     coreInput{found: "Prescott", cpu: intelBF16, dynamic: true},
			target: "Cooperlake", best: "Cooperlake"},
		{name: "Haswell on AVX-512 with BF16 AMD → Cooperlake",
			in:     coreInput{found: "Haswell", cpu: amdBF16, dynamic: true},
			target: "Cooperlake", best: "Cooperlake",
			reasonParts: []string{"AVX-512 with BF16"}},
		{name: "Zen on AVX-512 AMD → Cooperlake",
			in:     coreInput{found: "Zen", cpu: amdBF16, dynamic: true},
			target: "Cooperlake", best: "Cooperlake"},
		{name: "lower-case name from OpenBLAS",
			in:     coreInput{found: "prescott", cpu: intelAVX2, dynamic: true},
			target: "Haswell", best: "Haswell"},
		{name: "Haswell on AVX2-only → nothing",
			in:          coreInput{found: "Haswell", cpu: intelAVX2, dynamic: true},
			best:        "Haswell",
			reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "Haswell on AVX2-only AMD → nothing (Zen is the same tier)",
			in:   coreInput{found: "Haswell", cpu: amdAVX2, dynamic: true},
			best: "Zen", reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "SkylakeX on BF16 → nothing (same tier)",
			in:   coreInput{found: "SkylakeX", cpu: intelBF16, dynamic: true},
			best: "Cooperlake", reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "a later release's SapphireRapids → nothing",
			in:   coreInput{found: "SapphireRapids", cpu: intelBF16, dynamic: true},
			best: "Cooperlake", reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "Haswell on AVX-512 F alone → nothing",
			in:   coreInput{found: "Haswell", cpu: partial512, dynamic: true},
			best: "Haswell", reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "Prescott on an SSE CPU → nothing",
			in:          coreInput{found: "Prescott", cpu: cpuSSE, dynamic: true},
			reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "symbols missing → nothing, and says so",
			in:      coreInput{found: "Prescott", cpu: intel512, dynamic: false},
			refused: true, best: "SkylakeX",
			reasonParts: []string{"below this CPU's AVX-512", "DYNAMIC_ARCH"}},
		{name: "an unknown vendor is left alone",
			in:          coreInput{found: "Prescott", cpu: viaAVX2, dynamic: true},
			best:        "Haswell",
			reasonParts: []string{"CentaurHauls", "not switched"}},
		{name: "a core name not in the table is left alone",
			in:   coreInput{found: "Unknown", cpu: intel512, dynamic: true},
			best: "SkylakeX", reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "not x86-64",
			in:          coreInput{found: "NEOVERSEN1", cpu: arm64, dynamic: true},
			reasonParts: []string{"chosen by OpenBLAS"}},
		{name: "auto is the default",
			in:     coreInput{choice: "auto", found: "Prescott", cpu: intel512, dynamic: true},
			target: "SkylakeX", best: "SkylakeX"},
		{name: "forced SkylakeX over Cooperlake",
			in:     coreInput{choice: "SkylakeX", found: "Cooperlake", cpu: amdBF16, dynamic: true},
			target: "SkylakeX", forced: true, best: "Cooperlake",
			reasonParts: []string{CoreEnv + "=SkylakeX"}},
		{name: "forced name in any case",
			in:     coreInput{choice: "skylakex", found: "Haswell", cpu: intel512, dynamic: true},
			target: "SkylakeX", forced: true, best: "SkylakeX"},
		{name: "forced down to Prescott",
			in:     coreInput{choice: "Prescott", found: "Haswell", cpu: intelAVX2, dynamic: true},
			target: "Prescott", forced: true, best: "Haswell"},
		{name: "forced core already in use",
			in:   coreInput{choice: "Haswell", found: "Haswell", cpu: intelAVX2, dynamic: true},
			best: "Haswell", reasonParts: []string{CoreEnv + "=Haswell", "chosen by OpenBLAS"}},
		{name: "forced core the CPU cannot run → refused",
			in:      coreInput{choice: "SkylakeX", found: "Haswell", cpu: intelAVX2, dynamic: true},
			refused: true, best: "Haswell",
			reasonParts: []string{"SkylakeX refused", "AVX-512 F", "AVX-512 VL"}},
		{name: "forced Cooperlake without BF16 → refused",
			in:      coreInput{choice: "Cooperlake", found: "SkylakeX", cpu: intel512, dynamic: true},
			refused: true, best: "SkylakeX",
			reasonParts: []string{"Cooperlake refused", "AVX512_BF16"}},
		{name: "forced on another architecture → refused",
			in:          coreInput{choice: "Haswell", found: "NEOVERSEN1", cpu: arm64, dynamic: true},
			refused:     true,
			reasonParts: []string{"refused", "x86-64"}},
		{name: "forced without symbols → refused",
			in:      coreInput{choice: "SkylakeX", found: "Haswell", cpu: intel512, dynamic: false},
			refused: true, best: "SkylakeX",
			reasonParts: []string{"refused", "DYNAMIC_ARCH"}},
		{name: "forced core of another vendor's table → refused",
			in:      coreInput{choice: "Bulldozer", found: "Haswell", cpu: amdAVX2, dynamic: true},
			refused: true, best: "Zen",
			reasonParts: []string{"is not keep, auto or one of"}},
		{name: "a name that is no core → refused",
			in:      coreInput{choice: "fastest", found: "Haswell", cpu: intelAVX2, dynamic: true},
			refused: true, best: "Haswell",
			reasonParts: []string{CoreEnv + "=fastest is not keep, auto or one of", "SkylakeX"}},
	}
	for _, c := range cases {
		d := decideCore(c.in)
		if d.target != c.target || d.forced != c.forced || d.refused != c.refused || d.best != c.best {
			t.Errorf("%s: target %q forced %v refused %v best %q, want %q %v %v %q (%s)",
				c.name, d.target, d.forced, d.refused, d.best, c.target, c.forced, c.refused, c.best, d.reason)
		}
		if d.reason == "" {
			t.Errorf("%s: no reason", c.name)
		}
		for _, p := range c.reasonParts {
			if !strings.Contains(d.reason, p) {
				t.Errorf("%s: reason %q lacks %q", c.name, d.reason, p)
			}
		}
		if d.target != "" {
			if m := c.in.cpu.missing(d.target); len(m) > 0 {
				t.Errorf("%s: target %s needs %v, which the CPU lacks", c.name, d.target, m)
			}
			if k, ok := lookupCore(d.target); !ok || !k.forcible {
				t.Errorf("%s: target %s is not a forcible core", c.name, d.target)
			}
		}
	}
}

// fakeCore is a core of fakeLoader: its dgemm rate, and whether its results are wrong.
type fakeCore struct {
	rate   float64
	broken bool
}

// fakeLoader stands for OpenBLAS in chooseCore: load switches to a core of its table, or
// to found with "", and a name outside the table loads loadsAs instead (as OpenBLAS does
// with a name it does not know).
type fakeLoader struct {
	found, current, loadsAs string
	cores                   map[string]fakeCore
	loads                   []string
}

func (f *fakeLoader) core() string { return f.current }

func (f *fakeLoader) load(name string) {
	f.loads = append(f.loads, name)
	switch _, ok := f.cores[name]; {
	case name == "":
		f.current = f.found
	case ok:
		f.current = name
	default:
		f.current = f.loadsAs
	}
}

func (f *fakeLoader) ops() coreOps {
	ops := gonumOps()
	if f.cores[f.current].broken {
		good := ops.dgemm
		ops.dgemm = func(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
			good(tA, tB, m, n, k-1, alpha, a, lda, b, ldb, beta, c, ldc) // drops a term
		}
	}
	return ops
}

func (f *fakeLoader) rate() float64 { return f.cores[f.current].rate }

func (f *fakeLoader) oneThread() func() {
	f.loads = append(f.loads, "one thread")
	return func() { f.loads = append(f.loads, "threads restored") }
}

// gonumOps are gonum's pure-Go dgemm and eigensolver, which proveCore must accept.
func gonumOps() coreOps {
	return coreOps{
		dgemm: gonumblas.Implementation{}.Dgemm,
		dsyevd: func(n int, a []float64, lda int, w []float64) bool {
			return gonumEigenSym(n, a, lda, w, true) == nil
		},
	}
}

// TestChooseCore checks the switch and its proof against a fake OpenBLAS: a switch is
// kept only when the loaded core is the target, its results agree and (unless forced)
// it is faster; otherwise the found core is loaded again and the report says why.
func TestChooseCore(t *testing.T) {
	cores := map[string]fakeCore{"Prescott": {rate: 8}, "Haswell": {rate: 40}, "SkylakeX": {rate: 60}, "Cooperlake": {rate: 61}}
	auto := coreInput{found: "Prescott", cpu: intel512, dynamic: true}
	cases := []struct {
		name     string
		in       coreInput
		cores    map[string]fakeCore
		loadsAs  string
		used     string
		switched bool
		refused  bool
		subopt   bool
		reason   string
	}{
		{name: "switch kept", in: auto, cores: cores, used: "SkylakeX", switched: true, reason: "below this CPU's AVX-512"},
		{name: "no gain", in: auto, cores: map[string]fakeCore{"Prescott": {rate: 50}, "SkylakeX": {rate: 52}},
			used: "Prescott", refused: true, subopt: true, reason: "switch to SkylakeX undone: no gain (1.04×)"},
		{name: "wrong results", in: auto, cores: map[string]fakeCore{"Prescott": {rate: 8}, "SkylakeX": {rate: 60, broken: true}},
			used: "Prescott", refused: true, subopt: true, reason: "switch to SkylakeX undone: dgemm NN"},
		{name: "OpenBLAS loads another core", in: auto, cores: map[string]fakeCore{"Prescott": {rate: 8}}, loadsAs: "Haswell",
			used: "Prescott", refused: true, subopt: true, reason: "switch to SkylakeX undone: OpenBLAS loaded Haswell"},
		{name: "forced, slower but kept", in: coreInput{choice: "Haswell", found: "SkylakeX", cpu: intel512, dynamic: true}, cores: cores,
			used: "Haswell", switched: true, subopt: true, reason: CoreEnv + "=Haswell"},
		{name: "forced, wrong results undone", in: coreInput{choice: "Haswell", found: "SkylakeX", cpu: intel512, dynamic: true},
			cores: map[string]fakeCore{"SkylakeX": {rate: 60}, "Haswell": {rate: 40, broken: true}},
			used:  "SkylakeX", refused: true, reason: "switch to Haswell undone"},
		{name: "kept by OPENBLAS_CORETYPE", in: coreInput{coreType: "Prescott", coreTypeSet: true, found: "Prescott", cpu: intel512, dynamic: true},
			cores: cores, used: "Prescott", subopt: true, reason: "OPENBLAS_CORETYPE=Prescott"},
		{name: "good already", in: coreInput{found: "SkylakeX", cpu: intel512, dynamic: true}, cores: cores,
			used: "SkylakeX", reason: "chosen by OpenBLAS"},
	}
	for _, c := range cases {
		l := &fakeLoader{found: c.in.found, current: c.in.found, loadsAs: c.loadsAs, cores: c.cores}
		rep := chooseCore(c.in, l)
		if rep.Used != c.used || rep.Switched != c.switched || rep.Refused != c.refused || rep.Suboptimal != c.subopt || l.current != c.used {
			t.Errorf("%s: %+v (OpenBLAS on %s), want used %s switched %v refused %v suboptimal %v",
				c.name, rep, l.current, c.used, c.switched, c.refused, c.subopt)
		}
		if !strings.Contains(rep.Reason, c.reason) {
			t.Errorf("%s: reason %q, want %q", c.name, rep.Reason, c.reason)
		}
		if rep.Found != c.in.found {
			t.Errorf("%s: found %q", c.name, rep.Found)
		}
		tried := len(l.loads) > 0
		if tried != (rep.Target != "") || tried != (rep.FoundRate > 0) {
			t.Errorf("%s: loads %v, target %q, found rate %v", c.name, l.loads, rep.Target, rep.FoundRate)
		}
		if tried {
			// One thread from before the first timing to after the last load.
			if n := len(l.loads); l.loads[0] != "one thread" || l.loads[n-1] != "threads restored" {
				t.Errorf("%s: loads %v", c.name, l.loads)
			} else if rep.Refused && l.loads[n-2] != c.in.found {
				t.Errorf("%s: undone without reloading the found core: loads %v", c.name, l.loads)
			}
		}
		t.Logf("%s: %s", c.name, rep)
	}
}

func TestCoreReportString(t *testing.T) {
	cases := []struct {
		rep  CoreReport
		want string
	}{
		{CoreReport{}, ""},
		{CoreReport{Found: "Cooperlake", Used: "Cooperlake", Reason: "chosen by OpenBLAS"}, "Cooperlake (chosen by OpenBLAS)"},
		{CoreReport{Found: "Prescott", Used: "Prescott", Reason: "OPENBLAS_CORETYPE=Prescott"}, "Prescott (OPENBLAS_CORETYPE=Prescott)"},
		{CoreReport{Found: "Prescott", Used: "SkylakeX", Switched: true, Reason: "OpenBLAS 0.3.21 chose a core below this CPU's AVX-512", FoundRate: 7.94, TargetRate: 52.3},
			"Prescott → SkylakeX (OpenBLAS 0.3.21 chose a core below this CPU's AVX-512; dgemm 7.94 → 52.3 GFLOP/s on one thread)"},
		{CoreReport{Found: "Prescott", Used: "Prescott", Reason: "switch to SkylakeX undone: dgemm NN: C[0,0] = 1, pure Go 2", FoundRate: 8},
			"Prescott (switch to SkylakeX undone: dgemm NN: C[0,0] = 1, pure Go 2)"},
	}
	for _, c := range cases {
		if got := c.rep.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.rep, got, c.want)
		}
	}
}

// TestProveCore checks that the proof accepts gonum's own routines and rejects wrong
// ones: a product that drops a term, one that writes past a row of C, an eigensolver
// with a wrong eigenvalue, unnormalised vectors, or one that fails.
func TestProveCore(t *testing.T) {
	if err := proveCore(gonumOps()); err != nil {
		t.Fatalf("gonum's own routines: %v", err)
	}
	good := gonumOps()
	bad := map[string]coreOps{
		"a term dropped": {dgemm: func(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
			good.dgemm(tA, tB, m, n, k-1, alpha, a, lda, b, ldb, beta, c, ldc)
		}, dsyevd: good.dsyevd},
		"an entry off by 1e-9": {dgemm: func(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
			good.dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			c[(m/2)*ldc+n/3] += 1e-9
		}, dsyevd: good.dsyevd},
		"one transposition wrong": {dgemm: func(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
			if tA == blas.Trans && tB == blas.NoTrans {
				alpha = -alpha
			}
			good.dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		}, dsyevd: good.dsyevd},
		"a write past a row": {dgemm: func(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
			good.dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			c[n] = 0
		}, dsyevd: good.dsyevd},
		"a wrong eigenvalue": {dgemm: good.dgemm, dsyevd: func(n int, a []float64, lda int, w []float64) bool {
			ok := good.dsyevd(n, a, lda, w)
			w[n-1] *= 1 + 1e-10
			return ok
		}},
		"vectors scaled": {dgemm: good.dgemm, dsyevd: func(n int, a []float64, lda int, w []float64) bool {
			ok := good.dsyevd(n, a, lda, w)
			for i := range n {
				a[i*lda+3] *= 1 + 1e-9
			}
			return ok
		}},
		"eigensolver fails": {dgemm: good.dgemm, dsyevd: func(int, []float64, int, []float64) bool { return false }},
	}
	for name, ops := range bad {
		if err := proveCore(ops); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestDgemmRate checks that the timing returns a positive, finite rate.
func TestDgemmRate(t *testing.T) {
	if r := dgemmRate(gonumblas.Implementation{}.Dgemm, 32); !(r > 0 && r < 1e9) {
		t.Errorf("rate %v", r)
	}
}

// TestCoreBuildGonum checks that the pure-Go build reports no core
// (TestCoreBuildOpenBLAS checks the other build).
func TestCoreBuildGonum(t *testing.T) {
	if Compiled != "gonum" {
		t.Skip("pure-Go build only")
	}
	if rep := Core(); rep != (CoreReport{}) || rep.String() != "" {
		t.Errorf("pure-Go build reports a core: %+v", rep)
	}
	if info := gonumInfo(); info.Core != (CoreReport{}) || strings.Contains(info.String(), "core") {
		t.Errorf("pure-Go Info %v", info)
	}
}
