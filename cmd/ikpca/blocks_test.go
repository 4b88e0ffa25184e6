package main

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// TestTrackedFit: a batch fit of more than --batch-max points at rank r is tracked — a
// batch start, then blocks — says so in its summary with the certificate, and its
// checkpoint holds every point at that rank (by default max(--k, 50)): kpca.Fit's model.
func TestTrackedFit(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "m.ckpt")
	md := certifiedFit(t, ckpt, []string{"400 points read;", "the top 50 eigenpairs"}, "--batch-max", "150", "--k", "3", "--values", "")
	if md.Len() != 400 || md.Options().Rank != 50 {
		t.Errorf("checkpoint: %d points at rank %d, want 400 at 50", md.Len(), md.Options().Rank)
	}
	// It is kpca.Fit's model of the same points, bit for bit: a start of
	// Options.BatchStart(400) = min(--batch-max, 1000) points, then the others --block at
	// a time.
	var pts mat.Dense
	md.Points(&pts)
	if s := md.Options().BatchStart(400); s != 150 {
		t.Errorf("BatchStart(400) = %d, want 150", s)
	}
	lib, err := kpca.Fit(md.Kernel(), &pts, md.Options())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lib.Values(nil), md.Values(nil)) || lib.ErrorBound() != md.ErrorBound() {
		t.Errorf("the tracked fit differs from kpca.Fit's: %v, %v", lib.Values(nil)[:3], md.Values(nil)[:3])
	}
	// Below --batch-max, or at --rank 0, it is one batch decomposition and says nothing.
	for _, args := range [][]string{{"--batch-max", "400"}, {"--batch-max", "150", "--rank", "0"}} {
		code, _, stderr := ikpca(t, yeastText(400), append([]string{"fit", "--values", ""}, args...)...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d: %q", args, code, stderr)
		}
	}
}

// TestBlockBadPoint: a point whose kernel values are not finite (1e300 under a
// polynomial kernel) inside a block of a stream stops the fit with exit status 1, an
// error naming its line, and every output written for the points before it — the
// block's earlier rows included, added one at a time once the block failed. A tracked
// fit, which holds its whole input, finds the point before it starts and writes nothing.
func TestBlockBadPoint(t *testing.T) {
	dir := t.TempDir()
	// After the first 1000 rows, which the kernel's check reads before a stream starts;
	// 1000 rows after --m0 are 62 blocks of 16 and 8 rows, held when the bad one comes.
	text := yeastText(1100) + "1e300,1,1,1,1,1,1,1\n" + yeastText(40)
	ckpt := filepath.Join(dir, "m.ckpt")
	code, _, stderr := ikpca(t, text, "fit", "--kernel", "polynomial", "--model", ckpt, "--values", "",
		"--stream", "--m0", "100", "--rank", "5", "--block", "16")
	if code != 1 || !strings.Contains(stderr, "line 1101") || !strings.Contains(stderr, "outputs written for the 1100 points before it") {
		t.Fatalf("stream: exit %d: %s", code, stderr)
	}
	if md := loadCheckpoint(t, ckpt); md.Len() != 1100 {
		t.Errorf("stream: checkpoint of %d points, want 1100", md.Len())
	}
	tracked := filepath.Join(dir, "tracked.ckpt")
	code, _, stderr = ikpca(t, text, "fit", "--kernel", "polynomial", "--model", tracked, "--values", "",
		"--batch-max", "100", "--rank", "5", "--block", "16")
	if code != 1 || !strings.Contains(stderr, "point 1101") {
		t.Errorf("tracked: exit %d: %s", code, stderr)
	}
	notWritten(t, tracked) // the fit failed before its start
}

// TestTrackedFitInterrupted: a tracked fit cancelled between two blocks exits 130 and
// leaves a checkpoint of the points added so far.
func TestTrackedFitInterrupted(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "m.ckpt")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	afterAdd = func(n int) {
		if n == 150 {
			cancel()
		}
	}
	defer func() { afterAdd = nil }()
	code, _, stderr := ikpcaCtx(t, ctx, yeastText(400), "fit", "--batch-max", "100", "--rank", "8", "--block", "10", "--model", ckpt, "--values", "")
	if code != 130 || !strings.Contains(stderr, "interrupted after 150 points") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if md := loadCheckpoint(t, ckpt); md.Len() != 150 {
		t.Errorf("checkpoint of %d points, want 150", md.Len())
	}
}

