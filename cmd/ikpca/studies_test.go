package main

// The end-to-end tests of the study commands (chinsuter, streaming, kaf, tracking): each
// runs at tiny sizes, writes its tables, figures and summary, and refuses bad flags as
// usage errors.

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestChinSuterCommand(t *testing.T) {
	dir := t.TempDir()
	out := runOK(t, "chinsuter", "--sizes", "40,60", "--components", "3", "--preimages", "3",
		"--chunk", "10", "--kha-passes", "2", "--exact-max", "60", "--stream-n", "100", "--stream-every", "50",
		"--cost-sizes", "30", "--cost-steps", "2", "--out", dir)
	t.Log("\n" + out)
	checkOutputs(t, dir, "timing.csv", "timing.png", "projections.csv", "projections.png", "stream.csv", "stream.png",
		"cost.csv", "chinsuter.md")
	for _, want := range []string{"Training time on the toy", "| 60 |", "Per-point cost", "Compressed Chin–Suter over a stream"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	usageErrors(t, []string{"chinsuter"}, []string{"--sizes", "10"}, []string{"--cost-sizes", "x"}, []string{"--components", "0"},
		[]string{"--kha-rate", "0"})
}

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

// TestStreamingNystrom: the streaming command runs the Nyström kernel PCA study alone
// with --nyskpca, writes its table and summary, and refuses an unknown data set or bad
// ranks as usage errors.
func TestStreamingNystrom(t *testing.T) {
	dir := t.TempDir()
	out := runOK(t, "streaming", "--datasets", "", "--toy-runs", "0", "--rff-n", "0",
		"--nyskpca", "yeast", "--nyskpca-n", "200", "--nyskpca-ranks", "20,40", "--nyskpca-k", "5", "--out", dir)
	checkOutputs(t, dir, "nyskpca-yeast.csv", "streaming.md")
	if !strings.Contains(out, "Nyström kernel PCA on yeast") || !strings.Contains(out, "| skpca | 40 |") {
		t.Errorf("summary lacks the table:\n%s", out)
	}
	usageErrors(t, []string{"streaming", "--datasets", "", "--toy-runs", "0", "--rff-n", "0", "--out", dir}, [][]string{
		{"--nyskpca", "nosuch"},
		{"--nyskpca", "yeast", "--nyskpca-ranks", "1"},
		{"--nyskpca", "yeast", "--nyskpca-n", "100", "--nyskpca-ranks", "200"},
	}...)
}

// TestTrackingCommand: tracking --short runs the comparison on MAGIC and the window
// experiment at tiny sizes (no scikit-learn: package tracking tests the script), writes
// its tables, figures and summary, redraws the figures with --replot, and refuses bad
// flags and impossible options as usage errors.
func TestTrackingCommand(t *testing.T) {
	dir := t.TempDir()
	out := runOK(t, "tracking", "--short", "--datasets", "magic", "--sklearn", "", "--out", dir)
	checkOutputs(t, dir, "rank-magic.csv", "rank-magic.png", "sines-magic.csv", "window.csv", "window.png", "tracking.md")
	for _, s := range []string{"### Rank 10 on MAGIC: 400 points", "| ikpca rank r | 20 | m0 = 40 | 400 |", "| Chin–Suter, compressed | 5 |",
		"| window, w = 60 |"} {
		if !strings.Contains(out, s) {
			t.Errorf("summary lacks %q:\n%s", s, out)
		}
	}
	if err := os.Remove(filepath.Join(dir, "rank-magic.png")); err != nil {
		t.Fatal(err)
	}
	runOK(t, "tracking", "--replot", "--out", dir)
	checkOutputs(t, dir, "rank-magic.png")
	usageErrors(t, []string{"tracking", "--short", "--sklearn", "", "--out", dir}, [][]string{
		{"--datasets", "nosuch"},
		{"--ranks", "0"},
		{"--m0", "10"}, // not above the ranks of --short
		{"--chunk", "0"},
		{"--window", "1"},
		{"--sklearn", "lobpcg"},
	}...)
}
