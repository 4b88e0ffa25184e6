package kpca

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// TestAgainstBatch runs every mode and method from m0 points to 300 (Yeast and the
// first MAGIC rows, RBF with the median heuristic) and compares with a fresh batch
// decomposition at every step: eigenvalues and the reconstruction ‖A − VΛVᵀ‖ to 1e-10
// relative (measured: ~1e-14).
func TestAgainstBatch(t *testing.T) {
	total := 300
	if testing.Short() {
		total = 100
	}
	for _, set := range []string{"yeast", "magic"} {
		x := points(t, set, total)
		k := rbfMedian(t, x)
		for _, opts := range allOptions {
			m0 := 10
			if opts.Method == Bordered && !opts.Uncentred && set == "yeast" {
				m0 = 1 // start from a single point once
			}
			md := fitModel(t, k, x.Slice(0, m0, 0, x.RawMatrix().Cols), opts)
			worstV, worstR := 0.0, 0.0
			for m := m0; m < total; m++ {
				if err := md.Add(x.RawRowView(m)); err != nil {
					t.Fatalf("%s %s: point %d: %v", set, name(opts), m, err)
				}
				a := target(k, x, m+1, opts.Uncentred)
				v := maxRelDiff(md.Values(nil), batchValues(t, a, opts.Uncentred))
				r := reconstruction(md, a)
				worstV, worstR = math.Max(worstV, v), math.Max(worstR, r)
				if v > 1e-10 || r > 1e-10 {
					t.Fatalf("%s %s at m = %d: eigenvalues off by %.3g, reconstruction %.3g", set, name(opts), m+1, v, r)
				}
			}
			t.Logf("%-6s %-20s m = %d…%d: worst eigenvalue error %.2e·λmax, worst reconstruction %.2e", set, name(opts), m0, total, worstV, worstR)
		}
	}
}

// TestMethodsAgree: the bordered path and the paper's path give the same eigenvalues.
func TestMethodsAgree(t *testing.T) {
	x, k := sample(t, "magic", 150)
	for _, uncentred := range []bool{false, true} {
		var values [2][]float64
		for i, method := range []Method{Bordered, RankOne} {
			md := fitModel(t, k, x.Slice(0, 3, 0, 10), Options{Components: All, Uncentred: uncentred, Method: method})
			if _, err := md.AddRows(context.Background(), x.Slice(3, 150, 0, 10), nil); err != nil {
				t.Fatal(err)
			}
			values[i] = md.Values(nil)
		}
		if d := maxRelDiff(values[1], values[0]); d > 1e-12 {
			t.Errorf("%v: bordered and rank-one eigenvalues differ by %.3g·λmax", modeName(uncentred), d)
		}
	}
}

// TestLongRun: 2000 MAGIC points, centred, bordered; the final decomposition against
// the kernel matrix, and the orthogonality of the eigenvectors.
func TestLongRun(t *testing.T) {
	// 2000 steps cost about a hundred seconds with OpenBLAS on two cores (each is about
	// one m×m×m dgemm); gonum's pure-Go dgemm is five times slower, so that build runs a
	// thousand.
	total := 2000
	if native.Compiled == "gonum" {
		total = 1000
	}
	if testing.Short() || raceEnabled {
		total = 400
	}
	x, k := sample(t, "magic", total)
	md := fitModel(t, k, x.Slice(0, 20, 0, 10), Options{Components: All})
	deflated := 0
	for m := 20; m < total; m++ {
		if err := md.Add(x.RawRowView(m)); err != nil {
			t.Fatalf("point %d: %v", m, err)
		}
		deflated += md.Stats().Deflated
	}
	a := target(k, x, total, false)
	r, o := reconstruction(md, a), orthogonality(md)
	v := maxRelDiff(md.Values(nil), batchValues(t, a, false))
	d := md.Drift()
	t.Logf("%d MAGIC points, centred: reconstruction ‖K' − VΛVᵀ‖/‖K'‖ = %.2e, ‖VᵀV − I‖ = %.2e, eigenvalues within %.2e·λmax of batch; drift probe %.2e/%.2e; %d components deflated",
		total, r, o, v, d.Orthogonality, d.Residual, deflated)
	if r > 1e-10 || o > 1e-10 || v > 1e-10 {
		t.Errorf("drifted: reconstruction %.3g, orthogonality %.3g, eigenvalues %.3g", r, o, v)
	}
	if md.Len() != total {
		t.Errorf("%d points kept of %d", md.Len(), total)
	}
}

