package main

import (
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
