package kpca

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// pointsTarget is the matrix a model of the points of md decomposes, K or CKC, formed
// from scratch.
func pointsTarget(md exactModel) *mat.SymDense {
	var p mat.Dense
	md.Points(&p)
	k := kernel.Matrix(md.Kernel(), &p)
	if !md.Options().Uncentred {
		return kernel.Centre(k)
	}
	return k
}

// checkExact compares an exact model with a batch decomposition of its points: the
// eigenvalues (relative to λmax) and the reconstruction ‖A − VΛVᵀ‖_F/‖A‖_F within tol,
// the orthogonality of the vectors, and the row sums, total and trace (checkSums).
func checkExact(t *testing.T, what string, md exactModel, tol float64) {
	t.Helper()
	if md.Len() == 0 {
		if md.Components() != 0 {
			t.Errorf("%s: %d components without points", what, md.Components())
		}
		return
	}
	a := pointsTarget(md)
	if md.Components() == 0 {
		return // one centred point
	}
	v := maxRelDiff(md.Values(nil), batchValues(t, a, md.Options().Uncentred))
	r := reconstruction(md, a)
	o := orthogonality(md)
	if !(v <= tol && r <= tol && o <= tol) {
		t.Errorf("%s (m = %d): eigenvalues off by %.3g, reconstruction %.3g, orthogonality %.3g (tolerance %.3g)", what, md.Len(), v, r, o, tol)
	}
	checkSums(t, what, storeOf(md))
}

// TestRemove removes points from exact models — the oldest, the newest, middle ones —
// and checks each step against a batch kernel PCA of the points left (checkExact: 1e-10,
// the tolerance of growth, TestAgainstBatch), with the order of the points kept; then
// removes every point and grows the model back.
func TestRemove(t *testing.T) {
	for _, set := range []string{"yeast", "magic"} {
		x := points(t, set, 80)
		_, d := x.Dims()
		k := rbfMedian(t, x)
		for _, uncentred := range []bool{false, true} {
			opts := Options{Components: All, Uncentred: uncentred}
			what := set + " " + modeName(uncentred)
			md := fitModel(t, k, x.Slice(0, 60, 0, d), opts)
			rows := make([]int, 60) // the rows of x in the model, in order
			for i := range rows {
				rows[i] = i
			}
			for step, i := range []int{0, 59 - 1, 30, 17, 0, 40} {
				if err := md.Remove(i); err != nil {
					t.Fatalf("%s: Remove(%d): %v", what, i, err)
				}
				rows = slices.Delete(rows, i, i+1)
				checkExact(t, what, md, 1e-10)
				if st := md.Stats(); st.Points != len(rows) || st.Last.Op != "remove" || len(md.UpdateStats(nil)) != 1 {
					t.Errorf("%s: stats after removal %d: %+v", what, step, st)
				}
			}
			var p mat.Dense
			md.Points(&p)
			for q, r := range rows {
				if !slices.Equal(p.RawRowView(q), x.RawRowView(r)) {
					t.Fatalf("%s: point %d is not row %d", what, q, r)
				}
			}
			// Interleaved: add two, remove one.
			for i := 60; i < 80; i += 2 {
				for _, j := range []int{i, i + 1} {
					if err := md.Add(x.RawRowView(j)); err != nil {
						t.Fatal(err)
					}
				}
				if err := md.Remove(md.Len() / 3); err != nil {
					t.Fatal(err)
				}
			}
			checkExact(t, what+", interleaved", md, 1e-10)
			// Down to nothing, and back.
			for md.Len() > 0 {
				if err := md.Remove(md.Len() - 1); err != nil {
					t.Fatalf("%s: removing down to empty at %d: %v", what, md.Len(), err)
				}
				if md.Len() <= 3 {
					checkExact(t, what+", n ≤ 3", md, 1e-10)
				}
			}
			if md.Components() != 0 || len(md.Values(nil)) != 0 {
				t.Errorf("%s: %d components without points", what, md.Components())
			}
			for i := range 5 {
				if err := md.Add(x.RawRowView(i)); err != nil {
					t.Fatalf("%s: adding to an emptied model: %v", what, err)
				}
				checkExact(t, what+", regrown", md, 1e-10)
			}
		}
	}
}