// TestDuplicates: points repeated many times (rank-deficient kernel matrices, deflation
// at almost every step) run to the end in every mode, no point dropped, and agree with
// batch.
func TestDuplicates(t *testing.T) {
	y := points(t, "yeast", 40)
	const n = 160
	x := mat.NewDense(n, 8, nil)
	for i := range n {
		x.SetRow(i, y.RawRowView((i*7)%40)) // every row four times, interleaved
	}
	k := rbfMedian(t, y)
	for _, opts := range allOptions {
		md := fitModel(t, k, x.Slice(0, 2, 0, 8), opts)
		if _, err := md.AddRows(context.Background(), x.Slice(2, n, 0, 8), nil); err != nil {
			t.Fatalf("%s: %v", name(opts), err)
		}
		if md.Len() != n {
			t.Fatalf("%s: %d points of %d", name(opts), md.Len(), n)
		}
		a := target(k, x, n, opts.Uncentred)
		if r := reconstruction(md, a); r > 1e-10 {
			t.Errorf("%s: reconstruction %.3g", name(opts), r)
		}
		if v := maxRelDiff(md.Values(nil), batchValues(t, a, opts.Uncentred)); v > 1e-10 {
			t.Errorf("%s: eigenvalues off by %.3g", name(opts), v)
		}
	}
}

// TestBadInput: every rejected call leaves the model exactly as it was.
func TestBadInput(t *testing.T) {
	x, k := sample(t, "yeast", 30)
	nan, inf := math.NaN(), math.Inf(1)
	for _, opts := range allOptions {
		md := fitModel(t, k, x.Slice(0, 20, 0, 8), opts)
		bad := mat.DenseCopyOf(x.Slice(20, 25, 0, 8))
		bad.Set(3, 4, nan)
		calls := []struct {
			what string
			call func() error
			want error
		}{
			{"NaN point", func() error { return md.Add([]float64{1, 2, 3, nan, 5, 6, 7, 8}) }, ErrNonFinite},
			{"Inf point", func() error { return md.Add([]float64{1, 2, 3, 4, 5, 6, 7, -inf}) }, ErrNonFinite},
			{"short point", func() error { return md.Add([]float64{1, 2}) }, ErrDimension},
			{"empty batch", func() error { return md.AddBatch(mat.NewDense(1, 8, nil).Slice(0, 0, 0, 8)) }, ErrEmpty},
			{"nil batch", func() error { return md.AddBatch(nil) }, ErrArgument},
			{"nil *mat.Dense batch", func() error { return md.AddBatch((*mat.Dense)(nil)) }, ErrArgument},
			{"wide batch", func() error { return md.AddBatch(mat.NewDense(2, 9, nil)) }, ErrDimension},
			{"NaN in batch row 3", func() error { return md.AddBatch(bad) }, ErrNonFinite},
		}
		for _, c := range calls {
			before := capture(md)
			err := c.call()
			if !errors.Is(err, c.want) {
				t.Errorf("%s, %s: got %v, want %v", name(opts), c.what, err, c.want)
			}
			if !capture(md).equal(before) {
				t.Errorf("%s, %s: model changed", name(opts), c.what)
			}
		}
		// A batch that fails part-way (a forced non-convergence) is rolled back whole.
		// Three rows: few enough that AddBatch adds them one at a time (refactorPays).
		before := capture(md)
		setMaxIterations(md, 1)
		if err := md.AddBatch(x.Slice(20, 23, 0, 8)); err == nil {
			t.Errorf("%s: batch with a capped root finder succeeded", name(opts))
		}
		if !capture(md).equal(before) {
			t.Errorf("%s: failed batch changed the model", name(opts))
		}
		setMaxIterations(md, 0)
		if err := md.AddBatch(x.Slice(20, 30, 0, 8)); err != nil {
			t.Errorf("%s: %v", name(opts), err)
		}
	}
	// A kernel that produces NaN for some pairs.
	odd := kernel.Func{Name: "odd", F: func(a, b []float64) float64 {
		if a[0] > 0.75 || b[0] > 0.75 {
			return math.NaN()
		}
		return math.Exp(-(a[0] - b[0]) * (a[0] - b[0]))
	}}
	md := fitModel(t, odd, mat.NewDense(2, 1, []float64{0.1, 0.2}), Options{Components: All})
	before := capture(md)
	if err := md.Add([]float64{0.9}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN kernel value: got %v", err)
	}
	if !capture(md).equal(before) {
		t.Error("NaN kernel value changed the model")
	}
	// Bad construction.
	for _, c := range []struct {
		k    kernel.Kernel
		x    mat.Matrix
		opts Options
	}{
		{nil, x, Options{Components: All}},
		{kernel.RBF{Sigma: -1}, x, Options{Components: All}},
		{k, nil, Options{Components: All}},
		{k, mat.NewDense(1, 2, []float64{1, nan}), Options{Components: All}},
		{k, x, Options{Components: All, Method: 7}},
		{k, x, Options{Components: All, RefreshTolerance: -1}},
	} {
		if _, err := Fit(c.k, c.x, c.opts); err == nil {
			t.Errorf("Fit(%v, …, %+v): no error", c.k, c.opts)
		}
	}
}

