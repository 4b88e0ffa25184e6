package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