// TestRemoveAdversarial removes the points that make removal hard, from exact models
// checked against batch (checkExact, 1e-10): one of several duplicates (equal and zero
// eigenvalues), a point 1e-9 from another (tiny weights), a point far from the others
// (it alone carries a component), a vertex of a regular simplex (equal eigenvalues),
// and models of n = 1, 2 and 3 points.
func TestRemoveAdversarial(t *testing.T) {
	y := points(t, "yeast", 30)
	k := rbfMedian(t, y)
	build := func(rows [][]float64) *mat.Dense {
		x := mat.NewDense(len(rows), len(rows[0]), nil)
		for i, r := range rows {
			x.SetRow(i, r)
		}
		return x
	}
	var dup, near, far [][]float64
	for i := range 20 {
		dup = append(dup, y.RawRowView(i%7))
		near = append(near, y.RawRowView(i))
		far = append(far, y.RawRowView(i))
	}
	near[13] = slices.Clone(near[4])
	near[13][2] += 1e-9
	far[9] = slices.Clone(far[9])
	for j := range far[9] {
		far[9][j] += 1e3
	}
	simplex := [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
	cases := []struct {
		name   string
		x      *mat.Dense
		kern   kernel.Kernel
		remove []int
	}{
		{"duplicates", build(dup), k, []int{7, 0, 13, 3}},
		{"near-duplicate", build(near), k, []int{13, 4}},
		{"isolated", build(far), k, []int{9}},
		{"simplex", build(simplex), kernel.RBF{Sigma: 1}, []int{2, 0, 1, 0}},
		{"n = 3", build(near[:3]), k, []int{1, 1, 0}},
	}
	for _, c := range cases {
		for _, uncentred := range []bool{false, true} {
			what := c.name + " " + modeName(uncentred)
			n, _ := c.x.Dims()
			md := fitModel(t, c.kern, c.x, Options{Components: All, Uncentred: uncentred})
			for _, i := range c.remove {
				if err := md.Remove(i); err != nil {
					t.Fatalf("%s: Remove(%d): %v", what, i, err)
				}
				checkExact(t, what, md, 1e-10)
			}
			if md.Len() != n-len(c.remove) {
				t.Errorf("%s: %d points left, want %d", what, md.Len(), n-len(c.remove))
			}
		}
	}
}

// TestRemoveBadInput: an index out of range, a model without points and method RankOne
// are errors of the documented kinds, and a removal whose secular solve does not
// converge leaves the model exactly as it was.
func TestRemoveBadInput(t *testing.T) {
	x, k := sample(t, "yeast", 30)
	for _, opts := range []Options{{Components: All}, {Components: All, Uncentred: true}, {Components: 5, Rank: 5}, {Uncentred: true, Components: 5, Rank: 5, Window: 25}} {
		md := fitModel(t, k, x.Slice(0, 25, 0, 8), opts)
		for _, i := range []int{-1, 25, 1 << 40} {
			before := capture(md)
			err := md.Remove(i)
			if !errors.Is(err, ErrIndex) || !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
				t.Errorf("%+v: Remove(%d): %v, want ErrIndex", opts, i, err)
			}
			if !capture(md).equal(before) {
				t.Errorf("%+v: Remove(%d) changed the model", opts, i)
			}
		}
		setMaxIterations(md, 1)
		before := capture(md)
		if err := md.Remove(12); err == nil {
			t.Errorf("%+v: a removal with a capped root finder succeeded", opts)
		}
		if !capture(md).equal(before) {
			t.Errorf("%+v: a failed removal changed the model", opts)
		}
		setMaxIterations(md, 0)
	}
	// A model emptied: any index is out of range, an ErrIndex and no other kind (an
	// error wraps exactly one).
	md := fitModel(t, k, x.Slice(0, 2, 0, 8), Options{Components: All})
	md.Remove(0)
	md.Remove(0)
	if err := md.Remove(0); !errors.Is(err, ErrIndex) || errors.Is(err, ikpca.ErrEmpty) {
		t.Errorf("Remove of an empty model: %v, want ErrIndex only", err)
	}
	// A RankOneModel cannot remove: it has no Remove, and is no ikpca.Decremental.
	if _, ok := any(new(RankOneModel)).(interface{ Remove(int) error }); ok {
		t.Error("RankOneModel has a Remove")
	}
}

