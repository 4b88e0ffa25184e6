package synth_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
)

// panics reports whether f panics.
func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

func TestRandomOrthogonal(t *testing.T) {
	rng := synth.Seeded(1)
	for _, n := range []int{1, 5, 50} {
		q := synth.RandomOrthogonal(n, rng)
		if r, c := q.Dims(); r != n || c != n {
			t.Fatalf("n=%d: got %d×%d", n, r, c)
		}
		if e := testmat.Orthogonality(q); e > 1e-13 {
			t.Errorf("n=%d: ‖QᵀQ − I‖_max = %g", n, e)
		}
		if e := testmat.Orthogonality(q.T()); e > 1e-13 {
			t.Errorf("n=%d: ‖QQᵀ − I‖_max = %g", n, e)
		}
	}
	if v := math.Abs(synth.RandomOrthogonal(1, rng).At(0, 0)); v != 1 {
		t.Errorf("1×1 orthogonal matrix has |q| = %v", v)
	}
	if !panics(func() { synth.RandomOrthogonal(0, rng) }) {
		t.Error("n=0: expected a panic")
	}
}

func TestRandomOrthogonalDeterministic(t *testing.T) {
	a := synth.RandomOrthogonal(7, synth.Seeded(42))
	b := synth.RandomOrthogonal(7, synth.Seeded(42))
	if !mat.Equal(a, b) {
		t.Fatal("same seed gave different matrices")
	}
	if mat.Equal(a, synth.RandomOrthogonal(7, synth.Seeded(43))) {
		t.Fatal("different seeds gave the same matrix")
	}
}

// TestRandomOrthogonalHaar checks the sign correction: for Haar Q every
// entry is symmetric about 0 with E[q²] = 1/n, whereas an uncorrected
// Householder QR gives a Q₁₁ of fixed sign.
func TestRandomOrthogonalHaar(t *testing.T) {
	const n, trials = 3, 4000
	rng := synth.Seeded(7)
	var sum, sumSq, diagSum float64
	for range trials {
		q := synth.RandomOrthogonal(n, rng)
		sum += q.At(0, 0)
		sumSq += q.At(0, 0) * q.At(0, 0)
		diagSum += q.At(0, 0) + q.At(1, 1) + q.At(2, 2)
	}
	// sd(q₁₁) = 1/√3 ≈ 0.58, so the sd of the mean is ≈ 0.009.
	if m := sum / trials; math.Abs(m) > 0.04 {
		t.Errorf("mean of Q₁₁ = %.4f, want ≈ 0", m)
	}
	if m := sumSq / trials; math.Abs(m-1.0/n) > 0.03 {
		t.Errorf("mean of Q₁₁² = %.4f, want ≈ %.4f", m, 1.0/n)
	}
	// E[trace Q] = 0 for Haar measure on O(n).
	if m := diagSum / trials; math.Abs(m) > 0.06 {
		t.Errorf("mean trace = %.4f, want ≈ 0", m)
	}
}

func TestSymWithSpectrum(t *testing.T) {
	values := []float64{3, -1, 0.5, 0.5, 1e-3, 10, 0, -7.25}
	a, q := synth.SymWithSpectrum(values, synth.Seeded(3))
	if e := testmat.Orthogonality(q); e > 1e-13 {
		t.Fatalf("Q not orthogonal: %g", e)
	}
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		t.Fatal("EigenSym failed")
	}
	got := es.Values(nil)
	want := slices.Clone(values)
	slices.Sort(want)
	if d := testmat.MaxAbsDiff(got, want); d > 1e-13*10 {
		t.Errorf("spectrum %v, want %v (max diff %g)", got, want, d)
	}
	if r := testmat.Residual(a, values, q); r > 1e-14 {
		t.Errorf("testmat.Residual(A, values, Q) = %g", r)
	}
	if !panics(func() { synth.SymWithSpectrum(nil, synth.Seeded(1)) }) {
		t.Error("empty spectrum: expected a panic")
	}
}

