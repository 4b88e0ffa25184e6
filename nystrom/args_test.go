package nystrom

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
)

// TestArguments: New, Choose and Fit refuse bad kernels, options and points with the
// right kind of error.
func TestArguments(t *testing.T) {
	X := points(t, "yeast", 40, 1)
	L := rows(X, 0, 5)
	rbf := kernel.RBF{Sigma: 1}
	nanK := kernel.Func{Name: "nan", F: func(x, y []float64) float64 { return math.NaN() }}
	withNaN := mat.DenseCopyOf(L)
	withNaN.Set(2, 3, math.NaN())
	var nilDense *mat.Dense
	var nilRBF *kernel.RBF
	for _, c := range []struct {
		what string
		f    func() error
		want error
	}{
		{"New: nil kernel", func() error { _, err := New(nil, L, Options{}); return err }, ikpca.ErrArgument},
		{"New: nil *RBF", func() error { _, err := New(nilRBF, L, Options{}); return err }, ikpca.ErrArgument},
		{"New: σ = 0", func() error { _, err := New(kernel.RBF{}, L, Options{}); return err }, ikpca.ErrArgument},
		{"New: nil landmarks", func() error { _, err := New(rbf, nil, Options{}); return err }, ikpca.ErrArgument},
		{"New: nil *mat.Dense", func() error { _, err := New(rbf, nilDense, Options{}); return err }, ikpca.ErrArgument},
		{"New: empty landmarks", func() error { _, err := New(rbf, &mat.Dense{}, Options{}); return err }, ikpca.ErrEmpty},
		{"New: a NaN landmark", func() error { _, err := New(rbf, withNaN, Options{}); return err }, ikpca.ErrNonFinite},
		{"New: a NaN kernel", func() error { _, err := New(nanK, L, Options{}); return err }, ikpca.ErrNonFinite},
		{"New: a zero kernel matrix", func() error { _, err := New(kernel.Linear{}, mat.NewDense(3, 2, nil), Options{}); return err }, ikpca.ErrArgument},
		{"New: tolerance 1", func() error { _, err := New(rbf, L, Options{Tolerance: 1}); return err }, ikpca.ErrArgument},
		{"New: tolerance NaN", func() error { _, err := New(rbf, L, Options{Tolerance: math.NaN()}); return err }, ikpca.ErrArgument},
		{"New: tolerance −1e-3", func() error { _, err := New(rbf, L, Options{Tolerance: -1e-3}); return err }, ikpca.ErrArgument},
		{"New: rank 4 for 5 landmarks", func() error { _, err := New(rbf, L, Options{Rank: 4}); return err }, ikpca.ErrArgument},
		{"New: strategy 3", func() error { _, err := New(rbf, L, Options{Landmarks: 3}); return err }, ikpca.ErrArgument},
		{"Choose: nil kernel", func() error { _, err := Choose(nil, X, Options{Rank: 3}); return err }, ikpca.ErrArgument},
		{"Choose: nil points", func() error { _, err := Choose(rbf, nil, Options{Rank: 3}); return err }, ikpca.ErrArgument},
		{"Choose: no points", func() error { _, err := Choose(rbf, &mat.Dense{}, Options{Rank: 3}); return err }, ikpca.ErrEmpty},
		{"Choose: rank 0", func() error { _, err := Choose(rbf, X, Options{}); return err }, ikpca.ErrArgument},
		{"Choose: rank −1", func() error { _, err := Choose(rbf, X, Options{Rank: -1}); return err }, ikpca.ErrArgument},
		{"Choose: rank above n", func() error { _, err := Choose(rbf, X, Options{Rank: 41}); return err }, ikpca.ErrArgument},
		{"Choose: strategy −1", func() error { _, err := Choose(rbf, X, Options{Rank: 3, Landmarks: -1}); return err }, ikpca.ErrArgument},
		{"Choose: a NaN point", func() error { _, err := Choose(rbf, withNaN, Options{Rank: 3}); return err }, ikpca.ErrNonFinite},
		{"Choose, stream: a NaN kernel", func() error { _, err := Choose(nanK, X, Options{Rank: 3, Landmarks: Stream}); return err }, ikpca.ErrNonFinite},
		{"Choose, greedy: a NaN kernel", func() error { _, err := Choose(nanK, X, Options{Rank: 3, Landmarks: Greedy}); return err }, ikpca.ErrNonFinite},
		{"Fit: a NaN kernel", func() error { _, err := Fit(nanK, X, Options{Rank: 3}); return err }, ikpca.ErrNonFinite},
		// 2¹⁶ one-dimensional points and 2¹⁵ landmarks: Greedy's n×r factor would hold 2³¹
		// numbers, beyond the 2³⁰ a constructor allocates.
		{"Choose, greedy: a factor too large", func() error {
			_, err := Choose(rbf, mat.NewDense(1<<16, 1, nil), Options{Rank: 1 << 15, Landmarks: Greedy})
			return err
		}, ikpca.ErrArgument},
	} {
		if err := c.f(); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, err, c.want)
		}
	}
}