// TestRowAdderInterrupted: rows held for a block when the context is cancelled are
// added before the adder stops, and the row offered then is not.
func TestRowAdderInterrupted(t *testing.T) {
	X := data.Yeast().X
	md, err := kpca.Fit(kernel.RBF{Sigma: 0.3}, X.Slice(0, 50, 0, 8), kpca.Options{Components: 6, Rank: 6})
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	a := newRowAdder(md, 8, 10, 50, func() { steps++ })
	ctx, cancel := context.WithCancel(context.Background())
	for i := 50; i < 55; i++ {
		if err := a.add(ctx, X.RawRowView(i), i+1); err != nil {
			t.Fatal(err)
		}
	}
	if md.Len() != 50 || a.read != 50 || steps != 0 {
		t.Fatalf("rows added before the block is full: %d in the model, %d read, %d steps", md.Len(), a.read, steps)
	}
	cancel()
	if err := a.add(ctx, X.RawRowView(55), 56); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancellation: %v", err)
	}
	if md.Len() != 55 || a.read != 55 || steps != 1 {
		t.Errorf("after cancellation: %d in the model, %d read, %d steps; want 55, 55, 1", md.Len(), a.read, steps)
	}
	// An exact model or a window adds its rows one at a time, whatever the block.
	if b := newRowAdder(md, 8, 10, 55, func() {}).block; b != 10 {
		t.Errorf("rank-r block %d", b)
	}
	ex, err := kpca.Fit(kernel.RBF{Sigma: 0.3}, X.Slice(0, 20, 0, 8), kpca.Options{Components: kpca.All})
	if err != nil {
		t.Fatal(err)
	}
	if b := newRowAdder(ex, 8, 10, 20, func() {}).block; b != 1 {
		t.Errorf("exact model: block %d", b)
	}
}

// TestPolishCertify: fit --polish 4 --certify of a tracked rank-20 model of 1000 Yeast
// points writes top 5 (--k) eigenvalues equal to a batch fit's (--rank 0) within
// 1e-12·λ₁ — the tracked ones were 1e-7 off; the last of the 20 converge more slowly —
// and --values gains the certificate's columns: each of the 20 intervals holds the
// batch eigenvalue, with a sine below 1e-6 for the top 5; the summary
// prints them with their failure probability. --polish auto reaches the same top 5
// and says after how many passes; --polish out of range is a usage error;
// --certify of an exact model says there is nothing to certify.
func TestPolishCertify(t *testing.T) {
	dir := t.TempDir()
	text := yeastText(1000)
	vals, batch := filepath.Join(dir, "v.csv"), filepath.Join(dir, "b.csv")
	code, _, stderr := ikpca(t, text, "fit", "--batch-max", "200", "--rank", "20", "--k", "5", "--polish", "4", "--certify", "--values", vals)
	if code != 0 || !strings.Contains(stderr, "certified from the kernel matrix (failure probability ≤ 9e-10)") || !strings.Contains(stderr, "sine of the top 5 ≤") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := ikpca(t, text, "fit", "--rank", "0", "--values", batch); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, stderr)
	}
	if h, _, _ := strings.Cut(readFile(t, vals), "\n"); h != "component,eigenvalue,explained_variance,lower,upper,sine" {
		t.Fatalf("--values header %q", h)
	}
	got, want := readCSV(t, vals), readCSV(t, batch)
	lambda1 := want[0][1]
	for i := range 20 {
		v, w := got[i][1], want[i][1]
		lo, hi, sin := got[i][3], got[i][4], got[i][5]
		if i < 5 && math.Abs(v-w) > 1e-12*lambda1 {
			t.Errorf("λ%d = %.15g, batch %.15g", i+1, v, w)
		}
		if slack := 1000 * 0x1p-53 * lambda1; !(lo-slack <= w && w <= hi+slack) {
			t.Errorf("λ%d = %.15g outside [%.15g, %.15g]", i+1, w, lo, hi)
		}
		if i < 5 && !(sin <= 1e-6) {
			t.Errorf("sine of the top %d ≤ %g", i+1, sin)
		}
	}
	for _, bad := range []string{"-1", "21", "x", "4.5"} {
		if code, _, stderr := ikpca(t, text, "fit", "--polish", bad); code != 2 || !strings.Contains(stderr, "--polish") {
			t.Errorf("--polish %s: exit %d: %s", bad, code, stderr)
		}
	}
	// auto: rounds of 3 passes until the top --k values settle; the result agrees with
	// the batch fit as --polish 4's does.
	code, _, stderr = ikpca(t, text, "fit", "--batch-max", "200", "--rank", "20", "--k", "5", "--polish", "auto", "--values", vals)
	if code != 0 || !strings.Contains(stderr, "--polish auto: the top 5 values settled") {
		t.Fatalf("--polish auto: exit %d: %s", code, stderr)
	}
	got = readCSV(t, vals)
	for i := range 5 {
		if v, w := got[i][1], want[i][1]; math.Abs(v-w) > 1e-12*lambda1 {
			t.Errorf("--polish auto: λ%d = %.15g, batch %.15g", i+1, v, w)
		}
	}
	if code, _, stderr := ikpca(t, yeastText(100), "fit", "--rank", "0", "--certify", "--values", ""); code != 0 || !strings.Contains(stderr, "nothing to certify") {
		t.Errorf("--certify of an exact model: exit %d: %s", code, stderr)
	}
}