func TestRandomSym(t *testing.T) {
	const n = 200
	a := synth.RandomSym(n, synth.Seeded(5))
	if !mat.Equal(a, synth.RandomSym(n, synth.Seeded(5))) {
		t.Fatal("same seed gave different matrices")
	}
	var sum, sumSq float64
	for i := range n {
		for j := i; j < n; j++ {
			v := a.At(i, j)
			if a.At(j, i) != v {
				t.Fatalf("not symmetric at (%d,%d)", i, j)
			}
			sum += v
			sumSq += v * v
		}
	}
	cnt := float64(n * (n + 1) / 2)
	mean := sum / cnt
	variance := sumSq/cnt - mean*mean
	if math.Abs(mean) > 0.02 || math.Abs(variance-1) > 0.03 {
		t.Errorf("entries have mean %.4f and variance %.4f, want 0 and 1", mean, variance)
	}
	if !panics(func() { synth.RandomSym(0, synth.Seeded(1)) }) {
		t.Error("n=0: expected a panic")
	}
}

func TestReconstruct(t *testing.T) {
	// U = (1 0; 1 1) (not orthogonal), values (2, 3):
	// U·diag·Uᵀ = (2 2; 2 5).
	u := mat.NewDense(2, 2, []float64{1, 0, 1, 1})
	got := synth.Reconstruct([]float64{2, 3}, u)
	want := mat.NewSymDense(2, []float64{2, 2, 2, 5})
	if !mat.Equal(got, want) {
		t.Errorf("got %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}

	a := synth.RandomSym(40, synth.Seeded(13))
	r := synth.Reconstruct(testmat.Eigen(t, a))
	if !mat.EqualApprox(r, a, 1e-13) {
		t.Error("reconstruction of gonum's decomposition differs from A")
	}
	if !panics(func() { synth.Reconstruct([]float64{1}, u) }) {
		t.Error("value count: expected a panic")
	}
}

func TestLeading(t *testing.T) {
	a := synth.RandomSym(6, synth.Seeded(19))
	l := synth.Leading(a, 4)
	if n := l.SymmetricDim(); n != 4 {
		t.Fatalf("dim %d, want 4", n)
	}
	for i := range 4 {
		for j := range 4 {
			if l.At(i, j) != a.At(i, j) {
				t.Errorf("(%d,%d): %v, want %v", i, j, l.At(i, j), a.At(i, j))
			}
		}
	}
	old := a.At(0, 1)
	l.SetSym(0, 1, 99)
	if a.At(0, 1) != old {
		t.Error("Leading shares storage with its argument")
	}
	if !mat.Equal(synth.Leading(a, 6), a) {
		t.Error("Leading(a, n) differs from a")
	}
	if !panics(func() { synth.Leading(a, 0) }) {
		t.Error("m=0: expected a panic")
	}
	if !panics(func() { synth.Leading(a, 7) }) {
		t.Error("m>n: expected a panic")
	}
}

// TestNormal: Normal draws its entries row by row from rng, so that the same seed gives
// the same matrix as the loop it replaces, and panics on an empty shape.
func TestNormal(t *testing.T) {
	a := synth.Normal(3, 4, synth.Seeded(5))
	rng := synth.Seeded(5)
	for i := range 3 {
		for j := range 4 {
			if want := rng.NormFloat64(); a.At(i, j) != want {
				t.Fatalf("entry (%d, %d) = %v, want %v", i, j, a.At(i, j), want)
			}
		}
	}
	if !panics(func() { synth.Normal(0, 4, rng) }) {
		t.Error("Normal(0, 4): expected a panic")
	}
}

// TestSample: SelectRows copies the rows asked for in their order, and Standardise
// gives train's columns mean 0 and deviation 1 (a constant column only centred),
// applying train's statistics to the others.
func TestSample(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 5, 2, 5, 3, 5, 6, 5})
	train := synth.SelectRows(X, []int{2, 0, 1})
	if want := mat.NewDense(3, 2, []float64{3, 5, 1, 5, 2, 5}); !mat.Equal(train, want) {
		t.Fatalf("SelectRows = %v, want %v", mat.Formatted(train), mat.Formatted(want))
	}
	test := synth.SelectRows(X, []int{3})
	synth.Standardise(train, test)
	// Column 0 of train is 3, 1, 2: mean 2, deviation √(2/3).
	sd := math.Sqrt(2.0 / 3)
	want := mat.NewDense(3, 2, []float64{1 / sd, 0, -1 / sd, 0, 0, 0})
	if !mat.EqualApprox(train, want, 1e-15) {
		t.Errorf("standardised train = %v, want %v", mat.Formatted(train), mat.Formatted(want))
	}
	if got := test.RawRowView(0); math.Abs(got[0]-4/sd) > 1e-15 || got[1] != 0 {
		t.Errorf("standardised test point = %v, want [%v 0]", got, 4/sd)
	}
}
