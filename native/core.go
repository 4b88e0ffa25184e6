package native

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/cpu"
)

// This file holds the choice of OpenBLAS's kernels ("core") as pure Go, in both builds:
// the decision (decideCore), the switch and its proof (chooseCore, proveCore in
// core_check.go) over an interface that the openblas build implements with cgo
// (core_openblas.go) and the tests with fakes. docs/design.md, "Choosing OpenBLAS's
// kernels", explains why.

// CoreEnv is the environment variable that steers the choice of OpenBLAS's kernels in
// the openblas build: unset, empty or "auto", the library switches a core below what
// the CPU runs to the best one it runs; "keep" leaves OpenBLAS's choice alone; the name
// of a core (one of Prescott, Core2, Nehalem, Sandybridge, Haswell, Zen, SkylakeX,
// Cooperlake, in any case) asks for that core, which the CPU must run (a core it
// cannot run is refused, never attempted: it would crash with an illegal instruction).
// OPENBLAS_CORETYPE, when set, wins over all of this: nothing is switched.
const CoreEnv = "IKPCA_OPENBLAS_CORE"

// CoreReport says which of OpenBLAS's kernels ("cores", such as Haswell or SkylakeX)
// the library runs on and why. It is the zero value in the pure-Go build.
//
// OpenBLAS built with DYNAMIC_ARCH (Debian's is) picks its kernels when it loads, from
// the CPU's family and model; a release older than the CPU falls back to kernels far
// below what the CPU runs. Before its first OpenBLAS call the library compares that
// choice with the CPU's instruction sets and, if the choice is below them, switches to
// the best core the CPU runs, checks the new core's dgemm and dsyevd against gonum's
// pure-Go code to rounding, times a dgemm on one thread on both cores, and switches
// back unless the results agree and the new core is at least 1.1× faster. See
// [CoreEnv] for the ways to steer or turn this off.
type CoreReport struct {
	// Found is the core OpenBLAS chose itself (openblas_get_corename before the
	// library's first call), for example "Haswell"; empty in the pure-Go build.
	Found string
	// Used is the core in use after the library's choice: Found, unless Switched.
	Used string
	// Best is the best core this CPU runs, by its instruction sets (CPUID, with the
	// operating system's support): Cooperlake for AVX-512 F, DQ, BW and VL with
	// AVX512_BF16, SkylakeX for AVX-512 without it, Haswell for AVX2 and FMA (Zen on
	// AMD and Hygon); empty for other CPUs, which the library leaves to OpenBLAS.
	Best string
	// Target is the core the library switched to, or tried to and switched back from;
	// empty if it tried none.
	Target string
	// Switched reports that the library switched OpenBLAS from Found to Used.
	Switched bool
	// Suboptimal reports that Used runs narrower vectors than Best (SSE or AVX kernels on
	// an AVX2 CPU, AVX2 kernels on an AVX-512 one): dgemm runs well below what the CPU
	// can do.
	Suboptimal bool
	// Refused reports that a switch was needed or asked for but not made, or made and
	// undone (Reason says why): not for OPENBLAS_CORETYPE or CoreEnv=keep, which are
	// the user's choices.
	Refused bool
	// Reason says in a few words why Used is in use, for example "chosen by OpenBLAS",
	// "OPENBLAS_CORETYPE=Prescott" or "switch to SkylakeX undone: no gain".
	Reason string
	// FoundRate and TargetRate are the dgemm rates, in GFLOP/s, of the check that timed
	// Found before the switch and Target after it (one thread, order 256); zero when no
	// switch was tried.
	FoundRate, TargetRate float64
	// Check is how long the switch, its proof and the timings took; zero when no switch
	// was tried.
	Check time.Duration
}

