package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestStreamingCommand(t *testing.T) {
	dir := t.TempDir()
	out := runOK(t, "streaming", "--datasets", "cpu_act,a9a", "--n", "150", "--test", "20",
		"--features", "128", "--ells", "2,5,10", "--exact-steps", "3", "--toy-runs", "2", "--toy-passes", "20",
		"--rff-n", "40", "--rff-seeds", "2", "--rff-maxlog", "8", "--out", dir)
	t.Log("\n" + out)
	checkOutputs(t, dir, "skpca-cpu_act.csv", "skpca-cpu_act-ell.png", "skpca-cpu_act-memory.png", "skpca-cpu_act-time.png",
		"skpca-a9a.csv", "toy.csv", "toy-curves.csv", "toy.png", "rff.csv", "rff.png", "streaming.md")
	// Every method at every ℓ, with a finite positive error; the exact truncation is the
	// best rank-ℓ approximation, so no method beats it.
	f, _ := os.Open(filepath.Join(dir, "skpca-cpu_act.csv"))
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string]float64{}
	count := map[string]int{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[6], 64)
		if err != nil || !(v >= 0) {
			t.Fatalf("row %v: spectral error %q", r, r[6])
		}
		count[r[4]]++
		if r[4] == "exact" {
			exact[r[5]] = v
		}
	}
	for _, m := range []string{"SKPCA", "RNCA", "Nystrom", "exact"} {
		if count[m] != 3 {
			t.Errorf("%s: %d rows, want 3", m, count[m])
		}
	}
	for _, r := range recs[1:] {
		v, _ := strconv.ParseFloat(r[6], 64)
		if v < exact[r[5]]*(1-1e-9) {
			t.Errorf("%s at ℓ=%s: error %g below the best rank-ℓ error %g", r[4], r[5], v, exact[r[5]])
		}
	}
	if !strings.Contains(out, "Online kernel PCA on the toy") || !strings.Contains(out, "| SKPCA | 5 |") {
		t.Errorf("summary lacks the tables:\n%s", out)
	}
	usageErrors(t, []string{"streaming"}, []string{"--ells", "0"}, []string{"--features", "7", "--toy-runs", "0"},
		[]string{"--datasets", "nosuch", "--toy-runs", "0", "--out", dir})
}

func TestKAFCommand(t *testing.T) {
	dir := t.TempDir()
	out := runOK(t, "kaf", "--trials", "1", "--train", "200", "--test", "30", "--every", "50",
		"--seed-dictionary", "30", "--ispeed-cap", "60", "--basis-n", "120", "--basis-m", "10", "--basis-every", "30", "--out", dir)
	t.Log("\n" + out)
	checkOutputs(t, dir, "kaf-curves.csv", "kaf-curves.png", "speed-basis.csv", "speed-gram.png", "speed-angle.png", "kaf.md")
	if !strings.Contains(out, "| siSPEED |") || !strings.Contains(out, "principal angle") {
		t.Errorf("summary incomplete:\n%s", out)
	}
	usageErrors(t, []string{"kaf"}, []string{"--trials", "0"})
}