// TestEmptied: a model whose every point was removed refreshes, reports no component,
// refuses Transform (ErrEmpty), encodes and decodes as a model without points, and grows
// again by Add and by AddBatch, as does its decoded copy.
func TestEmptied(t *testing.T) {
	x, k := sample(t, "yeast", 12)
	for _, opts := range []Options{{Components: All}, {Components: All, Uncentred: true}, {Components: 1, Rank: 1}} {
		md := fitModel(t, k, x.Slice(0, 2, 0, 8), opts)
		md.Remove(1)
		md.Remove(0)
		if err := md.Refresh(); err != nil || md.Len() != 0 || md.Components() != 0 {
			t.Errorf("%s: Refresh of an empty model: %v, %d points, %d components", name(opts), err, md.Len(), md.Components())
		}
		var dst mat.Dense
		if err := md.Transform(&dst, x, 1); !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrArgument) {
			t.Errorf("%s: Transform of an empty model: %v", name(opts), err)
		}
		back, err := decoded(encode(t, md))
		if err != nil || back.Len() != 0 || back.Dim() != 8 || back.Options() != md.Options() {
			t.Fatalf("%s: the encoding of an empty model: %v", name(opts), err)
		}
		if d := md.Drift(); d != (Drift{}) {
			t.Errorf("%s: Drift of an empty model: %+v", name(opts), d)
		}
		if err := md.Add(x.RawRowView(2)); err != nil {
			t.Fatal(err)
		}
		if err := md.AddBatch(x.Slice(3, 12, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if err := back.AddBatch(x.Slice(2, 12, 0, 8)); err != nil || back.Len() != 10 {
			t.Fatalf("%s: the decoded empty model takes a batch: %v", name(opts), err)
		}
		if opts.Rank == 0 {
			checkExact(t, name(opts)+" regrown", md, 1e-10)
		} else if md.Len() != 10 || md.Components() != 1 {
			t.Errorf("%s: regrown to %d points, %d components", name(opts), md.Len(), md.Components())
		}
	}
}

// TestRemoveDominant removes a point whose kernel values dominate the others' — a cubic
// kernel's outlier, k(x, x) = 1e66 against about 1 — from an exact and a tracked model
// (docs/design.md, "Removing a point"). A downdate keeps the rounding of the matrix it
// removes from, 1e66·ε, far above the points left: the exact model's eigenvalues are
// then wrong, and the tracked one holds no pair at all. The drift probe must see both,
// from the points (above 1e-3 where it measured 1e-16 before the removal); the
// tracked model's certificate must say it knows nothing (ErrorBound above the points
// left's λ₁); Refresh must bring both back to a batch decomposition of the points left,
// and a model with RefreshTolerance must refresh itself at its next probe.
func TestRemoveDominant(t *testing.T) {
	k := kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}
	x := mat.NewDense(9, 3, nil)
	x.SetRow(0, []float64{0, 1e11, 0})
	for i := 1; i < 9; i++ {
		f := float64(i)
		x.SetRow(i, []float64{0.1 * f, 0.2, -0.1 * f * f})
	}
	for _, opts := range []Options{{Components: All}, {Components: 3, Rank: 3}, {Components: All, RefreshTolerance: 1e-8, CheckEvery: 1}} {
		what := fmt.Sprintf("rank %d, RefreshTolerance %g", opts.Rank, opts.RefreshTolerance)
		md, err := New(k, 3, opts)
		if err != nil {
			t.Fatal(err)
		}
		testmat.AddRows(t, md, x, 0, 8)
		if dr := md.Drift(); !(dr.Max() < 1e-12) {
			t.Fatalf("%s: drift %+v before the removal", what, dr)
		}
		if err := md.Remove(0); err != nil {
			t.Fatal(err)
		}
		want := batchValues(t, pointsTarget(md), false)
		if dr := md.Drift(); !(dr.Residual > 1e-3) {
			t.Errorf("%s: drift %+v after the outlier left", what, dr)
		}
		if opts.Rank > 0 && !(md.ErrorBound() > want[0]) {
			t.Errorf("%s: ErrorBound %.3g after the outlier left, λ₁ %.6g", what, md.ErrorBound(), want[0])
		}
		if opts.RefreshTolerance > 0 {
			// The next Add probes (CheckEvery 1) and refreshes.
			testmat.AddRows(t, md, x, 8, 9)
			if st := md.Stats(); st.Refreshes != 1 || st.RefreshErr != nil {
				t.Errorf("%s: %d refreshes (%v)", what, st.Refreshes, st.RefreshErr)
			}
		} else if err := md.Refresh(); err != nil {
			t.Fatal(err)
		}
		want = batchValues(t, pointsTarget(md), false)
		got := md.Values(nil)
		if v := maxRelDiff(got, want[:len(got)]); !(v <= 1e-12) || len(got) == 0 {
			t.Errorf("%s: refreshed eigenvalues %v, batch %v", what, got, want)
		}
		checkSums(t, what, md)
		if dr := md.Drift(); !(dr.Max() < 1e-12) {
			t.Errorf("%s: drift %+v after the refresh", what, dr)
		}
	}
}