// TestDrift: the probe is small for a good decomposition, large for a corrupted one,
// and Refresh (manual or automatic) repairs it.
func TestDrift(t *testing.T) {
	x, k := sample(t, "yeast", 120)
	for _, opts := range allOptions {
		md := fitModel(t, k, x.Slice(0, 60, 0, 8), opts)
		if d := md.Drift(); d.Max() > 1e-13 {
			t.Errorf("%s: fresh model drift %+v", name(opts), d)
		}
		corrupt(t, md)
		if d := md.Drift(); d.Residual < 1e-6 {
			t.Errorf("%s: corrupted model drift %+v", name(opts), d)
		}
		if err := md.Refresh(); err != nil {
			t.Fatal(err)
		}
		if d := md.Drift(); d.Max() > 1e-13 || md.Stats().Refreshes != 1 {
			t.Errorf("%s: after Refresh drift %+v, %d refreshes", name(opts), d, md.Stats().Refreshes)
		}
		// Automatic: a probe every 10 points, refresh above 1e-10.
		opts.RefreshTolerance, opts.CheckEvery = 1e-10, 10
		auto := fitModel(t, k, x.Slice(0, 60, 0, 8), opts)
		corrupt(t, auto)
		if _, err := auto.AddRows(context.Background(), x.Slice(60, 70, 0, 8), nil); err != nil {
			t.Fatal(err)
		}
		if st := auto.Stats(); st.Refreshes != 1 || st.LastDrift.Residual < 1e-6 {
			t.Errorf("%s: automatic refresh: %+v", name(opts), st)
		}
		if r := reconstruction(auto, target(k, x, 70, opts.Uncentred)); r > 1e-12 {
			t.Errorf("%s: after automatic refresh reconstruction %.3g", name(opts), r)
		}
	}
}

// corrupt perturbs the stored eigenvalues by 1e-4 relative, in the decomposition the
// model keeps (update.Sym or update.Thin).
func corrupt(t *testing.T, md *Model) {
	t.Helper()
	var dec interface {
		Values([]float64) []float64
		VectorsTo(*mat.Dense)
		SetEigen([]float64, mat.Matrix) error
	} = &md.sym
	if md.bordered() {
		dec = &md.thin
	}
	values := dec.Values(nil)
	for i := range values {
		values[i] *= 1 + 1e-4*float64(i%3)
	}
	var v mat.Dense
	dec.VectorsTo(&v)
	if err := dec.SetEigen(values, &v); err != nil {
		t.Fatal(err)
	}
}

