package nystrom

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// batchApproximation computes K̃ = K_nm·K_mm⁺·K_mn from scratch for the landmarks L, with the
// same pseudo-inverse threshold (m·ε·λmax), and the approximate eigenvalues (n/m)·λ.
func batchApproximation(t *testing.T, k kernel.Kernel, x *mat.Dense, L []int) (*mat.SymDense, []float64) {
	t.Helper()
	n, d := x.Dims()
	m := len(L)
	lx := mat.NewDense(m, d, nil)
	for q, i := range L {
		lx.SetRow(q, x.RawRowView(i))
	}
	kmm := kernel.Matrix(k, lx)
	knm := mat.NewDense(n, m, nil)
	col := make([]float64, n)
	for q := range m {
		kernel.Column(col, k, x, lx.RawRowView(q))
		knm.SetCol(q, col)
	}
	var u mat.Dense
	lambda, err := native.EigenSym(nil, &u, kmm)
	if err != nil {
		t.Fatal(err)
	}
	tol := zeroTolerance(lambda, m)
	g := mat.NewDense(n, m, nil) // K_nm·U·Λ^{-½}
	g.Mul(knm, &u)
	for j := range m {
		s := 0.0
		if lambda[j] > tol {
			s = 1 / math.Sqrt(lambda[j])
		}
		col := g.ColView(j).(*mat.VecDense)
		col.ScaleVec(s, col)
	}
	approx := mat.NewSymDense(n, nil)
	approx.SymOuterK(1, g)
	values := make([]float64, m)
	for q := range m {
		values[q] = float64(n) / float64(m) * lambda[m-1-q]
	}
	return approx, values
}

// TestApproximationAgainstBatch: at every number of landmarks the incremental approximation
// equals a batch Nyström approximation with the same landmarks, and the error norms
// equal a direct computation.
func TestApproximationAgainstBatch(t *testing.T) {
	for _, set := range []string{"yeast", "magic"} {
		x := firstRows(t, set, 240)
		k := rbfMedian(t, x)
		ny, err := NewApproximation(k, x, ApproximationOptions{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		full := kernel.Matrix(k, x)
		worstK, worstV, worstE := 0.0, 0.0, 0.0
		for m := 1; m <= 120; m++ {
			if err := ny.Add(); err != nil {
				t.Fatalf("%s landmark %d: %v", set, m, err)
			}
			want, wantValues := batchApproximation(t, k, x, ny.Landmarks())
			// The approximation itself, from the incremental eigenpairs.
			var v mat.Dense
			ny.VectorsTo(&v)
			got := mat.NewSymDense(240, nil)
			values := ny.Values(nil)
			vl := mat.DenseCopyOf(&v)
			for j, l := range values {
				col := vl.ColView(j).(*mat.VecDense)
				col.ScaleVec(l, col)
			}
			var prod mat.Dense
			prod.Mul(vl, v.T())
			for i := range 240 {
				for j := i; j < 240; j++ {
					got.SetSym(i, j, prod.At(i, j))
				}
			}
			var diff mat.Dense
			diff.Sub(got, want)
			ek := mat.Norm(&diff, 2) / mat.Norm(full, 2)
			ev := maxRelDiff(values, wantValues, wantValues[0])
			worstK, worstV = math.Max(worstK, ek), math.Max(worstV, ev)
			if ek > 1e-10 || ev > 1e-10 {
				t.Fatalf("%s m = %d: approximation off by %.3g, eigenvalues by %.3g", set, m, ek, ev)
			}
			if m%30 == 0 || m < 3 {
				e, err := ny.Errors()
				if err != nil {
					t.Fatal(err)
				}
				var err2 mat.Dense
				err2.Sub(full, want)
				sym := mat.NewSymDense(240, nil)
				for i := range 240 {
					for j := i; j < 240; j++ {
						sym.SetSym(i, j, err2.At(i, j))
					}
				}
				lam, _ := native.EigenSym(nil, nil, sym)
				var spec, tr float64
				for _, l := range lam {
					spec = math.Max(spec, math.Abs(l))
					tr += math.Abs(l)
				}
				scale := mat.Norm(full, 2)
				for _, c := range [][2]float64{{e.Frobenius, mat.Norm(&err2, 2)}, {e.Spectral, spec}, {e.Trace, tr}} {
					worstE = math.Max(worstE, math.Abs(c[0]-c[1])/scale)
					if math.Abs(c[0]-c[1]) > 1e-10*scale {
						t.Errorf("%s m = %d: error norms %+v, direct F=%g S=%g T=%g", set, m, e, mat.Norm(&err2, 2), spec, tr)
						break
					}
				}
			}
		}
		t.Logf("%s: m = 1…120 of n = 240: K̃ within %.2e·‖K‖, eigenvalues within %.2e, error norms within %.2e·‖K‖",
			set, worstK, worstV, worstE)
	}
}

// TestApproximationTransform: for data points the projection is the eigenvector coordinate
// times √λ (training-score convention), for new points the Nyström extension.
func TestApproximationTransform(t *testing.T) {
	x := firstRows(t, "yeast", 200)
	k := rbfMedian(t, x)
	order := make([]int, 200)
	for i := range order {
		order[i] = (i * 37) % 200
	}
	ny, err := NewApproximation(k, x, ApproximationOptions{Order: order})
	if err != nil {
		t.Fatal(err)
	}
	if err := ny.Grow(50); err != nil {
		t.Fatal(err)
	}
	const comps = 5
	var got, v mat.Dense
	if err := ny.Transform(&got, x, comps); err != nil {
		t.Fatal(err)
	}
	ny.VectorsTo(&v)
	values := ny.Values(nil)
	worst := 0.0
	for i := range 200 {
		for j := range comps {
			worst = math.Max(worst, math.Abs(got.At(i, j)-v.At(i, j)*math.Sqrt(values[j])))
		}
	}
	if worst > 1e-10 {
		t.Errorf("data-point projections differ from U·Λ^½ by %.3g", worst)
	}
	for i, l := range ny.Landmarks() {
		if l != order[i] {
			t.Fatalf("landmark %d is %d, want %d", i, l, order[i])
		}
	}
}
