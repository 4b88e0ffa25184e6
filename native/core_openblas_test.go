//go:build cgo && openblas

package native

// Tests of the choice of OpenBLAS's kernels on the real OpenBLAS. A process chooses its
// core once, so each case runs the test binary again (TestCoreChild) with the
// environment it needs, and reads back what the child chose and checked. They hold on
// any x86-64 CPU, whichever core OpenBLAS picks, skip what cannot apply (a CPU without
// AVX2, an OpenBLAS that cannot switch), and never assert a time.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/backend"
)

// childMode tells TestCoreChild what to do: "report" (the first call's choice) or "auto"
// (the automatic choice, starting from the core named by childFrom).
const (
	childMode = "IKPCA_TEST_CORE_CHILD"
	childFrom = "IKPCA_TEST_CORE_FROM"
)

// childResult is what a child reports: the choice, whether the core in use passed the
// proof and agreed with gonum through the package's own functions, and whether
// OPENBLAS_CORETYPE is set in Go's and C's environments after the choice.
type childResult struct {
	Report  CoreReport
	Proof   string // proveCore's error, "" if none
	Compare string // a disagreement of Gemm or EigenSymInPlace with gonum, "" if none
	GoEnv   bool
	CEnv    bool
}

// TestCoreChild is the child process of the tests below; it does nothing in a normal run.
func TestCoreChild(t *testing.T) {
	mode := os.Getenv(childMode)
	if mode == "" {
		t.Skip("the child process of the core tests")
	}
	var res childResult
	switch mode {
	case "report":
		res.Report = Core()
	case "auto":
		coreOnce.Do(func() {}) // no choice at the first call: this one starts from childFrom
		l := openblasLoader{}
		l.load(os.Getenv(childFrom))
		res.Report = chooseCore(hostCoreInput(), l)
	default:
		t.Fatalf("mode %q", mode)
	}
	if err := proveCore(openblasLoader{}.ops()); err != nil {
		res.Proof = err.Error()
	}
	res.Compare = compareWithGonum()
	_, res.GoEnv = os.LookupEnv("OPENBLAS_CORETYPE")
	_, res.CEnv = cCoreType()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("CORE-RESULT %s\n", b)
}

// compareWithGonum runs a product and an eigendecomposition through the package's own
// functions, on OpenBLAS with its threads and on gonum, and says where they disagree
// beyond rounding (the bounds of proveCore, and 64·n·ε·‖A‖ for eigenvalues as in the
// other comparisons of the two backends).
func compareWithGonum() string {
	rng := rand.New(rand.NewPCG(28, 3))
	const m, n, k = 301, 257, 283
	a := blas64.General{Rows: m, Cols: k, Stride: k, Data: fill(rng, m, k, k, 0)}
	b := blas64.General{Rows: k, Cols: n, Stride: n, Data: fill(rng, k, n, n, 0)}
	c := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
	ref := c
	ref.Data = make([]float64, m*n)
	Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
	backend.WithGonum(func() { Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, ref) })
	eps := math.Nextafter(1, 2) - 1
	for i := range c.Data {
		if d := math.Abs(c.Data[i] - ref.Data[i]); !(d <= 2*float64(k+2)*eps*float64(k)) {
			return fmt.Sprintf("Gemm: entry %d differs by %v", i, d)
		}
	}
	const order = 200
	s := fill(rng, order, order, order, 0)
	var norm float64
	for i := range order {
		for j := i; j < order; j++ {
			s[j*order+i] = s[i*order+j]
			norm += 2 * s[i*order+j] * s[i*order+j]
		}
	}
	norm = math.Sqrt(norm)
	s2 := append([]float64(nil), s...)
	w, w2 := make([]float64, order), make([]float64, order)
	if err := EigenSymInPlace(order, s, order, w, true); err != nil {
		return err.Error()
	}
	var err error
	backend.WithGonum(func() { err = EigenSymInPlace(order, s2, order, w2, true) })
	if err != nil {
		return err.Error()
	}
	for i := range w {
		if d := math.Abs(w[i] - w2[i]); !(d <= 64*order*eps*norm) {
			return fmt.Sprintf("EigenSymInPlace: eigenvalue %d differs by %v", i, d)
		}
	}
	return ""
}

// runChild runs TestCoreChild in mode with OPENBLAS_CORETYPE and CoreEnv removed from
// this process's environment and env added, and returns its result.
func runChild(t *testing.T, mode string, env ...string) childResult {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the core switch applies to x86-64 OpenBLAS only")
	}
	var childEnv []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "OPENBLAS_CORETYPE", CoreEnv, childMode, childFrom:
			continue
		}
		childEnv = append(childEnv, kv)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCoreChild$", "-test.count=1")
	cmd.Env = append(append(childEnv, childMode+"="+mode), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %v: %v\n%s", env, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if js, ok := strings.CutPrefix(line, "CORE-RESULT "); ok {
			var res childResult
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				t.Fatalf("child %v: %v", env, err)
			}
			t.Logf("%v: %s (check %v)", env, res.Report, res.Report.Check)
			if res.Proof != "" || res.Compare != "" {
				t.Errorf("%v: on %s: %s %s", env, res.Report.Used, res.Proof, res.Compare)
			}
			return res
		}
	}
	t.Fatalf("child %v printed no result:\n%s", env, out)
	return childResult{}
}

// hostBest is the best core of this CPU by decideCore's table.
func hostBest() cpuInfo { return hostCPU(cpuVendor()) }