// String formats the report in one line, for example "Prescott → SkylakeX (below this
// CPU's AVX-512; dgemm 7.9 → 52 GFLOP/s on one thread)" or "Cooperlake (chosen by
// OpenBLAS)". It is empty for the zero report (the pure-Go build).
func (c CoreReport) String() string {
	if c.Used == "" {
		return ""
	}
	s := c.Used
	if c.Switched {
		s = c.Found + " → " + c.Used
	}
	detail := c.Reason
	if c.FoundRate > 0 && c.TargetRate > 0 {
		detail += fmt.Sprintf("; dgemm %.3g → %.3g GFLOP/s on one thread", c.FoundRate, c.TargetRate)
	}
	return s + " (" + detail + ")"
}

// Core reports the choice of OpenBLAS's kernels ([CoreReport]). In the openblas build
// the choice is made before the first OpenBLAS call of the package, which Core makes if
// no other function has; in the pure-Go build Core returns the zero report.
func Core() CoreReport { return coreReport() }

// Vector widths of OpenBLAS's x86-64 cores, in the order that matters for dgemm.
const (
	tierSSE    = iota // SSE2/SSE3 kernels: Prescott, Core2, Nehalem, Barcelona…
	tierAVX           // AVX (or AMD's FMA4) kernels: Sandybridge, Bulldozer…
	tierAVX2          // AVX2 and FMA kernels: Haswell, Zen
	tierAVX512        // AVX-512 kernels: SkylakeX, Cooperlake
)

// coreKind is one of the cores OpenBLAS 0.3.21 names (its dynamic.c's corename table,
// which openblas_get_corename returns), with its vector tier and whether CoreEnv may ask
// for it.
type coreKind struct {
	name     string
	tier     int
	forcible bool
}

// coreKinds are the x86-64 cores OpenBLAS 0.3.21 knows, plus SapphireRapids, which
// later releases report. Only the forcible ones are ever passed to OpenBLAS, and only
// after the CPU has been checked to run them: they are the ones whose instruction sets
// cpuInfo.missing can check. An AMD core with FMA4 (Bulldozer…) is never a target.
var coreKinds = []coreKind{
	{"Katmai", tierSSE, false}, {"Coppermine", tierSSE, false}, {"Northwood", tierSSE, false},
	{"Prescott", tierSSE, true}, {"Banias", tierSSE, false}, {"Atom", tierSSE, false},
	{"Core2", tierSSE, true}, {"Penryn", tierSSE, false}, {"Dunnington", tierSSE, false},
	{"Nehalem", tierSSE, true}, {"Athlon", tierSSE, false}, {"Opteron", tierSSE, false},
	{"Opteron_SSE3", tierSSE, false}, {"Barcelona", tierSSE, false}, {"Nano", tierSSE, false},
	{"Bobcat", tierSSE, false},
	{"Sandybridge", tierAVX, true}, {"Bulldozer", tierAVX, false}, {"Piledriver", tierAVX, false},
	{"Steamroller", tierAVX, false}, {"Excavator", tierAVX, false},
	{"Haswell", tierAVX2, true}, {"Zen", tierAVX2, true},
	{"SkylakeX", tierAVX512, true}, {"Cooperlake", tierAVX512, true}, {"SapphireRapids", tierAVX512, false},
}

// lookupCore finds a core by name, in any case (OpenBLAS compares names ignoring case).
func lookupCore(name string) (coreKind, bool) {
	for _, k := range coreKinds {
		if strings.EqualFold(k.name, strings.TrimSpace(name)) {
			return k, true
		}
	}
	return coreKind{}, false
}

// forcibleNames lists the cores CoreEnv may name.
func forcibleNames() string {
	var names []string
	for _, k := range coreKinds {
		if k.forcible {
			names = append(names, k.name)
		}
	}
	return strings.Join(names, ", ")
}

// cpuInfo is what the choice needs to know about the CPU: its CPUID vendor and the
// instruction sets that both it and the operating system support.
type cpuInfo struct {
	x86    bool   // an x86-64 CPU (GOARCH amd64)
	vendor string // CPUID's vendor string: "GenuineIntel", "AuthenticAMD", "HygonGenuine"…

	sse3, ssse3, sse42, avx, avx2, fma          bool
	avx512f, avx512dq, avx512bw, avx512vl, bf16 bool
}