// TestPolishKeptKernel: fit --polish of points of 70 coordinates, whose kernel values a
// polish keeps, computes them once before tracking (kpca.Model.KeepKernel: --timings
// shows the phase) and gives the top 4 eigenvalues of a batch fit within 1e-12·λ₁ (five
// clusters: the fifth value is the first of the bulk, which 4 passes at rank 20 bring
// only within 1e-6), and the top 5 of --pass-memory 0, which keeps none, within
// 1e-12·λ₁.
func TestPolishKeptKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var b strings.Builder
	centres := make([][]float64, 5)
	for c := range centres {
		centres[c] = make([]float64, 70)
		for j := range centres[c] {
			centres[c][j] = 3 * rng.NormFloat64()
		}
	}
	for range 700 {
		c := centres[rng.IntN(5)]
		for j := range 70 {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(c[j]+rng.NormFloat64(), 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	text := b.String()
	dir := t.TempDir()
	batch := filepath.Join(dir, "b.csv")
	if code, _, stderr := ikpca(t, text, "fit", "--rank", "0", "--values", batch); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, stderr)
	}
	want := readCSV(t, batch)
	var kept [][]float64
	for _, memory := range []string{"", "0"} {
		vals := filepath.Join(dir, "v"+memory+".csv")
		args := []string{"fit", "--batch-max", "200", "--rank", "20", "--k", "5", "--polish", "4", "--timings", "--values", vals}
		if memory != "" {
			args = append(args, "--pass-memory", memory)
		}
		code, _, stderr := ikpca(t, text, args...)
		if code != 0 || !strings.Contains(stderr, "  kernel ") {
			t.Fatalf("--pass-memory %q: exit %d: %s", memory, code, stderr)
		}
		got := readCSV(t, vals)
		for i := range 4 {
			if v, w := got[i][1], want[i][1]; math.Abs(v-w) > 1e-12*want[0][1] {
				t.Errorf("--pass-memory %q: λ%d = %.15g, batch %.15g", memory, i+1, v, w)
			}
		}
		if kept == nil {
			kept = got
			continue
		}
		for i := range 5 {
			if v, w := got[i][1], kept[i][1]; math.Abs(v-w) > 1e-12*want[0][1] {
				t.Errorf("λ%d = %.15g keeping no kernel values, %.15g keeping them", i+1, v, w)
			}
		}
	}
}
