package kpca

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// TestWindow slides an exact window of w = 300 points over Yeast and MAGIC (Yeast's
// 1484 points taken cyclically), centred and uncentred, and compares the window with a
// batch kernel PCA of its points (checkExact: eigenvalues and reconstruction to 1e-10,
// the tolerance of growth in TestAgainstBatch; row sums and total afresh). 2000 steps
// with OpenBLAS, 500 with pure-Go gonum (its dgemm is five times slower and its Dsyev
// reference much more), 40 in -short mode; every step for the first 20, then every
// 25th (OpenBLAS) or 100th, and the last.
func TestWindow(t *testing.T) {
	const w = 300
	steps, every := 2000, 25
	if native.Compiled == "gonum" {
		steps, every = 500, 100
	}
	if testing.Short() || raceEnabled {
		steps, every = 40, 10
	}
	for _, r := range windowRuns(t, w, steps) {
		what, md := r.what, r.md
		for s := range steps {
			r.add(t, s)
			if md.Len() != w || len(md.UpdateStats(nil)) != 2 {
				t.Fatalf("%s: step %d: %d points, %d updates", what, s, md.Len(), len(md.UpdateStats(nil)))
			}
			if s < 20 || (s+1)%every == 0 || s == steps-1 {
				checkExact(t, what, md, 1e-10)
			}
		}
		var p mat.Dense
		md.Points(&p)
		for q := range w {
			if p.At(q, 0) != r.x.At((steps+q)%r.n, 0) {
				t.Fatalf("%s: window point %d is not row %d", what, q, (steps+q)%r.n)
			}
		}
		if md.ErrorBound() != 0 {
			t.Errorf("%s: the exact window has an error bound %g", what, md.ErrorBound())
		}
		dr := md.Drift()
		t.Logf("%-16s %d window steps at w = %d: reconstruction %.2e, orthogonality %.2e, drift probe %.2e/%.2e",
			what, steps, w, reconstruction(md, pointsTarget(md)), orthogonality(md), dr.Orthogonality, dr.Residual)
	}
}

// windowRun is an exact window model md of w points fitted to the first w rows of x
// (Yeast's 1484 points or MAGIC's first w + steps), which a test slides over the n rows
// of x taken cyclically: row (w + s) mod n at step s (add). what names the data set
// and the mode.
type windowRun struct {
	what string
	md   *Model
	x    *mat.Dense
	n, w int
}

// windowRuns returns the runs of a window of w points for steps steps over Yeast and
// MAGIC, each centred and uncentred.
func windowRuns(t *testing.T, w, steps int) []windowRun {
	t.Helper()
	var runs []windowRun
	for _, set := range []string{"yeast", "magic"} {
		n := w + steps
		if set == "yeast" {
			n = 1484
		}
		x := points(t, set, n)
		_, d := x.Dims()
		k := rbfMedian(t, x)
		for _, uncentred := range []bool{false, true} {
			md := fitModel(t, k, x.Slice(0, w, 0, d), Options{Components: All, Uncentred: uncentred, Window: w})
			runs = append(runs, windowRun{what: set + " " + modeName(uncentred), md: md, x: x, n: n, w: w})
		}
	}
	return runs
}

// add slides the window by step s: it adds row (w + s) mod n.
func (r windowRun) add(t *testing.T, s int) {
	t.Helper()
	if err := r.md.Add(r.x.RawRowView((r.w + s) % r.n)); err != nil {
		t.Fatalf("%s: step %d: %v", r.what, s, err)
	}
}

// TestWindowRollback: a window step whose addition fails after the oldest point went —
// a kernel value that is not finite, or an update that does not converge — leaves the
// model exactly as it was, points and their order included, alone (Add) and inside a
// batch (AddBatch); the model then takes good points.
func TestWindowRollback(t *testing.T) {
	x, k := sample(t, "yeast", 40)
	// NaN against the point at (1, 1, …): the failure comes from the kernel column.
	odd := poisoned(k, func(x []float64) bool { return x[0] == 1 && x[1] == 1 }, math.NaN())
	bad := []float64{1, 1, 1, 1, 1, 1, 1, 1}
	for _, opts := range []Options{{Components: All, Window: 20}, {Components: All, Uncentred: true, Window: 20}, {Window: 20, Components: 6, Rank: 6}, {Uncentred: true, Window: 20, Components: 6, Rank: 6}} {
		md := fitModel(t, odd, x.Slice(0, 20, 0, 8), opts)
		before := capture(md)
		if err := md.Add(bad); !errors.Is(err, ErrNonFinite) {
			t.Errorf("%+v: a NaN kernel value: %v", opts, err)
		}
		if !capture(md).equal(before) {
			t.Errorf("%+v: a failed window step changed the model", opts)
		}
		setMaxIterations(md, 1)
		if err := md.Add(x.RawRowView(21)); err == nil {
			t.Errorf("%+v: a window step with a capped root finder succeeded", opts)
		}
		if !capture(md).equal(before) {
			t.Errorf("%+v: a window step that did not converge changed the model", opts)
		}
		setMaxIterations(md, 0)
		batch := mat.DenseCopyOf(x.Slice(21, 25, 0, 8))
		batch.SetRow(3, bad)
		if err := md.AddBatch(batch); !errors.Is(err, ErrNonFinite) {
			t.Errorf("%+v: a batch with a NaN kernel value: %v", opts, err)
		}
		if !capture(md).equal(before) {
			t.Errorf("%+v: a failed batch changed the window", opts)
		}
		for i := 21; i < 40; i++ {
			if err := md.Add(x.RawRowView(i)); err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
		}
		if opts.Rank == 0 {
			checkExact(t, "after the failures", md, 1e-10)
		}
	}
}

// TestWindowExampleBounds: in ExampleModel_window's stream (2000 MAGIC points, a window
// of 300, 2 components tracked at the default rank) the eigenvalues of a batch fit of
// the window's last 300 points lie inside the ValueBounds the example prints.
func TestWindowExampleBounds(t *testing.T) {
	X := data.Magic().X
	k := kernel.RBF{Sigma: 110}
	model, err := New(k, 10, Options{Components: 2, Window: 300})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if err := model.Add(X.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
	}
	last, err := Fit(k, X.Slice(1700, 2000, 0, 10), Options{Components: 2})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := model.ValueBounds(nil, nil)
	for j, v := range last.Values(nil) {
		if !(lo[j] <= v && v <= hi[j]) {
			t.Errorf("λ%d of the window's points = %g, outside the bounds [%g, %g]", j+1, v, lo[j], hi[j])
		}
	}
}