// hostCPU describes this CPU from golang.org/x/sys/cpu, which checks the operating
// system's support (XGETBV) of the YMM and ZMM registers as well as CPUID's bits, and
// the vendor string read by the caller (x/sys/cpu has none).
func hostCPU(vendor string) cpuInfo {
	x := cpu.X86
	return cpuInfo{
		x86: runtime.GOARCH == "amd64", vendor: vendor,
		sse3: x.HasSSE3, ssse3: x.HasSSSE3, sse42: x.HasSSE42, avx: x.HasAVX, avx2: x.HasAVX2, fma: x.HasFMA,
		avx512f: x.HasAVX512F, avx512dq: x.HasAVX512DQ, avx512bw: x.HasAVX512BW, avx512vl: x.HasAVX512VL,
		bf16: x.HasAVX512BF16,
	}
}

// avx512 reports the four AVX-512 subsets OpenBLAS's SkylakeX kernels use.
func (c cpuInfo) avx512() bool { return c.avx512f && c.avx512dq && c.avx512bw && c.avx512vl }

// tier is the widest vector tier the CPU runs.
func (c cpuInfo) tier() int {
	switch {
	case !c.x86:
		return tierSSE
	case c.avx512():
		return tierAVX512
	case c.avx2 && c.fma:
		return tierAVX2
	case c.avx:
		return tierAVX
	}
	return tierSSE
}

// amd reports an AMD or Hygon CPU (Hygon's are Zen cores, which OpenBLAS treats as AMD).
func (c cpuInfo) amd() bool { return c.vendor == "AuthenticAMD" || c.vendor == "HygonGenuine" }

// known reports a vendor the library switches cores on: Intel, AMD and Hygon, whose
// CPUs OpenBLAS's kernels are written and tested for.
func (c cpuInfo) known() bool { return c.vendor == "GenuineIntel" || c.amd() }

// best is the best core the CPU runs, or "" below AVX2 and off x86-64.
func (c cpuInfo) best() string {
	switch c.tier() {
	case tierAVX512:
		if c.bf16 {
			return "Cooperlake"
		}
		return "SkylakeX"
	case tierAVX2:
		if c.amd() {
			return "Zen"
		}
		return "Haswell"
	}
	return ""
}

// bestSets names the instruction sets behind best, for reasons.
func (c cpuInfo) bestSets() string {
	switch c.tier() {
	case tierAVX512:
		if c.bf16 {
			return "AVX-512 with BF16"
		}
		return "AVX-512"
	case tierAVX2:
		return "AVX2 and FMA"
	}
	return ""
}

// missing lists the instruction sets a forcible core needs that the CPU lacks.
func (c cpuInfo) missing(core string) []string {
	if !c.x86 {
		return []string{"x86-64"}
	}
	var need []struct {
		have bool
		name string
	}
	add := func(have bool, name string) {
		need = append(need, struct {
			have bool
			name string
		}{have, name})
	}
	switch strings.ToLower(core) {
	case "prescott":
		add(c.sse3, "SSE3")
	case "core2":
		add(c.ssse3, "SSSE3")
	case "nehalem":
		add(c.sse42, "SSE4.2")
	case "sandybridge":
		add(c.avx, "AVX")
	case "haswell", "zen":
		add(c.avx2, "AVX2")
		add(c.fma, "FMA")
	case "cooperlake", "skylakex":
		add(c.avx2, "AVX2")
		add(c.fma, "FMA")
		add(c.avx512f, "AVX-512 F")
		add(c.avx512dq, "AVX-512 DQ")
		add(c.avx512bw, "AVX-512 BW")
		add(c.avx512vl, "AVX-512 VL")
		if strings.EqualFold(core, "cooperlake") {
			add(c.bf16, "AVX512_BF16")
		}
	default:
		return []string{"a known core"}
	}
	var out []string
	for _, n := range need {
		if !n.have {
			out = append(out, n.name)
		}
	}
	return out
}

