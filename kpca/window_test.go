package kpca

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
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
	steps, every, early := 2000, 25, 20 // check every step of the first early, then every every
	if native.Compiled == "gonum" {
		steps, every = 500, 100
	}
	if testing.Short() {
		steps, every = 40, 10
	}
	if raceEnabled {
		// The race detector looks at the slides' goroutines, not their accuracy (checked
		// without it): a batch decomposition of the window, instrumented, costs more
		// than the steps between checks.
		steps, every, early = 40, 20, 2
	}
	for _, r := range windowRuns(t, w, steps) {
		what, md := r.what, r.md
		for s := range steps {
			r.add(t, s)
			if md.Len() != w || len(md.UpdateStats(nil)) != 2 {
				t.Fatalf("%s: step %d: %d points, %d updates", what, s, md.Len(), len(md.UpdateStats(nil)))
			}
			if s < early || (s+1)%every == 0 || s == steps-1 {
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
	testmat.AddRows(t, model, X, 0, 2000)
	last := fitModel(t, k, X.Slice(1700, 2000, 0, 10), Options{Components: 2})
	lo, hi := model.ValueBounds(nil, nil)
	for j, v := range last.Values(nil) {
		if !(lo[j] <= v && v <= hi[j]) {
			t.Errorf("λ%d of the window's points = %g, outside the bounds [%g, %g]", j+1, v, lo[j], hi[j])
		}
	}
}

// TestWindowMeasures slides an exact window of w = 100 points over Yeast (its 1484
// points taken cyclically) and MAGIC, centred and uncentred, for 1000 steps — ten
// turnovers of the window; 250 in -short mode — and asserts the measures a window model
// reports: the drift probe (Drift) at every step, and ExplainedVariance every 10th step
// and at the last, against a batch kernel PCA of the window's points.
//
// Drift. Orthogonality is ‖(VᵀV − I)x‖/‖x‖ for the probe x, and Residual is
// ‖(A·V − V·Λ)x‖/(λ₁‖x‖); with Δ = VᵀV − I and E = V·Λ·Vᵀ − A, A·V − V·Λ = V·Λ·Δ − E·V,
// so Residual is at most about the probe of Δ plus ‖E‖₂/λ₁ — which the doc comment
// bounds by ErrorBound()/λ₁, zero for the exact model — plus the rounding of A·y,
// recomputed from the points: sums of m kernel values, about √m·ε·‖K‖/λ₁ with random
// signs (75ε for Yeast centred, the largest here). Both are rounding, and they do not
// grow with the length of the stream. Each update multiplies V on the right by the
// update's orthogonal Ũ, which keeps the products of V's rows (V·Vᵀ: the identity, or
// the centring projector, in exact arithmetic; its distance to it is ‖Δ‖); a removal
// deletes a row, and a bordering adds one, orthogonal to the others up to that step's
// rounding. Likewise bordering leaves E in place and a removal takes a principal
// submatrix (docs/design.md, "Removing a point"). So the rounding in entry (i, j) of
// V·Vᵀ and of E comes only from the steps made while points i and j were both in the
// window: at most w steps, two updates each. An update's rounding is of the order of
// n·ε (Gu and Eisenstat; update's tests allow one exact step 16·(n+5)·ε, TestThinExact);
// over 2w updates of random sign, ‖Δ‖_F ≈ √(2w)·n·ε (n = w: 14·w·ε at w = 100), and the
// probe of a random x sees ‖Δ‖_F/√n ≈ √2·w·ε. The tolerance is that of one step,
// 16·(w+5)·ε = 1.9e-13 at w = 100. Measured, OpenBLAS and pure Go alike: at most
// 0.6–0.8·w·ε for Orthogonality and 0.06–0.6·w·ε for Residual over the stream; and
// 0.7–1.0·w·ε and 0.05–0.4·w·ε at w = 200 and 300 over 1000 and 2000 steps (TestWindow's
// stream), where neither grew after the first turnover.
//
// ExplainedVariance. A batch kernel PCA gives sⱼ = λⱼ/trace A (the eigenvalues of the
// positive semi-definite A sum to its trace); the model returns ŝⱼ = λ̂ⱼ⁺/T̂ with
// T̂ = Σλ̂⁺ (the clamp at zero can only move λ̂ⱼ towards λⱼ ≥ 0). Then
// ŝⱼ − sⱼ = (λ̂ⱼ − λⱼ)/T̂ + sⱼ·(trace A − T̂)/T̂, and with |λ̂ⱼ − λⱼ| ≤ η·λ₁ for each of
// the n eigenvalues, |trace A − T̂| ≤ n·η·λ₁, so |ŝⱼ − sⱼ| ≤ η·(λ₁/T̂)·(1 + n·sⱼ). By
// Weyl's and Ostrowski's inequalities the eigenvalues move by at most ‖E‖₂ + λ₁·‖Δ‖₂,
// the backward error of the same at most 2w updates: ‖Δ‖₂ ≤ ‖Δ‖_F ≈ 14·w·ε above, and
// ‖E‖ alike relative to λ₁; the batch eigensolver adds its own c·n·ε·λ₁. So
// η = 16·(w+5)·ε again. The shares also sum to 1 within 2n·ε (n quotients and their
// sum). Measured: every share within 0.04 of its tolerance.
func TestWindowMeasures(t *testing.T) {
	const w = 100
	steps, every := 1000, 10
	if testing.Short() || raceEnabled {
		steps = 250
	}
	tol := 16 * float64(w+5) * vec.Roundoff
	for _, r := range windowRuns(t, w, steps) {
		what, md := r.what, r.md
		var worst Drift
		var worstShare float64 // the largest |ŝⱼ − sⱼ| relative to its tolerance
		for s := -1; s < steps; s++ {
			if s >= 0 {
				r.add(t, s)
			}
			dr := md.Drift()
			worst.Orthogonality = math.Max(worst.Orthogonality, dr.Orthogonality)
			worst.Residual = math.Max(worst.Residual, dr.Residual)
			if !(dr.Max() <= tol) {
				t.Fatalf("%s: step %d: drift %+v above %.3g", what, s, dr, tol)
			}
			if (s+1)%every == 0 || s == steps-1 {
				worstShare = math.Max(worstShare, checkShares(t, what, md, tol))
			}
		}
		t.Logf("%-16s %d steps at w = %d: drift at most %.2e (%.2f·wε) and %.2e (%.2f·wε), tolerance %.2e; shares at most %.2g of their tolerance",
			what, steps, w, worst.Orthogonality, worst.Orthogonality/(w*vec.Roundoff), worst.Residual, worst.Residual/(w*vec.Roundoff), tol, worstShare)
	}
}

// checkShares compares the ExplainedVariance of an exact model with λⱼ/trace A for the
// batch eigenvalues λⱼ of its points' matrix A, with eigenvalues accurate to eta·λ₁
// (see TestWindowMeasures), and their sum with 1. It returns the largest error relative
// to its tolerance.
func checkShares(t *testing.T, what string, md *Model, eta float64) float64 {
	t.Helper()
	a := pointsTarget(md)
	want := batchValues(t, a, md.Options().Uncentred)
	var trace float64
	for i := range md.Len() {
		trace += a.At(i, i)
	}
	var total float64 // T̂
	for _, v := range md.Values(nil) {
		total += math.Max(v, 0)
	}
	ev := md.ExplainedVariance(nil)
	if len(ev) != len(want) {
		t.Fatalf("%s: %d shares, %d eigenvalues", what, len(ev), len(want))
	}
	n := float64(len(want))
	var sum, worst float64
	for j, got := range ev {
		sum += got
		s := want[j] / trace
		tol := eta * want[0] / total * (1 + n*math.Abs(s))
		if !(math.Abs(got-s) <= tol) {
			t.Errorf("%s: share %d is %.17g, batch λ/trace %.17g (tolerance %.3g)", what, j, got, s, tol)
			return math.Inf(1)
		}
		worst = math.Max(worst, math.Abs(got-s)/tol)
	}
	if !(math.Abs(sum-1) <= 2*n*vec.Roundoff) {
		t.Errorf("%s: the shares sum to 1%+.3g", what, sum-1)
	}
	return worst
}
