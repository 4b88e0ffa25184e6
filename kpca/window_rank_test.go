package kpca

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// windowSteps overrides the length of TestWindowRankBounded's streams: the issue's
// 100,000-step run is go test -tags openblas -run TestWindowRankBounded ./kpca/ -args
// -ikpca.window-steps=100000 (a few minutes).
var windowSteps = flag.Int("ikpca.window-steps", 0, "TestWindowRankBounded: window steps of each stream (0: 2000, 600 in -short mode)")

// TestWindowExactByDefault: a window of at most DefaultExactWindow points with Rank zero
// keeps every pair (Rank() = 0, Options().Rank resolved to at least the window), and
// agrees with a batch kernel PCA of its points — the README's example, and the issue's
// Options{Components: 1, Window: 100}, which used to be tracked at rank 50 and 2e-4
// off. The oracle is checkExact: eigenvalues within 1e-10·λ₁ of a fresh
// eigendecomposition of the window's (centred) kernel matrix and ‖A − VΛVᵀ‖_F/‖A‖_F
// within 1e-10, the tolerance TestWindow justifies for exact windows (measured there
// below 1e-12 after 2000 steps; a tracked window is 1e-6–1e-3 off), and ErrorBound
// exactly zero. A larger window, an explicit Rank, and Components above the window
// keep their rules.
func TestWindowExactByDefault(t *testing.T) {
	steps := 300
	if testing.Short() || native.Compiled == "gonum" {
		steps = 120
	}
	x, k := sample(t, "magic", DefaultExactWindow+steps)
	for _, opts := range []Options{
		{Components: 1, Window: 100},
		{Components: 2, Window: 200, Uncentred: true},
		{Components: 2, Window: DefaultExactWindow},
	} {
		md, err := New(k, 10, opts)
		if err != nil {
			t.Fatal(err)
		}
		if md.Rank() != 0 || md.Options().Rank != max(opts.Components, DefaultRank, opts.Window) {
			t.Fatalf("%s: Rank() %d, Options().Rank %d; want 0 (every pair) and %d", name(opts), md.Rank(), md.Options().Rank,
				max(opts.Components, DefaultRank, opts.Window))
		}
		for i := range opts.Window + steps {
			if err := md.Add(x.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		if md.Len() != opts.Window || md.ErrorBound() != 0 {
			t.Fatalf("%s: %d points, ErrorBound %g; want %d and 0", name(opts), md.Len(), md.ErrorBound(), opts.Window)
		}
		// checkExact compares every pair with the batch decomposition: a copy that
		// reports them all (Components All) of the window, which holds them all.
		all := new(Model)
		all.CopyFrom(md)
		all.opts.Components, all.opts.Rank = All, 0
		checkExact(t, name(opts), all, 1e-10)
		if n := opts.BatchStart(100000); n != 100000 {
			t.Errorf("%s: BatchStart(100000) = %d: an exact window decomposes the rows it keeps at once", name(opts), n)
		}
	}
	for _, c := range []struct {
		opts Options
		rank int // Rank() and Options().Rank
	}{
		{Options{Components: 2, Window: DefaultExactWindow + 1}, DefaultRank},
		{Options{Components: 2, Rank: 20, Window: 200}, 20},
		{Options{Components: 60, Window: 1000}, 60},
		{Options{Components: 2, Rank: 30, Window: 30}, 0},
	} {
		md, err := New(k, 10, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		want := c.rank
		if want == 0 {
			want = c.opts.Rank
		}
		if md.Rank() != c.rank || md.Options().Rank != want {
			t.Errorf("%s: Rank() %d, Options().Rank %d; want %d and %d", name(c.opts), md.Rank(), md.Options().Rank, c.rank, want)
		}
	}
}

// TestWindowRankBounded: a window of w = 400 points tracked at rank r = 20 polishes
// itself every w steps (the default WindowPolish), so that its free running bound stays
// within a constant of the truth over any stream: MAGIC centred and Yeast uncentred
// (taken cyclically), RBF of the data set's default bandwidth, 2000 window steps (600
// in -short mode; -ikpca.window-steps for more). Every 200 steps, and at the step
// before each polish, where the bound is largest, E = K′ − K̃ is formed from the
// window's points and its spectrum computed (the oracle):
//
//   - the bound is true: λmax(E) ≤ above and −λmin(E) ≤ below (errorRange), every batch
//     eigenvalue lies in ValueBounds and within ErrorBound of the model's (Weyl), with
//     the rounding of the dense reference, m·ε·λ₁, as the only slack (as certify);
//   - the bound is useful: ErrorBound ≤ windowBoundRatio·‖E‖₂ at every checkpoint.
//     Measured with OpenBLAS over 100,000 steps (200 checkpoints a stream, every
//     interval holding): at most 60.0× on MAGIC and 53.5× on Yeast (the step before a
//     polish; 6–16× just after one, the part of the tail the polish's Krylov space
//     leaves unresolved). Without the self-polish the ratio grows with the stream, past
//     180× after 2000 steps and 400× after 4400; this test fails on the code before it.
func TestWindowRankBounded(t *testing.T) {
	const w, r, ratio = 400, 20, windowBoundRatio
	steps, every := 2000, 200
	if testing.Short() || raceEnabled {
		steps = 600
	}
	if *windowSteps > 0 {
		steps = *windowSteps
		every = max(every, steps/50/w*w)
	}
	for _, c := range []struct {
		set       string
		uncentred bool
	}{{"magic", false}, {"yeast", true}} {
		x := mat.DenseCopyOf(dataset(t, c.set).X)
		n, d := x.Dims()
		sigma, err := kernel.DefaultBandwidth(x)
		if err != nil {
			t.Fatal(err)
		}
		what := c.set + " " + modeName(c.uncentred)
		md := fitModel(t, kernel.RBF{Sigma: sigma}, x.Slice(0, w, 0, d), Options{Components: r, Rank: r, Uncentred: c.uncentred, Window: w})
		var worst, worstAfter float64 // the largest ratio, and the largest just after a polish
		checks := 0
		for s := range steps {
			if err := md.Add(x.RawRowView((w + s) % n)); err != nil {
				t.Fatalf("%s: step %d: %v", what, s, err)
			}
			if (s+1)%every != 0 && (s+2)%every != 0 && s != steps-1 {
				continue
			}
			checks++
			q := checkWindowBound(t, what, s, md)
			if !(q <= ratio) {
				t.Errorf("%s: step %d: ErrorBound %.4g is %.1f× ‖E‖₂ (limit %d×)", what, s, md.ErrorBound(), q, ratio)
			}
			worst = math.Max(worst, q)
			if (s+1)%w == 0 {
				worstAfter = math.Max(worstAfter, q)
			}
		}
		st := md.Stats()
		if st.Polishes != steps/w || st.PolishErr != nil {
			t.Errorf("%s: %d self-polishes in %d steps (error %v); want %d", what, st.Polishes, steps, st.PolishErr, steps/w)
		}
		t.Logf("%-15s w = %d, r = %d, %d steps, %d checks: ErrorBound at most %.1f× ‖E‖₂ (%.1f× just after a polish); %d polishes",
			what, w, r, steps, checks, worst, worstAfter, st.Polishes)
	}
}

// windowBoundRatio is TestWindowRankBounded's limit on ErrorBound/‖E‖₂: the 60× measured
// over 100,000 steps, with a margin for other orders of the points and backends.
const windowBoundRatio = 80

// checkWindowBound checks the free running certificate of a model that tracks every
// pair it reports (Components = Rank) against E = K′ − K̃ formed from its points and a
// batch decomposition of them, and returns ErrorBound/‖E‖₂.
func checkWindowBound(t *testing.T, what string, s int, md *Model) float64 {
	t.Helper()
	ev, err := native.EigenSym(nil, nil, truncationError(md))
	if err != nil {
		t.Fatal(err)
	}
	lmin, lmax := ev[0], ev[len(ev)-1]
	below, above := md.errorRange()
	bound := md.ErrorBound()
	want := batchValues(t, pointsTarget(md), md.opts.Uncentred)
	slack := float64(md.Len()) * roundoff * want[0]
	if !(lmax <= above+slack && -lmin <= below+slack) {
		t.Errorf("%s: step %d: E has eigenvalues in [%.6g, %.6g]; bounds −%.6g, +%.6g", what, s, lmin, lmax, below, above)
	}
	lo, hi := md.ValueBounds(nil, nil)
	for j, v := range md.Values(nil) {
		if !(lo[j]-slack <= want[j] && want[j] <= hi[j]+slack && math.Abs(v-want[j]) <= bound+slack) {
			t.Errorf("%s: step %d: λ%d = %.10g, the model's %.10g, outside [%.10g, %.10g] (ErrorBound %.4g)", what, s, j+1, want[j], v, lo[j], hi[j], bound)
			break
		}
	}
	return bound / math.Max(-lmin, lmax)
}

// TestWindowPolishPolicy: a window tracked at rank r polishes itself every
// WindowPolish.Every points added (the Window by default, none when negative), counting
// the rows AddBatch adds one at a time, and its points stay those of a window without
// self-polish, bit for bit; a decoded model continues its count, bit for
// bit as the saved one; a Polish restarts the free running bound from what it
// certifies, where it used to add its change to it, and the bound still holds; passes
// out of range are refused.
func TestWindowPolishPolicy(t *testing.T) {
	const w, r = 60, 8
	x, k := sample(t, "yeast", w+400)
	var held []float64 // the window's points, which no polish may change: as without one
	for _, c := range []struct {
		every, polishes int
	}{{-1, 0}, {0, 5}, {25, 12}, {1000, 0}} {
		opts := Options{Components: r, Rank: r, Window: w, WindowPolish: WindowPolish{Every: c.every}}
		md := fitModel(t, k, x.Slice(0, w, 0, 8), opts)
		for i := range 100 {
			if err := md.Add(x.RawRowView(w + i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := md.AddBatch(x.Slice(w+100, w+300, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if st := md.Stats(); st.Polishes != c.polishes || st.PolishErr != nil {
			t.Errorf("every %d: %d self-polishes in 300 steps (error %v), want %d", c.every, st.Polishes, st.PolishErr, c.polishes)
		}
		if pts := capture(md).points; held == nil {
			held = pts
		} else if !slices.Equal(pts, held) {
			t.Errorf("every %d: the window's points differ from those of the window without self-polish", c.every)
		}
	}

	// Saved in the middle of a cycle, restored, and continued past the next polish: the
	// same model as the one that was not saved.
	md := fitModel(t, k, x.Slice(0, w, 0, 8), Options{Components: r, Rank: r, Window: w})
	for i := range w + 25 {
		if err := md.Add(x.RawRowView(w + i)); err != nil {
			t.Fatal(err)
		}
	}
	back, err := decoded(encode(t, md))
	if err != nil {
		t.Fatal(err)
	}
	for i := w + 25; i < 2*w+50; i++ {
		for _, m := range []*Model{md, back} {
			if err := m.Add(x.RawRowView(w + i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !sameVectors(md, back) || md.ErrorBound() != back.ErrorBound() || md.Stats().Polishes != 2 || back.Stats().Polishes != 2 {
		t.Errorf("decoded model: same vectors %v, ErrorBound %g and %g, polishes %d and %d (want 2)",
			sameVectors(md, back), md.ErrorBound(), back.ErrorBound(), md.Stats().Polishes, back.Stats().Polishes)
	}

	// A Polish restarts the bound: a window that has not polished itself for 300 steps.
	md = fitModel(t, k, x.Slice(0, w, 0, 8), Options{Components: r, Rank: r, Window: w, WindowPolish: WindowPolish{Every: -1}})
	if err := md.AddBatch(x.Slice(w, w+300, 0, 8)); err != nil {
		t.Fatal(err)
	}
	before := md.ErrorBound()
	if err := md.Polish(2); err != nil {
		t.Fatal(err)
	}
	after := md.ErrorBound()
	q := checkWindowBound(t, "polished", 0, md)
	t.Logf("Polish(2) after 300 window steps: ErrorBound %.4g → %.4g (%.1f× ‖E‖₂)", before, after, q)
	if !(after < before/4) {
		t.Errorf("Polish(2): ErrorBound %.4g → %.4g; want it restarted, below a quarter", before, after)
	}

	for _, p := range []int{-1, MaxPolishPasses + 1} {
		if _, err := New(k, 8, Options{Components: r, Window: 500, WindowPolish: WindowPolish{Passes: p}}); !errors.Is(err, ErrArgument) {
			t.Errorf("WindowPolish.Passes %d: error %v, want ErrArgument", p, err)
		}
	}
}

// TestWindowPolishFailure: a self-polish that fails — a kernel value that is not finite
// between two points of the window, which only the polish's passes compute — leaves the
// model as the same window without self-polish has it (bit for bit: the point added,
// the tracked pairs and the certificate), reports the error in Stats.PolishErr, and
// the window goes on. Inside AddBatch, a row that fails after a self-polish rolls the
// whole batch back, the count to the next polish included.
func TestWindowPolishFailure(t *testing.T) {
	const w, r = 40, 6
	x, rbf := sample(t, "yeast", w+200)
	// The poisoned pair, points w+30 and w+31 of the stream, by value (the model holds
	// copies): no other point of the stream may equal either.
	a, b := x.RawRowView(w+30), x.RawRowView(w+31)
	for i := range w + 200 {
		if i != w+30 && i != w+31 && (slices.Equal(x.RawRowView(i), a) || slices.Equal(x.RawRowView(i), b)) {
			t.Fatalf("point %d repeats a poisoned point", i)
		}
	}
	armed := false
	k := kernel.Func{Name: "armed", F: func(p, q []float64) float64 {
		if armed && (slices.Equal(p, a) && slices.Equal(q, b) || slices.Equal(p, b) && slices.Equal(q, a)) {
			return math.NaN()
		}
		return rbf.Eval(p, q)
	}}
	opts := Options{Components: r, Rank: r, Window: w}
	md := fitModel(t, k, x.Slice(0, w, 0, 8), opts)
	off := opts
	off.WindowPolish.Every = -1
	twin := fitModel(t, k, x.Slice(0, w, 0, 8), off)
	for i := range w {
		if i == w-1 {
			armed = true // a and b, points 30 and 31 of the window, are in it
		}
		for _, m := range []*Model{md, twin} {
			if err := m.Add(x.RawRowView(w + i)); err != nil {
				t.Fatalf("point %d: %v", i, err)
			}
		}
	}
	if st := md.Stats(); !errors.Is(st.PolishErr, ErrNonFinite) || st.Polishes != 0 {
		t.Fatalf("self-polish over a NaN kernel value: error %v, %d polishes; want ErrNonFinite and 0", st.PolishErr, st.Polishes)
	}
	if !capture(md).equal(capture(twin)) || md.Len() != w {
		t.Fatalf("the failed self-polish changed the model")
	}
	armed = false
	if err := md.Add(x.RawRowView(2 * w)); err != nil {
		t.Fatal(err)
	}

	// A batch whose last row fails, after a self-polish in its middle.
	md = fitModel(t, rbf, x.Slice(0, w, 0, 8), Options{Components: r, Rank: r, Window: w, WindowPolish: WindowPolish{Every: 10}})
	for i := range 5 {
		if err := md.Add(x.RawRowView(w + i)); err != nil {
			t.Fatal(err)
		}
	}
	bad := x.RawRowView(w + 30)
	md.kern = poisoned(rbf, func(p []float64) bool { return slices.Equal(p, bad) }, math.Inf(1))
	saved, since, stats := capture(md), md.sincePolish, md.Stats()
	if err := md.AddBatch(x.Slice(w+10, w+31, 0, 8)); !errors.Is(err, ErrNonFinite) {
		t.Fatalf("batch with a bad row: error %v, want ErrNonFinite", err)
	}
	if !capture(md).equal(saved) || md.sincePolish != since || md.Stats().Polishes != stats.Polishes {
		t.Errorf("the failed batch left the model changed: count to the next polish %d (was %d), polishes %d (was %d)",
			md.sincePolish, since, md.Stats().Polishes, stats.Polishes)
	}
}

// TestWindowRestartHolds: the certificate a polish restarts from (restartCertificate)
// holds whatever the spectrum — Yeast with a duplicate and a near-duplicate (1e-9 apart)
// of every seventh point, RBF at 0.01×, 1×, 100× and 1000× the median distance (from a
// nearly flat spectrum to one whose E is near the kernel values' rounding), centred and
// uncentred — at the step before and the step after each self-polish of a window of 200
// points at rank 10 polished every 100 steps: every eigenvalue of the true E within the
// bounds and every batch eigenvalue within ValueBounds (checkWindowBound). The logs give
// the bound against ‖E‖₂ (at most 19× at 1× and 100×, 75× at 0.01×, where the tail is
// as heavy as the top, and 62× at 1000× centred, where ‖E‖₂ is near the rounding that
// η allows for).
func TestWindowRestartHolds(t *testing.T) {
	x := mat.DenseCopyOf(dataset(t, "yeast").X.Slice(0, 700, 0, 8))
	for i := 0; i+2 < 700; i += 7 {
		row := x.RawRowView(i)
		copy(x.RawRowView(i+1), row)
		copy(x.RawRowView(i+2), row)
		x.Set(i+2, 0, row[0]+1e-9)
	}
	med, err := kernel.DefaultBandwidth(x)
	if err != nil {
		t.Fatal(err)
	}
	scales, last := []float64{0.01, 1, 100, 1000}, 700
	if testing.Short() || native.Compiled == "gonum" {
		last = 420
	}
	for _, f := range scales {
		for _, uncentred := range []bool{false, true} {
			what := fmt.Sprintf("σ = %g× median, %s", f, modeName(uncentred))
			md := fitModel(t, kernel.RBF{Sigma: f * med}, x.Slice(0, 200, 0, 8),
				Options{Components: 10, Rank: 10, Window: 200, Uncentred: uncentred, WindowPolish: WindowPolish{Every: 100}})
			var worst float64
			for i := 200; i < last; i++ {
				if err := md.Add(x.RawRowView(i)); err != nil {
					t.Fatal(err)
				}
				if i%100 == 98 || i%100 == 99 {
					worst = math.Max(worst, checkWindowBound(t, what, i, md))
				}
			}
			if p := md.Stats().Polishes; p != (last-200)/100 {
				t.Errorf("%s: %d self-polishes, want %d", what, p, (last-200)/100)
			}
			t.Logf("%-28s ErrorBound at most %.3g× ‖E‖₂", what, worst)
		}
	}
}
