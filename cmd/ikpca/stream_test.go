package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kpca"
)

// yeastText returns the first n Yeast points as CSV text without a header.
func yeastText(n int) string {
	x := data.Yeast().X
	var b strings.Builder
	for i := range n {
		for j, v := range x.RawRowView(i) {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, v)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// certifiedFit runs fit with args on the first 400 Yeast points, checkpointing to
// ckpt; it must succeed with a summary that says each of summary and the certificate
// of a rank-r model. It returns the checkpoint's model.
func certifiedFit(t *testing.T, ckpt string, summary []string, args ...string) *kpca.Model {
	t.Helper()
	code, _, stderr := ikpca(t, yeastText(400), append([]string{"fit", "--model", ckpt}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range append([]string{"certified ‖K′ − K̃‖₂ ≤"}, summary...) {
		if !strings.Contains(stderr, s) {
			t.Errorf("the summary does not say %q: %s", s, stderr)
		}
	}
	return loadCheckpoint(t, ckpt)
}

// TestStreamWindowRank: a stream from standard input through a window at rank r keeps
// only the last W points, says so in its summary with the certificate, and its
// checkpoint records the mode.
func TestStreamWindowRank(t *testing.T) {
	dir := t.TempDir()
	ckpt, scores := filepath.Join(dir, "m.ckpt"), filepath.Join(dir, "s.csv")
	md := certifiedFit(t, ckpt, []string{"400 points read, the last 120 in the model", "the top 8 eigenpairs"},
		"--window", "120", "--rank", "8", "--k", "3", "--scores", scores, "--values", "")
	if o := md.Options(); md.Len() != 120 || o.Window != 120 || o.Rank != 8 {
		t.Errorf("checkpoint: %d points, window %d, rank %d", md.Len(), o.Window, o.Rank)
	}
	if rows := readCSV(t, scores); len(rows) != 120 || len(rows[0]) != 3 {
		t.Errorf("scores: %d rows", len(rows))
	}
	// The window's points are the last 120 read, oldest first.
	var x mat.Dense
	md.Points(&x)
	if !mat.Equal(&x, data.Yeast().X.Slice(280, 400, 0, 8)) {
		t.Error("the window does not hold the last 120 points read")
	}
}

// TestStreamBadRow: a bad row part-way through a stream stops it with exit status 1, an
// error naming the line, and every output written for the rows before it; a bad row
// among the first rows (before the fit starts) writes nothing.
func TestStreamBadRow(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "m.ckpt")
	text := yeastText(1100) + "1,2,3,4,5,6,7,x\n" + yeastText(5)
	code, _, stderr := ikpca(t, text, "fit", "--stream", "--rank", "5", "--model", ckpt, "--values", "")
	if code != 1 || !strings.Contains(stderr, "<stdin>:1101") || !strings.Contains(stderr, "outputs written for the 1100 points before it") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if md := loadCheckpoint(t, ckpt); md.Len() != 1100 {
		t.Errorf("checkpoint of %d points, want 1100", md.Len())
	}
	early := filepath.Join(dir, "early.ckpt")
	code, _, stderr = ikpca(t, yeastText(20)+"x,1,2,3,4,5,6,7\n", "fit", "--stream", "--model", early, "--values", "")
	if code != 1 || !strings.Contains(stderr, "<stdin>:21") {
		t.Errorf("early bad row: exit %d: %s", code, stderr)
	}
	notWritten(t, early) // the stream failed before its start
}

// TestStreamFlags: the flags that contradict each other are usage errors, before any
// input is read.
func TestStreamFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--window", "1"}, {"--rank", "-1"}, {"--window", "10", "--m0", "20"}, {"--stream", "--rank", "10", "--m0", "5"},
		{"--window", "10", "--rank", "10", "--m0", "5"}, {"--method", "rank-one"}, {"--method", "rank-one", "--stream", "--rank", "3"},
	} {
		if code, _, stderr := ikpca(t, "", append([]string{"fit"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
