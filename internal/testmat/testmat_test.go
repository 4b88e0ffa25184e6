package testmat

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// mustPanic reports an error if f does not panic.
func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: expected a panic", name)
		}
	}()
	f()
}

func TestRandomOrthogonal(t *testing.T) {
	rng := newRNG(1)
	for _, n := range []int{1, 5, 50} {
		q := RandomOrthogonal(n, rng)
		if r, c := q.Dims(); r != n || c != n {
			t.Fatalf("n=%d: got %d×%d", n, r, c)
		}
		if e := Orthogonality(q); e > 1e-13 {
			t.Errorf("n=%d: ‖QᵀQ − I‖_max = %g", n, e)
		}
		if e := Orthogonality(q.T()); e > 1e-13 {
			t.Errorf("n=%d: ‖QQᵀ − I‖_max = %g", n, e)
		}
	}
	if v := math.Abs(RandomOrthogonal(1, rng).At(0, 0)); v != 1 {
		t.Errorf("1×1 orthogonal matrix has |q| = %v", v)
	}
	mustPanic(t, "n=0", func() { RandomOrthogonal(0, rng) })
}

func TestRandomOrthogonalDeterministic(t *testing.T) {
	a := RandomOrthogonal(7, newRNG(42))
	b := RandomOrthogonal(7, newRNG(42))
	if !mat.Equal(a, b) {
		t.Fatal("same seed gave different matrices")
	}
	if mat.Equal(a, RandomOrthogonal(7, newRNG(43))) {
		t.Fatal("different seeds gave the same matrix")
	}
}

// TestRandomOrthogonalHaar checks the sign correction: for Haar Q every
// entry is symmetric about 0 with E[q²] = 1/n, whereas an uncorrected
// Householder QR gives a Q₁₁ of fixed sign.
func TestRandomOrthogonalHaar(t *testing.T) {
	const n, trials = 3, 4000
	rng := newRNG(7)
	var sum, sumSq, diagSum float64
	for range trials {
		q := RandomOrthogonal(n, rng)
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
	a, q := SymWithSpectrum(values, newRNG(3))
	if e := Orthogonality(q); e > 1e-13 {
		t.Fatalf("Q not orthogonal: %g", e)
	}
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		t.Fatal("EigenSym failed")
	}
	got := es.Values(nil)
	want := slices.Clone(values)
	slices.Sort(want)
	if d := MaxAbsDiff(got, want); d > 1e-13*10 {
		t.Errorf("spectrum %v, want %v (max diff %g)", got, want, d)
	}
	if r := Residual(a, values, q); r > 1e-14 {
		t.Errorf("Residual(A, values, Q) = %g", r)
	}
	mustPanic(t, "empty spectrum", func() { SymWithSpectrum(nil, newRNG(1)) })
}

func TestRandomSym(t *testing.T) {
	const n = 200
	a := RandomSym(n, newRNG(5))
	if !mat.Equal(a, RandomSym(n, newRNG(5))) {
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
	mustPanic(t, "n=0", func() { RandomSym(0, newRNG(1)) })
}

func TestResidual(t *testing.T) {
	a := RandomSym(60, newRNG(11))
	values, u := Eigen(t, a)

	if r := Residual(a, values, u); r > 1e-14 {
		t.Errorf("residual of gonum's decomposition = %g, want ~1e-15", r)
	} else {
		t.Logf("residual of gonum's decomposition = %.2g", r)
	}

	// A subset of eigenpairs (n×k U) is also accurate.
	sub := u.Slice(0, 60, 0, 10)
	if r := Residual(a, values[:10], sub); r > 1e-14 {
		t.Errorf("residual of 10 eigenpairs = %g", r)
	}

	// Perturbed eigenvalue.
	pv := slices.Clone(values)
	pv[0] += 1e-3
	if r := Residual(a, pv, u); r < 1e-6 {
		t.Errorf("residual with a perturbed eigenvalue = %g, want large", r)
	}
	// Perturbed eigenvectors.
	pu := mat.DenseCopyOf(u)
	pu.Set(3, 7, pu.At(3, 7)+1e-3)
	if r := Residual(a, values, pu); r < 1e-6 {
		t.Errorf("residual with a perturbed eigenvector = %g, want large", r)
	}
	// Hand example: A = diag(2, 3), U = I, values (2, 4): ‖(0,0;0,−1)‖/√13.
	d := mat.NewSymDense(2, []float64{2, 0, 0, 3})
	id := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	if r, want := Residual(d, []float64{2, 4}, id), 1/math.Sqrt(13); math.Abs(r-want) > 1e-16 {
		t.Errorf("hand residual = %v, want %v", r, want)
	}
	// Zero matrix: the denominator is guarded.
	z := mat.NewSymDense(2, nil)
	if r := Residual(z, []float64{0, 0}, id); r != 0 {
		t.Errorf("residual of exact zero decomposition = %v", r)
	}
	mustPanic(t, "value count", func() { Residual(a, values[:3], u) })
}

// TestEigen: the eigenvalues of a matrix of known spectrum, descending, with
// orthonormal vectors that satisfy A·U = U·Λ to rounding.
func TestEigen(t *testing.T) {
	spectrum := []float64{3, -1, 0.5, 0.5, 1e-3, 10, 0, -7.25}
	a, _ := SymWithSpectrum(spectrum, newRNG(23))
	values, u := Eigen(t, a)
	want := slices.Clone(spectrum)
	slices.Sort(want)
	slices.Reverse(want)
	if d := MaxAbsDiff(values, want); d > 1e-13*10 {
		t.Errorf("values %v, want %v (max diff %g)", values, want, d)
	}
	if r := Residual(a, values, u); r > 1e-14 {
		t.Errorf("residual %g", r)
	}
	if e := Orthogonality(u); e > 1e-14 {
		t.Errorf("orthogonality %g", e)
	}
}

func TestOrthogonality(t *testing.T) {
	if e := Orthogonality(mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})); e != 0 {
		t.Errorf("identity: %v", e)
	}
	// UᵀU = (1 1; 1 2): max |UᵀU − I| = 1.
	if e := Orthogonality(mat.NewDense(2, 2, []float64{1, 1, 0, 1})); e != 1 {
		t.Errorf("(1 1; 0 1): %v, want 1", e)
	}
	// diag(1, 2): UᵀU − I = diag(0, 3).
	if e := Orthogonality(mat.NewDense(2, 2, []float64{1, 0, 0, 2})); e != 3 {
		t.Errorf("diag(1,2): %v, want 3", e)
	}
	// Tall matrix with orthonormal columns.
	s := 1 / math.Sqrt(2)
	if e := Orthogonality(mat.NewDense(3, 2, []float64{s, 0, s, 0, 0, 1})); e > 1e-15 {
		t.Errorf("tall orthonormal: %v", e)
	}
	if e := Orthogonality(mat.NewDense(2, 2, []float64{math.NaN(), 0, 0, 1})); !math.IsNaN(e) {
		t.Errorf("NaN input gave %v", e)
	}
}