// TestAccessors covers the read API's shapes and invariants.
func TestAccessors(t *testing.T) {
	x, k := sample(t, "yeast", 50)
	for _, opts := range allOptions {
		md := fitModel(t, k, x, opts)
		want := 50
		if !opts.Uncentred {
			want = 49
		}
		if md.Components() != want || len(md.Values(nil)) != want || md.Len() != 50 || md.Dim() != 8 {
			t.Errorf("%s: %d components, %d values", name(opts), md.Components(), len(md.Values(nil)))
		}
		ev := md.ExplainedVariance(nil)
		var sum float64
		for i, v := range ev {
			sum += v
			if v < 0 || (i > 0 && v > ev[i-1]+1e-15) {
				t.Errorf("%s: explained variance %v not descending non-negative", name(opts), ev[:5])
				break
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s: explained variance sums to %v", name(opts), sum)
		}
		var p mat.Dense
		md.Points(&p)
		if !mat.Equal(&p, x) {
			t.Errorf("%s: points differ", name(opts))
		}
		if o := orthogonality(md); o > 1e-13 {
			t.Errorf("%s: eigenvectors orthogonal to %.3g", name(opts), o)
		}
	}
}

// TestUpdateStats checks the per-update statistics of a step: their number for each
// method, their sum against Stats.Deflated, and that a failed step leaves them as they
// were.
func TestUpdateStats(t *testing.T) {
	x, k := sample(t, "magic", 42)
	want := map[Options]int{allOptions[0]: 1, allOptions[1]: 1, allOptions[2]: 5, allOptions[3]: 3}
	for _, opts := range allOptions {
		md := fitModel(t, k, x.Slice(0, 40, 0, 10), opts)
		if got := md.UpdateStats(nil); len(got) != 0 {
			t.Errorf("%s: %d update stats before any step", name(opts), len(got))
		}
		if err := md.Add(x.RawRowView(40)); err != nil {
			t.Fatal(err)
		}
		got := md.UpdateStats(nil)
		if len(got) != want[opts] {
			t.Fatalf("%s: %d update stats, want %d", name(opts), len(got), want[opts])
		}
		sum := 0
		for _, st := range got {
			sum += st.Deflated
			if st.Size == 0 || st.Op == "" {
				t.Errorf("%s: empty update stats %+v", name(opts), st)
			}
		}
		if sum != md.Stats().Deflated || got[len(got)-1] != md.Stats().Last {
			t.Errorf("%s: deflated %d over the updates, %d in Stats", name(opts), sum, md.Stats().Deflated)
		}
		if err := md.Add([]float64{1}); err == nil {
			t.Fatal("short point accepted")
		}
		again := md.UpdateStats(nil)
		if len(again) != len(got) || again[0] != got[0] {
			t.Errorf("%s: a failed step changed the update stats", name(opts))
		}
		// A step that fails inside an update (the root finder capped at one iteration)
		// leaves no statistics of its partial work.
		capped := opts
		capped.Update = updateOptionsMaxIter(1)
		bad := fitModel(t, k, x.Slice(0, 40, 0, 10), capped)
		if err := bad.Add(x.RawRowView(41)); err == nil {
			t.Fatalf("%s: capped root finder converged", name(opts))
		}
		if n := len(bad.UpdateStats(nil)); n != 0 || bad.Stats().Deflated != 0 {
			t.Errorf("%s: failed step left %d update stats", name(opts), n)
		}
	}
}

// TestNilArguments: every exported entry point given nil or a typed nil returns a typed
// error instead of panicking, and a model is left as it was.
func TestNilArguments(t *testing.T) {
	x, k := sample(t, "yeast", 15)
	md := fitModel(t, k, x, Options{Components: All})
	before := md.Values(nil)
	var dst mat.Dense
	nilDense := (*mat.Dense)(nil)
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"Fit(nil, X)", func() error { _, err := Fit(nil, x, Options{Components: All}); return err }, ErrArgument},
		{"Fit((*kernel.RBF)(nil), X)", func() error { _, err := Fit((*kernel.RBF)(nil), x, Options{Components: All}); return err }, ErrArgument},
		{"Fit(k, nil)", func() error { _, err := Fit(k, nil, Options{Components: All}); return err }, ErrArgument},
		{"Fit(k, (*mat.Dense)(nil))", func() error { _, err := Fit(k, nilDense, Options{Components: All}); return err }, ErrArgument},
		{"Fit(k, (*mat.SymDense)(nil))", func() error { _, err := Fit(k, (*mat.SymDense)(nil), Options{Components: All}); return err }, ErrArgument},
		{"AddBatch(nil)", func() error { return md.AddBatch(nil) }, ErrArgument},
		{"AddBatch((*mat.Dense)(nil))", func() error { return md.AddBatch(nilDense) }, ErrArgument},
		{"Add(nil)", func() error { return md.Add(nil) }, ErrDimension},
		{"Transform(dst, (*mat.Dense)(nil), 1)", func() error { return md.Transform(&dst, nilDense, 1) }, ErrArgument},
		{"Transform(nil, X, 1)", func() error { return md.Transform(nil, x, 1) }, ErrArgument},
		{"Scores(nil, 1)", func() error { return md.Scores(nil, 1) }, ErrArgument},
		{"MarshalBinaryTo(nil)", func() error { _, err := md.MarshalBinaryTo(nil); return err }, ErrArgument},
		{"UnmarshalBinaryFrom(nil)", func() error { _, err := md.UnmarshalBinaryFrom(nil); return err }, ErrArgument},
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", c.name, r)
					err = errors.New("panic")
				}
			}()
			return c.call()
		}()
		if !errors.Is(err, c.want) {
			t.Errorf("%s = %v, want %v", c.name, err, c.want)
		}
	}
	if md.Len() != 15 || !slices.Equal(md.Values(nil), before) {
		t.Error("a rejected call changed the model")
	}
}

// TestImpossibleOptions: negative or impossible options are ErrArgument errors, in Fit
func TestImpossibleOptions(t *testing.T) {
	x, k := sample(t, "yeast", 10)
	for _, o := range []Options{
		{Components: All, Update: update.Options{Workers: -1}},
		{Components: All, Update: update.Options{Serial: -1}},
		{Components: All, Update: update.Options{MaxIterations: -1}},
		{Components: All, Method: 2}, {Components: All, Method: -1},
		{Components: All, RefreshTolerance: -1}, {Components: All, CheckEvery: -1},
	} {
		if _, err := Fit(k, x, o); !errors.Is(err, ErrArgument) {
			t.Errorf("Fit with %+v: %v, want ErrArgument", o, err)
		}
	}
}
