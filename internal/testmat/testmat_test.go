package testmat

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
)

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

func TestResidual(t *testing.T) {
	a := synth.RandomSym(60, synth.Seeded(11))
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
	a, _ := synth.SymWithSpectrum(spectrum, synth.Seeded(23))
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
