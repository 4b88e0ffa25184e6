package features

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// featureMap is what the feature maps share.
type featureMap interface {
	Map(dst, x []float64) error
	Transform(dst *mat.Dense, X mat.Matrix) error
	InDim() int
	OutDim() int
}

// checkMap checks a feature map on the points X against its own batch form and its
// contract: Map agrees with Transform row by row to tol, every z has ‖z‖² = 1 to
// unitTol (unless unitTol is 0), Map does not allocate, and bad input — a non-finite
// coordinate, a short point, a short destination, a destination of the wrong shape,
// points of the wrong dimension — is an error that leaves the destination unchanged.
func checkMap(t *testing.T, name string, m featureMap, X *mat.Dense, tol, unitTol float64) {
	t.Helper()
	n, d := X.Dims()
	if m.InDim() != d {
		t.Errorf("%s: InDim %d, want %d", name, m.InDim(), d)
	}
	var Z mat.Dense
	if err := m.Transform(&Z, X); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	z := make([]float64, m.OutDim())
	for i := range n {
		if err := m.Map(z, X.RawRowView(i)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var nrm2 float64
		for j, v := range z {
			if math.Abs(v-Z.At(i, j)) > tol {
				t.Fatalf("%s: Map and Transform differ at (%d, %d): %g vs %g", name, i, j, v, Z.At(i, j))
			}
			nrm2 += v * v
		}
		if unitTol > 0 && math.Abs(nrm2-1) > unitTol {
			t.Errorf("%s: ‖z‖² = %.17g, want 1", name, nrm2)
		}
	}
	if allocs := testing.AllocsPerRun(20, func() { _ = m.Map(z, X.RawRowView(0)) }); allocs != 0 {
		t.Errorf("%s: Map allocates %g times", name, allocs)
	}
	bad := mat.DenseCopyOf(X)
	bad.Set(n/2, d/2, math.NaN())
	before := mat.DenseCopyOf(&Z)
	if err := m.Transform(&Z, bad); err == nil {
		t.Errorf("%s: NaN point: no error", name)
	}
	if !mat.Equal(before, &Z) {
		t.Errorf("%s: failed Transform changed dst", name)
	}
	x := append([]float64(nil), X.RawRowView(0)...)
	x[0] = math.Inf(1)
	if err := m.Map(z, x); err == nil {
		t.Errorf("%s: infinite coordinate: no error", name)
	}
	if err := m.Map(z, x[:d-1]); err == nil {
		t.Errorf("%s: short point: no error", name)
	}
	if err := m.Map(z[:3], X.RawRowView(0)); err == nil {
		t.Errorf("%s: short destination: no error", name)
	}
	if err := m.Transform(mat.NewDense(3, 3, nil), X); err == nil {
		t.Errorf("%s: wrong destination shape: no error", name)
	}
	if err := m.Transform(&Z, mat.NewDense(2, d+1, nil)); err == nil {
		t.Errorf("%s: wrong point dimension: no error", name)
	}
}

// checkSeeds checks that two maps made with the same seed give the same features of x
// and a map made with another seed different ones, and returns the features of the
// first.
func checkSeeds(t *testing.T, x []float64, newMap func(seed uint64) (featureMap, error)) []float64 {
	t.Helper()
	var zs [3][]float64
	for i, seed := range []uint64{5, 5, 6} {
		m, err := newMap(seed)
		if err != nil {
			t.Fatal(err)
		}
		zs[i] = make([]float64, m.OutDim())
		if err := m.Map(zs[i], x); err != nil {
			t.Fatal(err)
		}
	}
	same := func(a, b []float64) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if !same(zs[0], zs[1]) {
		t.Error("same seed, different features")
	}
	if same(zs[0], zs[2]) {
		t.Error("different seeds, same features")
	}
	return zs[0]
}