// TestOverflow: points whose kernel values overflow — a polynomial kernel of degree 40
// on points of norm 3e10, (γ·xᵀy + 1)⁴⁰ ≈ 1e339 — or whose features would take the
// sums beyond 2¹⁰⁰⁰ — norm 3e7, kernel values near 1e219 — are an ErrNonFinite from Add,
// AddBatch (the bad row after two full blocks) and Transform (kernel overflow only:
// scores are not summed), and leave the model and dst unchanged.
func TestOverflow(t *testing.T) {
	X := points(t, "magic", 300, 2)
	k := kernel.Polynomial{Degree: 40, Gamma: 1e-2, Coef0: 1}
	m := fit(t, k, rows(X, 0, 10), rows(X, 10, 200), Options{})
	for _, scale := range []float64{1e10, 1e7} {
		big := make([]float64, 10)
		for i := range big {
			big[i] = scale
		}
		batch := mat.DenseCopyOf(rows(X, 100, 300))
		batch.SetRow(149, big)
		before, _ := m.MarshalBinary()
		dst := mat.NewDense(1, 1, []float64{7})
		calls := map[string]error{"Add": m.Add(big), "AddBatch": m.AddBatch(batch)}
		if scale == 1e10 {
			calls["Transform"] = m.Transform(dst, mat.NewDense(1, 10, big), 1)
		}
		for what, err := range calls {
			if !errors.Is(err, ikpca.ErrNonFinite) {
				t.Errorf("%s of a point of norm %g: %v, want ErrNonFinite", what, 3*scale, err)
			}
		}
		after, _ := m.MarshalBinary()
		if string(before) != string(after) || dst.At(0, 0) != 7 {
			t.Errorf("a refused point of norm %g changed the model or dst", 3*scale)
		}
	}
}

// TestSmallModels: no values before the second point, then one; ExplainedVariance
// sums to one; VectorsTo leaves an empty dst empty when there is nothing to write.
func TestSmallModels(t *testing.T) {
	X := points(t, "yeast", 20, 1)
	m, err := New(kernel.RBF{Sigma: 1}, rows(X, 0, 5), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var v mat.Dense
	for i := range 3 {
		if got := len(m.Values(nil)); got != max(i-1, 0) {
			t.Errorf("%d points: %d values, want %d", i, got, max(i-1, 0))
		}
		if i < 2 {
			m.VectorsTo(&v)
			if !v.IsEmpty() {
				t.Errorf("%d points: VectorsTo wrote a %d×%d matrix", i, v.RawMatrix().Rows, v.RawMatrix().Cols)
			}
			if err := m.Transform(&mat.Dense{}, rows(X, 0, 2), 1); !errors.Is(err, ikpca.ErrEmpty) {
				t.Errorf("%d points: Transform: %v, want ErrEmpty", i, err)
			}
		}
		if err := m.Add(X.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.AddBatch(rows(X, 3, 20)); err != nil {
		t.Fatal(err)
	}
	var sum float64
	ev := m.ExplainedVariance(nil)
	for _, s := range ev {
		sum += s
	}
	if len(ev) != 5 || math.Abs(sum-1) > 1e-12 || !(ev[0] >= ev[4]) {
		t.Errorf("explained variance %v (sum %g)", ev, sum)
	}
}
