package pca

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/native"
)

func TestMain(m *testing.M) {
	native.Use()
	m.Run()
}

// reference is gonum's batch PCA of the rows of X with weights (nil: unweighted): the
// variances, descending, and the directions as columns, signed by the package's rule.
func reference(t testing.TB, X mat.Matrix, weights []float64) ([]float64, *mat.Dense) {
	t.Helper()
	var pc stat.PC
	if !pc.PrincipalComponents(X, weights) {
		t.Fatal("stat.PC failed")
	}
	vars := pc.VarsTo(nil)
	var v mat.Dense
	pc.VectorsTo(&v)
	sign.Flip(&v)
	return vars, &v
}

// compareReference checks the model's variances and directions against stat.PC's of the
// same points: every variance within tolValue·λ₁ (absolute: a small eigenvalue's
// rounding is of the order of ε·λ₁, not of itself), and each direction j whose
// eigenvalue is separated from the others by a relative gap g ≥ 1e-3 within
// tolVector/g entrywise, up to sign (a direction's rounding error is its eigenvalue's
// over the gap: Davis–Kahan). It returns the largest relative value error and the
// largest scaled direction error, for the tests' logs.
func compareReference(t testing.TB, what string, m *Model, X mat.Matrix, weights []float64, tolValue, tolVector float64) (valErr, vecErr float64) {
	t.Helper()
	want, wantV := reference(t, X, weights)
	got := m.VarsTo(nil)
	lead := want[0]
	for j := range got {
		w := 0.0 // stat.PC gives min(n, d) variances: the others are zero
		if j < len(want) {
			w = want[j]
		}
		e := math.Abs(got[j]-w) / lead
		valErr = math.Max(valErr, e)
		if !(e <= tolValue) {
			t.Errorf("%s: variance %d = %.17g, stat.PC %.17g: %.3g·λ₁ apart", what, j, got[j], w, e)
		}
	}
	var v mat.Dense
	m.VectorsTo(&v)
	d, k := v.Dims()
	for j := range min(k, len(want)) {
		gap := math.Inf(1)
		if j > 0 {
			gap = math.Min(gap, want[j-1]-want[j])
		}
		if j+1 < len(want) {
			gap = math.Min(gap, want[j]-want[j+1])
		} else if j+1 < d {
			gap = math.Min(gap, want[j]) // the variances stat.PC leaves out are zero
		}
		g := gap / lead
		if g < 1e-3 {
			continue
		}
		var plus, minus float64
		for i := range d {
			plus = math.Max(plus, math.Abs(v.At(i, j)-wantV.At(i, j)))
			minus = math.Max(minus, math.Abs(v.At(i, j)+wantV.At(i, j)))
		}
		e := math.Min(plus, minus) * g
		vecErr = math.Max(vecErr, e)
		if !(e <= tolVector) {
			t.Errorf("%s: direction %d off stat.PC's by %.3g (gap %.3g·λ₁)", what, j, math.Min(plus, minus), g)
		}
	}
	return valErr, vecErr
}

// mustNew returns New(d, opts) or fails.
func mustNew(t testing.TB, d int, opts Options) *Model {
	t.Helper()
	m, err := New(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustFit returns Fit(X, opts) or fails.
func mustFit(t testing.TB, X mat.Matrix, opts Options) *Model {
	t.Helper()
	m, err := Fit(X, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
