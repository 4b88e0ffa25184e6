package batch

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// TestLinear, on 20 Yeast points: with the linear kernel, kernel PCA is PCA. The centred kernel matrix is
// X̄X̄ᵀ (X̄ the centred points), whose non-zero eigenvalues are the squared singular
// values of X̄ and whose eigenvectors are its left singular vectors.
func TestLinear(t *testing.T) {
	const n, d = 20, 8
	X := mat.DenseCopyOf(data.Yeast().X.Slice(0, n, 0, d))
	vals, u, err := KPCA(kernel.Linear{}, X)
	if err != nil {
		t.Fatal(err)
	}
	xc := mat.DenseCopyOf(X)
	for j := range d {
		col := mat.Col(nil, j, xc)
		var mean float64
		for _, v := range col {
			mean += v / n
		}
		for i := range n {
			xc.Set(i, j, col[i]-mean)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	sv := svd.Values(nil)
	// Rounding: the eigensolver is backward stable, so each eigenvalue is exact to a few
	// ε·‖K'‖ (‖K'‖ = σ₁²); 1e-12·σ₁² leaves a wide margin on 20×20. The eight non-zero
	// eigenvalues are well separated here, so the vectors are accurate too.
	tol := 1e-12 * sv[0] * sv[0]
	for j := range n {
		want := 0.0
		if j < d {
			want = sv[j] * sv[j]
		}
		if math.Abs(vals[j]-want) > tol {
			t.Errorf("λ%d = %g, want %g", j+1, vals[j], want)
		}
		if j > 0 && vals[j] > vals[j-1] {
			t.Errorf("values not descending at %d: %g > %g", j, vals[j], vals[j-1])
		}
	}
	if o := testmat.Orthogonality(u); o > 1e-13 {
		t.Errorf("‖UᵀU − I‖ = %g", o)
	}
	K := kernel.Centre(kernel.Matrix(kernel.Linear{}, X))
	if r := testmat.Residual(K, vals, u); r > 1e-13 {
		t.Errorf("residual ‖K'U − UΛ‖/‖K'‖ = %g", r)
	}
}