// coreInput is everything the choice of a core depends on.
type coreInput struct {
	coreType    string // OPENBLAS_CORETYPE's value
	coreTypeSet bool   // OPENBLAS_CORETYPE is set (even to "")
	choice      string // CoreEnv's value
	found       string // the core OpenBLAS reports (openblas_get_corename)
	version     string // OpenBLAS's version, "0.3.21", or "" if unknown
	cpu         cpuInfo
	dynamic     bool // gotoblas_dynamic_init and _quit are exported: a DYNAMIC_ARCH build
}

// coreDecision is decideCore's answer: the core to switch to (none if ""), whether the
// user asked for it through CoreEnv, the reason, the best core the CPU runs, and
// whether a switch was needed or asked for but is refused.
type coreDecision struct {
	target  string
	forced  bool
	reason  string
	best    string
	refused bool
}

// decideCore decides, as a pure function of its input, whether to switch OpenBLAS's
// core and to which (docs/design.md, "Choosing OpenBLAS's kernels"):
//
//  1. OPENBLAS_CORETYPE set, to anything: nothing. Users set it on purpose (an older
//     OpenBLAS computes wrong results on some CPUs with its own choice).
//  2. CoreEnv=keep: nothing.
//  3. CoreEnv naming a core: that core if it is forcible, differs from OpenBLAS's, the
//     CPU runs it and OpenBLAS can switch at run time (DYNAMIC_ARCH); otherwise nothing,
//     refused, with the reason.
//  4. Otherwise, on an Intel, AMD or Hygon x86-64 CPU that runs AVX2 and FMA: the best
//     core it runs, if OpenBLAS's is of a lower vector tier (SSE or AVX on an AVX2 CPU;
//     anything below AVX-512 on an AVX-512 one) and OpenBLAS can switch. A core name
//     the table does not know is left alone.
func decideCore(in coreInput) coreDecision {
	d := coreDecision{best: in.cpu.best()}
	choice := strings.TrimSpace(in.choice)
	if in.coreTypeSet {
		d.reason = "OPENBLAS_CORETYPE=" + in.coreType
		if choice != "" && !strings.EqualFold(choice, "auto") {
			d.reason += "; " + CoreEnv + " ignored"
		}
		return d
	}
	if strings.EqualFold(choice, "keep") {
		d.reason = CoreEnv + "=keep"
		return d
	}
	found, foundKnown := lookupCore(in.found)
	if choice != "" && !strings.EqualFold(choice, "auto") {
		d.refused = true
		want, ok := lookupCore(choice)
		switch {
		case !ok || !want.forcible:
			d.reason = fmt.Sprintf("%s=%s is not keep, auto or one of %s", CoreEnv, choice, forcibleNames())
		case foundKnown && found.name == want.name:
			d.refused = false
			d.reason = fmt.Sprintf("%s=%s, chosen by OpenBLAS", CoreEnv, want.name)
		case len(in.cpu.missing(want.name)) > 0:
			d.reason = fmt.Sprintf("%s=%s refused: the CPU lacks %s", CoreEnv, want.name, strings.Join(in.cpu.missing(want.name), ", "))
		case !in.dynamic:
			d.reason = fmt.Sprintf("%s=%s refused: %s", CoreEnv, want.name, noDynamic)
		default:
			d.refused = false
			d.target, d.forced, d.reason = want.name, true, CoreEnv+"="+want.name
		}
		return d
	}
	const chosen = "chosen by OpenBLAS"
	tier := in.cpu.tier()
	switch {
	case !foundKnown || !in.cpu.x86 || tier < tierAVX2 || found.tier >= tier:
		d.reason = chosen
	case !in.cpu.known():
		d.reason = fmt.Sprintf("%s, below this CPU's %s; vendor %q not switched", chosen, in.cpu.bestSets(), in.cpu.vendor)
	case !in.dynamic:
		d.refused = true
		d.reason = fmt.Sprintf("%s, below this CPU's %s; %s", chosen, in.cpu.bestSets(), noDynamic)
	default:
		d.target = d.best
		release := "OpenBLAS"
		if in.version != "" {
			release += " " + in.version
		}
		d.reason = fmt.Sprintf("%s chose a core below this CPU's %s", release, in.cpu.bestSets())
	}
	return d
}

