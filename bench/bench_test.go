package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as a memory child (measureMemory re-executes
// os.Executable with childEnv set), so that the memory path is tested as it runs.
func TestMain(m *testing.M) {
	if child, err := runChild(); child {
		if err != nil {
			os.Stderr.WriteString("bench child: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestExponent(t *testing.T) {
	sizes := []int{100, 200, 400, 800}
	for _, p := range []float64{1, 2, 3} {
		times := make([]time.Duration, len(sizes))
		for i, m := range sizes {
			times[i] = time.Duration(7 * math.Pow(float64(m), p))
		}
		if got := exponent(sizes, times); math.Abs(got-p) > 1e-6 {
			t.Errorf("exponent of c·m^%g = %g", p, got)
		}
	}
	if got := exponent([]int{100}, []time.Duration{time.Second}); !math.IsNaN(got) {
		t.Errorf("one size: got %g, want NaN", got)
	}
	if got := exponent([]int{100, 100}, []time.Duration{time.Second, 2 * time.Second}); !math.IsNaN(got) {
		t.Errorf("repeated size: got %g, want NaN", got)
	}
}

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	s := summarize([]sample{
		{time: 3 * ms, dgemm: 1 * ms, allocs: 2, detail: detail{deflated: 4, updates: 1, secular: 10}},
		{time: 9 * ms, dgemm: 3 * ms, allocs: 0, detail: detail{deflated: 2, updates: 1, secular: 12}},
		{time: 4 * ms, dgemm: 1 * ms, allocs: 1, detail: detail{deflated: 0, updates: 1, secular: 11}},
	})
	if s.median != 4*ms || s.min != 3*ms || s.max != 9*ms || s.dgemm != ms || s.mean != 16*ms/3 {
		t.Errorf("times: %+v", s)
	}
	// Paired ratios 3, 3, 4: the median is 3, although the median times give 4.
	if s.xDgemm != 3 {
		t.Errorf("xDgemm = %g, want 3 (median of paired ratios)", s.xDgemm)
	}
	if s.allocs != 1 || s.deflated != 2 || s.updates != 1 || s.secular != 11 {
		t.Errorf("means: %+v", s)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median even = %g", got)
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-short"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.sizes) != 2 || cfg.sizes[0] != 200 || cfg.sizes[1] != 400 || cfg.reps != 3 {
		t.Errorf("-short: sizes %v reps %d", cfg.sizes, cfg.reps)
	}
	cfg, err = parseFlags([]string{"-sizes", "300, 100,300", "-threads", "2", "-reps", "4", "-batch-reps", "9", "-ops", "border,dgemm"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.sizes) != 2 || cfg.sizes[0] != 100 || cfg.sizes[1] != 300 {
		t.Errorf("sizes not sorted and deduplicated: %v", cfg.sizes)
	}
	if cfg.batchReps != 4 {
		t.Errorf("batch-reps %d not capped at reps 4", cfg.batchReps)
	}
	if len(cfg.ops) != 2 || len(cfg.threads) != 1 {
		t.Errorf("ops %v threads %v", cfg.ops, cfg.threads)
	}
	for _, bad := range [][]string{
		{"-sizes", "1"},
		{"-sizes", "abc"},
		{"-threads", "0"},
		{"-reps", "-1"},
		{"-batch-reps", "0"},
		{"-ops", "nosuch"},
		{"extra"},
		{"-nosuchflag"},
	} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestRun runs the harness end to end at tiny sizes and checks the report's sections, the
// CSV's rows and the sanity of every ratio.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "bench.csv")
	mdPath := filepath.Join(dir, "bench.md")
	cfg, err := parseFlags([]string{"-sizes", "40,60", "-threads", "1,2", "-reps", "2", "-batch-max", "40",
		"-csv", csvPath, "-md", mdPath, "-memory=" + strconv.FormatBool(runtime.GOOS == "linux")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	if err := run(cfg, &out, &log); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	md := out.String()
	sections := []string{"# ikpca benchmark", "## Time per step", "## Where the time goes (m = 60, 2 threads)", "## Scaling"}
	if runtime.GOOS == "linux" {
		sections = append(sections, "## Peak resident memory of a step")
	}
	for _, s := range sections {
		if !strings.Contains(md, s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if file, err := os.ReadFile(mdPath); err != nil || !bytes.Equal(file, out.Bytes()) {
		t.Errorf("-md file differs from stdout (err %v)", err)
	}

	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(row []string, name string) float64 {
		v, err := strconv.ParseFloat(row[col[name]], 64)
		if err != nil {
			t.Fatalf("row %q column %s: %v", row, name, err)
		}
		return v
	}
	var timeRows, memRows int
	seen := map[string]bool{}
	for _, row := range rows[1:] {
		switch row[col["kind"]] {
		case "time":
			timeRows++
			id, m := row[col["op"]], row[col["m"]]
			seen[id+"@"+m] = true
			for _, c := range []string{"median_ms", "dgemm_ms", "x_dgemm", "gflops"} {
				if v := num(row, c); !(v > 0) || math.IsInf(v, 0) {
					t.Errorf("%s m=%s: %s = %g", id, m, c, v)
				}
			}
			if num(row, "min_ms") > num(row, "median_ms") || num(row, "median_ms") > num(row, "max_ms") {
				t.Errorf("%s m=%s: min ≤ median ≤ max violated", id, m)
			}
			if m == "40" && !(num(row, "x_batch") > 0) {
				t.Errorf("%s m=40: no ratio to batch", id)
			}
			if m == "60" && row[col["x_batch"]] != "" {
				t.Errorf("%s m=60: ratio to batch %q although the batch was skipped", id, row[col["x_batch"]])
			}
			if (id == "border" || id == "centred-bordered") && num(row, "products_per_step") != 1 {
				t.Errorf("%s: %g products per step, want 1", id, num(row, "products_per_step"))
			}
			if id == "centred-paper" && num(row, "products_per_step") < 1 {
				t.Errorf("%s: no products", id)
			}
		case "memory":
			memRows++
			if num(row, "floor_bytes") != float64(floor(int(num(row, "m")))) {
				t.Errorf("memory row %q: floor", row)
			}
			if num(row, "live_heap_bytes") < num(row, "floor_bytes")/2 {
				t.Errorf("memory row %q: live heap below the eigenvectors' size", row)
			}
			if num(row, "peak_bytes") < num(row, "rest_bytes") {
				t.Errorf("memory row %q: peak below rest", row)
			}
		default:
			t.Errorf("row kind %q", row[col["kind"]])
		}
	}
	// 10 ops at both sizes and 2 batch ops at m = 40 only, for 2 thread counts.
	if want := 2 * (10*2 + 2); timeRows != want {
		t.Errorf("%d time rows, want %d", timeRows, want)
	}
	if !seen["batch-magic@40"] || seen["batch-magic@60"] {
		t.Errorf("batch rows: %v", seen)
	}
	if runtime.GOOS == "linux" && memRows != len(memoryOps)*2 {
		t.Errorf("%d memory rows, want %d", memRows, len(memoryOps)*2)
	}
}

func TestRunChildSpec(t *testing.T) {
	for _, spec := range []string{"border", "border,x,1", "border,1,1", "border,10,0"} {
		t.Setenv(childEnv, spec)
		child, err := runChild()
		if !child || err == nil {
			t.Errorf("%s=%q: child %v err %v", childEnv, spec, child, err)
		}
	}
}
