package kpca

import (
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// topValues returns the top k eigenvalues of a batch kernel PCA of the points of md.
func topValues(t *testing.T, md *Model, k int) []float64 {
	t.Helper()
	v := batchValues(t, pointsTarget(md), md.Options().Uncentred)
	return v[:min(k, len(v))]
}

// TestFitOptionRules: the rules of Options — Rank resolved to max(Components,
// DefaultRank), the model exact while it has at most Rank pairs, a Window of at most Rank
// points tracking every pair, Fit keeping the last Window rows — and the options no model
// can have, ErrArgument in Fit and New alike.
func TestFitOptionRules(t *testing.T) {
	x, k := sample(t, "yeast", 40)
	for _, c := range []struct {
		opts        Options
		rank, track int // Options().Rank and Rank() after Fit
	}{
		{Options{Components: 5}, DefaultRank, DefaultRank},
		{Options{Components: 60}, 60, 60},
		{Options{Components: 5, Rank: 7}, 7, 7},
		{Options{Components: All}, 0, 0},
		{Options{Components: 3, Window: 30}, DefaultRank, 0}, // 30 ≤ 50: every pair
		{Options{Components: 3, Rank: 10, Window: 30}, 10, 10},
		{Options{Components: 3, Rank: 30, Window: 30}, 30, 0},
	} {
		md := fitModel(t, k, x, c.opts)
		if md.Options().Rank != c.rank || md.Rank() != c.track {
			t.Errorf("%s: Options().Rank %d, Rank() %d; want %d and %d", name(c.opts), md.Options().Rank, md.Rank(), c.rank, c.track)
		}
		want := 39 // centred pairs of 40 points, or of a window's 30
		if c.opts.Window > 0 {
			want = 29
		}
		if c.opts.Components != All {
			want = min(want, c.opts.Components)
		}
		if md.Components() != want {
			t.Errorf("%s: %d components, want %d", name(c.opts), md.Components(), want)
		}
	}

	// A rank above the pairs the points have: Fit is the batch decomposition (every pair
	// of positive eigenvalue), and so is New then Add until the model holds more than
	// Rank+1 points (centred), Rank uncentred: no positive pair is dropped, ErrorBound
	// is rounding (1e-12·λ₁: a few ε times the order of the steps' matrices).
	for _, uncentred := range []bool{false, true} {
		opts := Options{Components: 20, Rank: 20, Uncentred: uncentred}
		batch := fitModel(t, k, x.Slice(0, 15, 0, 8), opts)
		grown, err := New(k, 8, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			if err := grown.Add(x.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
			exact := i+1 <= 21 // centred pairs ≤ 20
			if uncentred {
				exact = i+1 <= 20
			}
			if !exact {
				continue
			}
			want := topValues(t, grown, 20)
			got := grown.Values(nil)
			if len(want) == 0 {
				continue // one centred point: no pair
			}
			if len(got) > len(want) || maxRelDiff(got, want[:len(got)]) > 1e-10 || grown.ErrorBound() > 1e-12*want[0] {
				t.Fatalf("%s, %d points: %d values off by %.3g, ErrorBound %.3g·λ₁", name(opts), i+1, len(got), maxRelDiff(got, want[:len(got)]), grown.ErrorBound()/want[0])
			}
			// Only pairs of eigenvalue at rounding level (≤ 1e-10·λ₁) may be missing.
			for _, v := range want[len(got):] {
				if v > 1e-10*want[0] {
					t.Fatalf("%s, %d points: a pair of eigenvalue %.3g·λ₁ dropped", name(opts), i+1, v/want[0])
				}
			}
			if i+1 == 15 && maxRelDiff(batch.Values(nil), got) > 1e-10 {
				t.Errorf("%s: Fit of 15 points and 15 Adds differ", name(opts))
			}
		}
		if grown.Len() != 40 || grown.Components() != 20 || grown.ErrorBound() == 0 {
			t.Errorf("%s: grown past its rank: %d points, %d components, ErrorBound %g", name(opts), grown.Len(), grown.Components(), grown.ErrorBound())
		}
	}

	// A window holds the last Window rows of a longer X.
	for _, opts := range []Options{{Components: All, Window: 19}, {Components: 4, Rank: 8, Window: 19}} {
		md := fitModel(t, k, x, opts)
		var p mat.Dense
		md.Points(&p)
		if md.Len() != 19 || !mat.Equal(&p, x.Slice(21, 40, 0, 8)) {
			t.Errorf("%s: Fit of 40 rows holds %d points, not the last 19", name(opts), md.Len())
		}
		want := topValues(t, md, 4)
		if got := md.Values(nil)[:4]; maxRelDiff(got, want) > 1e-10 {
			t.Errorf("%s: eigenvalues off by %.3g", name(opts), maxRelDiff(got, want))
		}
	}

	// Options no model can have.
	for _, opts := range []Options{
		{},
		{Components: -2},
		{Components: All, Rank: 5},
		{Components: 5, Rank: 4},
		{Components: 5, Rank: -1},
		{Components: All, Window: 1},
		{Components: All, Window: -3},
		{Components: 3, Block: -1},
		{Components: 3, BatchMax: -1},
		{Components: 3, RefreshTolerance: math.NaN()},
		{Components: 3, CheckEvery: -1},
		{Components: 3, Rank: math.MaxInt},
	} {
		_, err := Fit(k, x, opts)
		_, err2 := New(k, 8, opts)
		for _, e := range []error{err, err2} {
			if !errors.Is(e, ErrArgument) || !errors.Is(e, ikpca.ErrArgument) {
				t.Errorf("%+v: %v, want ErrArgument", opts, e)
			}
		}
	}
}

// TestFitRoutes: Fit of more than BatchMax rows at rank r is a batch start of
// max(min(BatchMax, 1000), 2·Rank+2) rows and the others in blocks — bit for bit Fit of
// the start then AddBatch of the rest — whose eigenvalues lie within the certificate of
// a batch decomposition's (ValueBounds); at most BatchMax rows, or Components All, it is
// one batch decomposition. New then AddBatch is Fit, bit for bit, in every route.
func TestFitRoutes(t *testing.T) {
	x := shuffled(t, "magic", 400, 5)
	_, d := x.Dims()
	k := rbfMedian(t, x)
	for _, uncentred := range []bool{false, true} {
		opts := Options{Components: 5, Rank: 20, BatchMax: 30, Uncentred: uncentred} // start: 2·20+2 = 42 rows
		md := fitModel(t, k, x, opts)
		manual := fitModel(t, k, x.Slice(0, 42, 0, d), opts)
		if err := manual.AddBatch(x.Slice(42, 400, 0, d)); err != nil {
			t.Fatal(err)
		}
		empty, err := New(k, d, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := empty.AddBatch(x); err != nil {
			t.Fatal(err)
		}
		if opts.BatchStart(400) != 42 {
			t.Fatalf("%s: BatchStart(400) = %d, want 42", name(opts), opts.BatchStart(400))
		}
		chunked := fitModel(t, k, x.Slice(0, 42, 0, d), opts)
		for lo := 42; lo < 400; lo += DefaultBlock { // as the command adds them, a block at a time
			if err := chunked.AddBatch(x.Slice(lo, min(lo+DefaultBlock, 400), 0, d)); err != nil {
				t.Fatal(err)
			}
		}
		if !capture(md).equal(capture(manual)) || !capture(md).equal(capture(empty)) || !capture(md).equal(capture(chunked)) {
			t.Errorf("%s: Fit of 400 rows is not a start of 42 and AddBatch of the rest (at once or a block at a time), or New and AddBatch", name(opts))
		}
		if md.ErrorBound() == 0 || md.Stats().Last.Op == "set" {
			t.Errorf("%s: Fit of 400 rows was not tracked (ErrorBound %g, last %q)", name(opts), md.ErrorBound(), md.Stats().Last.Op)
		}
		lo, hi := md.ValueBounds(nil, nil)
		for j, v := range topValues(t, md, 5) {
			if v < lo[j] || v > hi[j] {
				t.Errorf("%s: λ%d = %g outside [%g, %g]", name(opts), j, v, lo[j], hi[j])
			}
		}
		// At most BatchMax rows: one decomposition of the top pairs, exact to rounding.
		opts.BatchMax = 400
		one := fitModel(t, k, x, opts)
		if got, want := one.Values(nil), topValues(t, one, 5); maxRelDiff(got, want) > 1e-10 {
			t.Errorf("%s: batch fit off by %.3g", name(opts), maxRelDiff(got, want))
		}
		empty, _ = New(k, d, opts)
		if err := empty.AddBatch(x); err != nil || !capture(empty).equal(capture(one)) {
			t.Errorf("%s: New and AddBatch differ from Fit: %v", name(opts), err)
		}
	}
	// Components All ignores BatchMax: every pair, exact.
	all := fitModel(t, k, x.Slice(0, 120, 0, d), Options{Components: All, BatchMax: 30})
	checkExact(t, "All beyond BatchMax", all, 1e-10)
	// Method RankOne fits by a batch decomposition too, and grows from empty.
	for _, uncentred := range []bool{false, true} {
		opts := Options{Components: All, Uncentred: uncentred}
		batch, err := FitRankOne(k, x.Slice(0, 30, 0, d), opts)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, "rank-one Fit", batch, 1e-10)
		grown, err := NewRankOne(k, d, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			if err := grown.Add(x.RawRowView(i)); err != nil {
				t.Fatalf("%s: Add %d to an empty model: %v", name(opts), i, err)
			}
		}
		checkExact(t, "rank-one grown from empty", grown, 1e-10)
	}
}

// TestBatchStart: the rows Fit decomposes at once, by the rules of Options.BatchMax.
func TestBatchStart(t *testing.T) {
	for _, c := range []struct {
		opts    Options
		n, want int
	}{
		{Options{Components: 5}, 4096, 4096},
		{Options{Components: 5}, 4097, 1000},
		{Options{Components: 5}, 19020, 1000},
		{Options{Components: 5, BatchMax: 300}, 19020, 300},
		{Options{Components: 5, BatchMax: 30}, 19020, 102}, // 2·50+2
		{Options{Components: 5, Rank: 600}, 19020, 1202},
		{Options{Components: 5, Rank: 3000}, 5000, 5000}, // 2·Rank+2 > n: one batch
		{Options{Components: 5, Rank: 10, BatchMax: 10}, 25, 22},
		{Options{Components: 5, Rank: 10, BatchMax: 10}, 21, 21},
		{Options{Components: All}, 50000, 50000},
		{Options{Components: All, BatchMax: 10}, 500, 500},
		{Options{Components: 5, Window: 40}, 5000, 5000},            // a window of at most Rank points: exact
		{Options{Components: 5, Window: 9000}, 9000, 1000},          // a window beyond the rank tracks
		{Options{Components: 5, Rank: math.MaxInt / 2}, 5000, 5000}, // no overflow
	} {
		if got := c.opts.BatchStart(c.n); got != c.want {
			t.Errorf("%+v: BatchStart(%d) = %d, want %d", c.opts, c.n, got, c.want)
		}
	}
}

// TestFitAllOrNothing: a row whose kernel values are not finite, in the batch start or
// in the tracked rest, makes Fit return no model and AddBatch of an empty model leave it
// empty; the rows themselves are checked first.
func TestFitAllOrNothing(t *testing.T) {
	x, k := sample(t, "yeast", 200)
	odd := poisoned(k, func(x []float64) bool { return x[0] == 7 }, math.Inf(1))
	for _, at := range []int{5, 150} {
		bad := mat.DenseCopyOf(x)
		bad.Set(at, 0, 7)
		for _, opts := range []Options{{Components: 4, Rank: 10, BatchMax: 50}, {Components: 4, Rank: 10}, {Components: All}} {
			if md, err := Fit(odd, bad, opts); md != nil || !errors.Is(err, ErrNonFinite) || !errors.Is(err, ikpca.ErrNonFinite) {
				t.Errorf("%s, row %d: %v, want no model and ErrNonFinite", name(opts), at, err)
			}
			empty, err := New(odd, 8, opts)
			if err != nil {
				t.Fatal(err)
			}
			before := capture(empty)
			if err := empty.AddBatch(bad); !errors.Is(err, ErrNonFinite) || !capture(empty).equal(before) || empty.Len() != 0 {
				t.Errorf("%s, row %d: AddBatch of an empty model: %v, %d points", name(opts), at, err, empty.Len())
			}
			if err := empty.AddBatch(x.Slice(0, 20, 0, 8)); err != nil || empty.Len() != 20 {
				t.Errorf("%s: AddBatch after a failed one: %v", name(opts), err)
			}
		}
	}
	nan := mat.DenseCopyOf(x)
	nan.Set(199, 3, math.NaN())
	if md, err := Fit(k, nan, Options{Components: 3}); md != nil || !errors.Is(err, ErrNonFinite) {
		t.Errorf("a NaN coordinate: %v", err)
	}
}

// TestNewEmpty: New returns a model without points that reports nothing, refuses what
// needs points, encodes, and takes points by Add, AddBatch and AddRows — growing to the
// model Fit gives, for every option of the package's tests.
func TestNewEmpty(t *testing.T) {
	x, k := sample(t, "yeast", 60)
	for _, opts := range append(slices.Clone(allOptions), streamOptions...) {
		md, err := New(k, 8, opts)
		if err != nil {
			t.Fatal(err)
		}
		if md.Len() != 0 || md.Dim() != 8 || md.Components() != 0 || len(md.Values(nil)) != 0 || md.ErrorBound() != 0 {
			t.Errorf("%s: an empty model reports %d points, %d components", name(opts), md.Len(), md.Components())
		}
		var dst mat.Dense
		if err := md.Transform(&dst, x, 1); !errors.Is(err, ErrEmpty) {
			t.Errorf("%s: Transform of an empty model: %v", name(opts), err)
		}
		if err := md.Scores(&dst, 1); !errors.Is(err, ErrEmpty) || !dst.IsEmpty() {
			t.Errorf("%s: Scores of an empty model: %v", name(opts), err)
		}
		if err := md.Refresh(); err != nil {
			t.Errorf("%s: Refresh of an empty model: %v", name(opts), err)
		}
		back, err := decoded(encode(t, md))
		if err != nil || back.Len() != 0 || back.Options() != md.Options() {
			t.Fatalf("%s: the encoding of an empty model: %v", name(opts), err)
		}
		for i := range 3 {
			if err := md.Add(x.RawRowView(i)); err != nil {
				t.Fatalf("%s: Add %d: %v", name(opts), i, err)
			}
		}
		if err := md.AddBatch(x.Slice(3, 40, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if err := back.AddBatch(x.Slice(0, 40, 0, 8)); err != nil {
			t.Fatal(err)
		}
		ref := fitModel(t, k, x.Slice(0, 40, 0, 8), opts)
		w := 40
		if opts.Window > 0 {
			w = min(w, opts.Window)
		}
		for _, m := range []*Model{md, back} {
			if m.Len() != w || m.Components() != ref.Components() {
				t.Errorf("%s: grown to %d points, %d components; Fit %d, %d", name(opts), m.Len(), m.Components(), ref.Len(), ref.Components())
				continue
			}
			// Grown exactly (every pair, or a rank above the pairs of the first points
			// and certified beyond): the top eigenvalues of the points held, within
			// ErrorBound (plus rounding) of a batch decomposition's.
			want := topValues(t, m, m.Components())
			got := m.Values(nil)
			for j := range got {
				if d := math.Abs(got[j] - want[j]); d > m.ErrorBound()+1e-10*want[0] {
					t.Errorf("%s: λ%d = %.10g, batch %.10g, ErrorBound %.3g", name(opts), j, got[j], want[j], m.ErrorBound())
					break
				}
			}
		}
	}
	for _, d := range []int{0, -1, math.MaxInt} {
		if _, err := New(k, d, Options{Components: 3}); !errors.Is(err, ErrArgument) {
			t.Errorf("New of dimension %d: %v, want ErrArgument", d, err)
		}
	}
}