// noDynamic says why a switch cannot be made without gotoblas_dynamic_init.
const noDynamic = "this OpenBLAS cannot switch cores (not built with DYNAMIC_ARCH)"

// suboptimal reports whether core used runs a lower vector tier than the CPU's best.
func suboptimal(used string, c cpuInfo) bool {
	k, ok := lookupCore(used)
	return ok && c.best() != "" && k.tier < c.tier()
}

// minGain is the speed-up of a single-threaded dgemm that an automatic switch must show
// to be kept: a kernel of a wider vector tier is 1.5–8× faster, so a smaller gain means
// that something else limits the speed and the known core is the safer one.
const minGain = 1.1

// coreLoader is what switching cores needs from OpenBLAS: the openblas build's cgo calls
// (core_openblas.go), or a test's fake.
type coreLoader interface {
	// core returns the core OpenBLAS uses now.
	core() string
	// load makes OpenBLAS choose its kernels again: with OPENBLAS_CORETYPE=name for
	// the duration of the call, or by its own detection when name is "".
	load(name string)
	// ops returns the routines of the current core that proveCore checks.
	ops() coreOps
	// rate times a dgemm of order coreRateN and returns its GFLOP/s.
	rate() float64
	// oneThread makes OpenBLAS run on one thread and returns the function that
	// restores its thread count.
	oneThread() (restore func())
}

// chooseCore decides (decideCore) and, if a switch is decided, makes it and proves it:
// the core OpenBLAS loads must be the target, its dgemm and dsyevd must agree with
// gonum's pure-Go code to rounding (proveCore), and, unless the user asked for the core
// through CoreEnv, its one-thread dgemm must be at least minGain times faster than the
// found core's. Any failure loads the found core again, by name: OpenBLAS's own choice,
// since OPENBLAS_CORETYPE is not set whenever a switch is decided, but named, so that a
// process that started elsewhere (the tests start from Prescott on any CPU) returns
// there too.
func chooseCore(in coreInput, l coreLoader) CoreReport {
	d := decideCore(in)
	rep := CoreReport{Found: in.found, Used: in.found, Best: d.best, Reason: d.reason, Refused: d.refused}
	if d.target != "" {
		start := time.Now()
		rep = switchCore(rep, d, l)
		rep.Check = time.Since(start)
	}
	rep.Suboptimal = suboptimal(rep.Used, in.cpu)
	return rep
}

// switchCore makes and proves the switch decided in d (see chooseCore).
func switchCore(rep CoreReport, d coreDecision, l coreLoader) CoreReport {
	rep.Target = d.target
	// One thread throughout: the timings compare kernels, not the machine's load, and
	// OpenBLAS's threads, which spin for a while after each threaded call, would take
	// a core from the pure-Go reference (a 7 ms proof once took 160).
	defer l.oneThread()()
	rep.FoundRate = l.rate()
	undo := func(why string) CoreReport {
		l.load(rep.Found)
		rep.Used = l.core()
		rep.Refused = true
		rep.Reason = fmt.Sprintf("switch to %s undone: %s", d.target, why)
		if rep.Used != rep.Found {
			rep.Reason += fmt.Sprintf("; OpenBLAS reloaded %s, not %s", rep.Used, rep.Found)
		}
		return rep
	}
	l.load(d.target)
	if got := l.core(); !strings.EqualFold(got, d.target) {
		return undo(fmt.Sprintf("OpenBLAS loaded %s", got))
	}
	if err := proveCore(l.ops()); err != nil {
		return undo(err.Error())
	}
	rep.TargetRate = l.rate()
	if !d.forced && !(rep.TargetRate >= minGain*rep.FoundRate) {
		return undo(fmt.Sprintf("no gain (%.2f×)", rep.TargetRate/rep.FoundRate))
	}
	rep.Used, rep.Switched = d.target, true
	return rep
}
