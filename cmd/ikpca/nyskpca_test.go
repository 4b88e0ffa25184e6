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
	code, out, stderr := ikpca(t, "", "streaming", "--datasets", "", "--toy-runs", "0", "--rff-n", "0",
		"--nyskpca", "yeast", "--nyskpca-n", "200", "--nyskpca-ranks", "20,40", "--nyskpca-k", "5", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkOutputs(t, dir, "nyskpca-yeast.csv", "streaming.md")
	if !strings.Contains(out, "Nyström kernel PCA on yeast") || !strings.Contains(out, "| skpca | 40 |") {
		t.Errorf("summary lacks the table:\n%s", out)
	}
	for _, args := range [][]string{
		{"--nyskpca", "nosuch"},
		{"--nyskpca", "yeast", "--nyskpca-ranks", "1"},
		{"--nyskpca", "yeast", "--nyskpca-n", "100", "--nyskpca-ranks", "200"},
	} {
		all := append([]string{"streaming", "--datasets", "", "--toy-runs", "0", "--rff-n", "0", "--out", dir}, args...)
		if code, _, _ := ikpca(t, "", all...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
