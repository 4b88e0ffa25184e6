package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/resident"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/update"
)

// Peak resident memory is measured in a child process per (op, m), so that nothing else
// the harness holds is counted. The child prepares one object of the op at size m, takes
// two warm-up steps (the first allocates the workspaces, the second touches what the
// first did not), returns all garbage to the operating system, resets the kernel's
// high-water mark of resident memory (writing 5 to /proc/self/clear_refs, Linux ≥ 4.0)
// and takes one more step. VmHWM is then the peak during the step, VmRSS before it the
// footprint at rest; both are reported above the process's footprint before the op was
// prepared (runtime, binary, data set, and the BLAS and LAPACK buffers, warmed by a
// dgemm and a dsyevd of the same size). The live Go heap the op added is reported too:
// it is exact, where resident memory also counts what the C libraries keep.

// memoryOps are the ops whose memory is measured.
var memoryOps = []string{"border", "centred-bordered", "centred-paper"}

// memoryResult is what a child reports, in bytes.
type memoryResult struct {
	Op       string `json:"op"`
	M        int    `json:"m"`
	Start    int64  `json:"start"`    // resident before preparing the op
	Rest     int64  `json:"rest"`     // resident after preparation and warm-up, before the step
	Peak     int64  `json:"peak"`     // high-water mark during the step
	Live     int64  `json:"live"`     // live Go heap at rest, above the start's
	Platform string `json:"platform"` // GOOS/GOARCH
}

// floor is the memory that the eigenvectors of order m+1 and their double buffer need:
// 2·(m+1)²·8 bytes.
func floor(m int) int64 { n := int64(m + 1); return 2 * n * n * 8 }

// memoryChild runs in the child process: it measures one op at size m and prints the
// result as JSON.
func memoryChild(id string, m int, in *inputs) error {
	// Warm the BLAS and LAPACK at this size first: OpenBLAS's buffers are allocated and
	// touched by its first calls, a cost of the process rather than of the op.
	warm := yardstick.New(m)
	warm.Dgemm()
	warm.Batch(m)
	warm = nil
	var ms runtime.MemStats
	resident.Free()
	start, _, err := resident.KiB()
	if err != nil {
		return err
	}
	runtime.ReadMemStats(&ms)
	heapStart := int64(ms.HeapAlloc)
	step, err := memorySubject(id, m, in)
	if err != nil {
		return err
	}
	// Two warm-up steps: the first allocates the workspaces, the second touches the parts
	// of them the first did not (the paper's updates have secular sizes that vary).
	for i := range 2 {
		if err := step(i); err != nil {
			return err
		}
	}
	resident.Free()
	rest, _, err := resident.KiB()
	if err != nil {
		return err
	}
	runtime.ReadMemStats(&ms)
	live := int64(ms.HeapAlloc) - heapStart
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("cannot reset the peak resident memory: %w", err)
	}
	if err := step(2); err != nil {
		return err
	}
	_, peak, err := resident.KiB()
	if err != nil {
		return err
	}
	runtime.KeepAlive(in) // alive from start to end: not counted as the op's
	return json.NewEncoder(os.Stdout).Encode(memoryResult{Op: id, M: m, Start: start * 1024,
		Rest: rest * 1024, Peak: peak * 1024, Live: live, Platform: runtime.GOOS + "/" + runtime.GOARCH})
}

// memorySubject prepares a single object of the op at size m — unlike the timing runners,
// which keep a base copy to restore — with room for three steps, and returns a function
// performing step i (to m+1+i).
func memorySubject(id string, m int, in *inputs) (func(i int) error, error) {
	rows, d := in.magic.Dims()
	switch id {
	case "border":
		rng := rand.New(rand.NewPCG(uint64(m), 13))
		values := make([]float64, m)
		for i := range values {
			values[i] = 2*rng.Float64() - 1
		}
		s := new(update.Sym)
		a, _ := synth.SymWithSpectrum(values, rng)
		if err := s.Factorize(a); err != nil {
			return nil, err
		}
		s.Reserve(m + 3)
		v := make([]float64, m+2)
		for i := range v {
			v[i] = rng.NormFloat64() / 4
		}
		var cols [3]*mat.VecDense // the three steps' columns, made before them
		for i := range cols {
			cols[i] = mat.NewVecDense(m+i, v[:m+i])
		}
		return func(i int) error { return s.Border(cols[i], 0.3) }, nil
	case "centred-bordered", "centred-paper":
		if m+3 > rows {
			return nil, fmt.Errorf("m = %d: MAGIC has %d points", m, rows)
		}
		opts := kpca.Options{Components: kpca.All}
		first := in.magic.Slice(0, m, 0, d)
		if id == "centred-paper" {
			md, err := kpca.FitRankOne(in.kern, first, opts)
			if err != nil {
				return nil, err
			}
			md.Reserve(m + 3)
			return func(i int) error { return md.Add(in.magic.RawRowView(m + i)) }, nil
		}
		md, err := kpca.Fit(in.kern, first, opts)
		if err != nil {
			return nil, err
		}
		md.Reserve(m + 3)
		return func(i int) error { return md.Add(in.magic.RawRowView(m + i)) }, nil
	}
	return nil, fmt.Errorf("no memory measurement for op %q", id)
}

// childEnv names the environment variable that turns the executable into a memory
// child: its value is "op,m,threads". An environment variable rather than a flag, so
// that the test binary (whose flags are the testing package's) can be a child too.
const childEnv = "IKPCA_BENCH_MEMORY_CHILD"

// runChild runs the child named by the environment, if any, and reports whether it did.
func runChild() (bool, error) {
	spec, ok := os.LookupEnv(childEnv)
	if !ok {
		return false, nil
	}
	f := strings.Split(spec, ",")
	if len(f) != 3 {
		return true, fmt.Errorf("%s=%q: want op,m,threads", childEnv, spec)
	}
	m, err1 := strconv.Atoi(f[1])
	t, err2 := strconv.Atoi(f[2])
	if err := errors.Join(err1, err2); err != nil || m < 2 || t < 1 {
		return true, fmt.Errorf("%s=%q: bad size or threads", childEnv, spec)
	}
	setThreads(t)
	in, err := loadInputs(2)
	if err != nil {
		return true, err
	}
	return true, memoryChild(f[0], m, in)
}

// measureMemory runs the child for one op and size: the same executable, with childEnv
// set.
func measureMemory(id string, m, threads int) (memoryResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return memoryResult{}, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", childEnv, id, m, threads))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return memoryResult{}, fmt.Errorf("%s at m = %d: %v: %s", id, m, err, strings.TrimSpace(stderr.String()))
	}
	var res memoryResult
	if err := json.Unmarshal(out, &res); err != nil {
		return memoryResult{}, fmt.Errorf("%s at m = %d: child output %q: %w", id, m, out, err)
	}
	return res, nil
}