// TestCoreKeepsCoretype: with OPENBLAS_CORETYPE=Prescott set, OpenBLAS runs Prescott
// and nothing is switched, even with CoreEnv asking for another core; the variable
// stays set.
func TestCoreKeepsCoretype(t *testing.T) {
	ask := "Prescott"
	if best := hostBest().best(); best != "" {
		ask = best
	}
	res := runChild(t, "report", "OPENBLAS_CORETYPE=Prescott", CoreEnv+"="+ask)
	rep := res.Report
	if rep.Switched || rep.Target != "" || rep.Used != rep.Found || !strings.HasPrefix(rep.Reason, "OPENBLAS_CORETYPE=Prescott") {
		t.Errorf("report %+v", rep)
	}
	if openblasDynamic() && rep.Used != "Prescott" {
		t.Errorf("OpenBLAS runs %s with OPENBLAS_CORETYPE=Prescott", rep.Used)
	}
	if !res.GoEnv || !res.CEnv {
		t.Errorf("the user's OPENBLAS_CORETYPE is gone: Go %v, C %v", res.GoEnv, res.CEnv)
	}
}

// TestCoreForced: CoreEnv naming a core the CPU runs switches to it through the proof,
// and the results agree with gonum's: the CPU's best core, and Prescott, which every
// x86-64 CPU with SSE3 runs. Neither environment keeps OPENBLAS_CORETYPE afterwards.
func TestCoreForced(t *testing.T) {
	c := hostBest()
	targets := []string{"Prescott"}
	if b := c.best(); b != "" {
		targets = append([]string{b}, targets...)
	}
	for _, target := range targets {
		if m := c.missing(target); len(m) > 0 {
			t.Logf("%s: the CPU lacks %v", target, m)
			continue
		}
		res := runChild(t, "report", CoreEnv+"="+target)
		rep := res.Report
		switch {
		case !openblasDynamic():
			if !rep.Refused || rep.Switched || !strings.Contains(rep.Reason, "DYNAMIC_ARCH") {
				t.Errorf("%s without DYNAMIC_ARCH: %+v", target, rep)
			}
		case strings.EqualFold(rep.Found, target):
			if rep.Switched || rep.Refused || rep.Target != "" {
				t.Errorf("%s, already in use: %+v", target, rep)
			}
		default:
			if !rep.Switched || rep.Used != target || rep.Target != target || rep.Refused ||
				!(rep.FoundRate > 0 && rep.TargetRate > 0 && rep.Check > 0) {
				t.Errorf("%s: %+v", target, rep)
			}
		}
		if res.GoEnv || res.CEnv {
			t.Errorf("%s: OPENBLAS_CORETYPE left set: Go %v, C %v", target, res.GoEnv, res.CEnv)
		}
	}
}

// TestCoreAutomatic: started on Prescott, a CPU with AVX2 and FMA is switched to its
// best core, proved, and kept — unless the one-thread timing shows no gain on a busy
// machine, when Prescott is loaded again and the report says so. Either way the
// results agree with gonum's.
func TestCoreAutomatic(t *testing.T) {
	c := hostBest()
	best := c.best()
	switch {
	case best == "":
		t.Skip("a CPU without AVX2 and FMA: nothing to switch to")
	case !c.known():
		t.Skipf("vendor %q: not switched", c.vendor)
	case !openblasDynamic():
		t.Skip("this OpenBLAS cannot switch cores (not DYNAMIC_ARCH)")
	}
	res := runChild(t, "auto", childFrom+"=Prescott")
	rep := res.Report
	if rep.Found != "Prescott" || rep.Target != best || rep.Best != best {
		t.Fatalf("report %+v", rep)
	}
	switch {
	case rep.Switched:
		if rep.Used != best || rep.Refused || rep.Suboptimal || !(rep.TargetRate >= minGain*rep.FoundRate) {
			t.Errorf("switched: %+v", rep)
		}
	case strings.Contains(rep.Reason, "no gain"):
		t.Logf("no gain on this machine now: %s", rep)
		if rep.Used != "Prescott" || !rep.Refused || !rep.Suboptimal {
			t.Errorf("undone: %+v", rep)
		}
	default:
		t.Errorf("neither switched nor undone for want of gain: %+v", rep)
	}
	if res.GoEnv || res.CEnv {
		t.Errorf("OPENBLAS_CORETYPE left set: Go %v, C %v", res.GoEnv, res.CEnv)
	}
}

// TestCoreRefusesUnsupported: CoreEnv naming a core the CPU cannot run is refused and
// never attempted. Skipped on a CPU that runs every core of the table.
func TestCoreRefusesUnsupported(t *testing.T) {
	c := hostBest()
	var target string
	for _, k := range coreKinds {
		if k.forcible && len(c.missing(k.name)) > 0 {
			target = k.name
		}
	}
	if target == "" {
		t.Skip("this CPU runs every core the table can ask for")
	}
	rep := runChild(t, "report", CoreEnv+"="+target).Report
	if !rep.Refused || rep.Switched || rep.Target != "" || !strings.Contains(rep.Reason, "the CPU lacks") {
		t.Errorf("%s: %+v", target, rep)
	}
}

// TestCoreBuildOpenBLAS checks this process's report, whatever it chose, and that Info
// carries it.
func TestCoreBuildOpenBLAS(t *testing.T) {
	rep := Core()
	t.Logf("core: %s", rep)
	if rep.Used == "" || rep.Found == "" || rep.Reason == "" {
		t.Errorf("incomplete report %+v", rep)
	}
	if rep.Switched != (rep.Used != rep.Found) {
		t.Errorf("switched %v with found %s, used %s", rep.Switched, rep.Found, rep.Used)
	}
	if got := openblasInfo(); got.Core != rep || !strings.Contains(got.String(), "; core "+rep.Used) {
		t.Errorf("Info %v does not carry the report %+v", got, rep)
	}
	if !strings.Contains(openblasInfo().Config, rep.Used) && openblasDynamic() {
		t.Errorf("configuration %q does not name %s", openblasInfo().Config, rep.Used)
	}
}
