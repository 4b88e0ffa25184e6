package nystrom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// transformElements is Approximation.Transform's element path, as it was before kernel blocks:
// one kernel.Column per point (bit for bit Eval) and one dot product per component. The
// reference of TestApproximationTransformBlocks and BenchmarkApproximationTransform. It also returns
// scale[i][q] = Σ_l |k_l(xᵢ)·p_lq|, p_q = u_j/√λ_j, the size of the terms of each score,
// against which rounding is measured, unless withScale is false (the benchmark measures
// the path alone).
func (a *Approximation) transformElements(X *mat.Dense, k int, withScale bool) (res, scale *mat.Dense) {
	rows, _ := X.Dims()
	m := a.m
	v := a.sym.Values(nil)
	tol := zeroTolerance(v, m)
	u := a.sym.Vectors()
	km := make([]float64, m)
	w := make([]float64, m)
	res = mat.NewDense(rows, k, nil)
	scale = mat.NewDense(rows, k, nil)
	for i := range rows {
		kernel.Column(km, a.kern, &a.lview, X.RawRowView(i))
		for q := range k {
			j := m - 1 - q
			if v[j] <= tol {
				continue
			}
			for l := range w {
				w[l] = u.At(l, j)
			}
			f := sign.OfColumn(&a.prod, j) / math.Sqrt(v[j])
			res.Set(i, q, f*floats.Dot(w, km))
			if withScale {
				var s float64
				for l := range w {
					s += math.Abs(km[l] * w[l])
				}
				scale.Set(i, q, math.Abs(f)*s)
			}
		}
	}
	return res, scale
}

// TestApproximationTransformBlocks compares Transform (kernel blocks and a dgemm) with the
// element path on the data points, their near-duplicates (landmarks among them, where
// the RBF identity cancels) and far points, for RBF, polynomial and linear kernels, on
// Yeast (d = 8), the same points offset by 1e4, and split in two clusters 1e3 apart
// (whose points are far from their mean, where the identity cancels unless evaluated
// directly); bandwidths the median distance of Yeast and a twentieth of it. Each score
// is a sum of m terms
// k_l·p_lq; every kernel value is within 1e-13·max(1, v) of Eval (RBF, v its exponent;
// for the others within (d+4)·ε of the sum's terms) and the sum adds m·ε of its terms'
// size, so the scores must agree within 1e-12·Σ_l|k_l·p_lq| (plus 1e-300).
func TestApproximationTransformBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	base := firstRows(t, "yeast", 150)
	med, err := kernel.MedianDistance(base, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range testmat.BlockSets("yeast", base) {
		for _, k := range testmat.BlockKernels(med) {
			ny, err := NewApproximation(k, x, ApproximationOptions{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			m := 40
			if _, ok := k.(kernel.Linear); ok {
				m = 8 // the linear kernel matrix has rank d
			}
			if err := ny.Grow(m); err != nil {
				t.Fatal(err)
			}
			X := testmat.NearPoints(rng, x, []float64{1e-12, 1e-9, 1e-6, 1e-4, 1e-2}, 3*med)
			const comps = 6
			var got mat.Dense
			if err := ny.Transform(&got, X, comps); err != nil {
				t.Fatalf("%s %v: %v", name, k, err)
			}
			want, scale := ny.transformElements(X, comps, true)
			rows, _ := X.Dims()
			for i := range rows {
				for q := range comps {
					if d := math.Abs(got.At(i, q) - want.At(i, q)); !(d <= 1e-12*scale.At(i, q)+1e-300) {
						t.Fatalf("%s %v point %d component %d: %v, element path %v (|Δ| = %.3g, terms %.3g)",
							name, k, i, q, got.At(i, q), want.At(i, q), d, scale.At(i, q))
					}
				}
			}
			// A matrix that is not a *mat.Dense goes through the copying path.
			var viaT mat.Dense
			if err := ny.Transform(&viaT, mat.DenseCopyOf(X.T()).T(), comps); err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(&viaT, &got, 0) {
				t.Errorf("%s %v: a transposed view gives other scores", name, k)
			}
		}
	}
}