func TestReconstruct(t *testing.T) {
	// U = (1 0; 1 1) (not orthogonal), values (2, 3):
	// U·diag·Uᵀ = (2 2; 2 5).
	u := mat.NewDense(2, 2, []float64{1, 0, 1, 1})
	got := Reconstruct([]float64{2, 3}, u)
	want := mat.NewSymDense(2, []float64{2, 2, 2, 5})
	if !mat.Equal(got, want) {
		t.Errorf("got %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}

	a := RandomSym(40, newRNG(13))
	r := Reconstruct(Eigen(t, a))
	if !mat.EqualApprox(r, a, 1e-13) {
		t.Error("reconstruction of gonum's decomposition differs from A")
	}
	mustPanic(t, "value count", func() { Reconstruct([]float64{1}, u) })
}

func TestLeading(t *testing.T) {
	a := RandomSym(6, newRNG(19))
	l := Leading(a, 4)
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
	if !mat.Equal(Leading(a, 6), a) {
		t.Error("Leading(a, n) differs from a")
	}
	mustPanic(t, "m=0", func() { Leading(a, 0) })
	mustPanic(t, "m>n", func() { Leading(a, 7) })
}

func TestMaxAbsDiff(t *testing.T) {
	if d := MaxAbsDiff([]float64{1, 2, 3}, []float64{1, 2.5, 1}); d != 2 {
		t.Errorf("got %v, want 2", d)
	}
	if d := MaxAbsDiff(nil, nil); d != 0 {
		t.Errorf("empty: got %v", d)
	}
	if d := MaxAbsDiff([]float64{1, math.NaN()}, []float64{1, 0}); !math.IsNaN(d) {
		t.Errorf("NaN input gave %v", d)
	}
	if d := MaxAbsDiff([]float64{5, 0}, []float64{0, math.NaN()}); !math.IsNaN(d) {
		t.Errorf("NaN after a large difference gave %v", d)
	}
	mustPanic(t, "length mismatch", func() { MaxAbsDiff([]float64{1}, []float64{1, 2}) })
}

// TestNormal: Normal draws its entries row by row from rng, so that the same seed gives
// the same matrix as the loop it replaces, and panics on an empty shape.
func TestNormal(t *testing.T) {
	a := Normal(3, 4, newRNG(5))
	rng := newRNG(5)
	for i := range 3 {
		for j := range 4 {
			if want := rng.NormFloat64(); a.At(i, j) != want {
				t.Fatalf("entry (%d, %d) = %v, want %v", i, j, a.At(i, j), want)
			}
		}
	}
	mustPanic(t, "Normal(0, 4)", func() { Normal(0, 4, rng) })
}

// TestSample: SelectRows copies the rows asked for in their order, and Standardise
// gives train's columns mean 0 and deviation 1 (a constant column only centred),
// applying train's statistics to the others.
func TestSample(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 5, 2, 5, 3, 5, 6, 5})
	train := SelectRows(X, []int{2, 0, 1})
	if want := mat.NewDense(3, 2, []float64{3, 5, 1, 5, 2, 5}); !mat.Equal(train, want) {
		t.Fatalf("SelectRows = %v, want %v", mat.Formatted(train), mat.Formatted(want))
	}
	test := SelectRows(X, []int{3})
	Standardise(train, test)
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
