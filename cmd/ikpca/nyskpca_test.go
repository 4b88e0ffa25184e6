package main

import (
	"strings"
	"testing"
)

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
