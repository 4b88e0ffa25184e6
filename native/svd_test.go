package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSVDLeft(t *testing.T) {
	Use()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {1, 5}, {5, 1}, {7, 9}, {9, 7}, {40, 41}, {60, 60}, {120, 30}} {
		m, n := sz[0], sz[1]
		k := min(m, n)
		A := mat.NewDense(m, n, nil)
		for i := range m {
			for j := range n {
				A.Set(i, j, rng.NormFloat64())
			}
		}
		a := append([]float64(nil), A.RawMatrix().Data...)
		s := make([]float64, k)
		u := make([]float64, m*k)
		if err := SVDLeft(m, n, a, n, s, u, k); err != nil {
			t.Fatal(err)
		}
		var ref mat.SVD
		if !ref.Factorize(A, mat.SVDNone) {
			t.Fatal("reference SVD failed")
		}
		want := ref.Values(nil)
		for j := range k {
			if math.Abs(s[j]-want[j]) > 1e-12*want[0] {
				t.Fatalf("%d×%d: σ_%d = %v, want %v", m, n, j, s[j], want[j])
			}
		}
		// U is orthonormal and ‖Aᵀu_j‖ = σ_j with A Aᵀ u_j = σ_j² u_j.
		U := mat.NewDense(m, k, u)
		var utu, atu mat.Dense
		utu.Mul(U.T(), U)
		atu.Mul(A.T(), U)
		for i := range k {
			for j := range k {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(utu.At(i, j)-want) > 1e-12 {
					t.Fatalf("%d×%d: UᵀU[%d,%d] = %v", m, n, i, j, utu.At(i, j))
				}
			}
			col := mat.Col(nil, i, &atu)
			if d := math.Abs(mat.Norm(mat.NewVecDense(n, col), 2) - s[i]); d > 1e-11*s[0] {
				t.Fatalf("%d×%d: ‖Aᵀu_%d‖ − σ = %v", m, n, i, d)
			}
		}
	}
	// Errors, nothing computed.
	if err := SVDLeft(2, 2, []float64{1, math.NaN(), 0, 1}, 2, make([]float64, 2), make([]float64, 4), 2); err == nil {
		t.Error("NaN accepted")
	}
	if err := SVDLeft(2, 2, []float64{1, 0, 0}, 2, make([]float64, 2), make([]float64, 4), 2); err == nil {
		t.Error("short a accepted")
	}
	if err := SVDLeft(0, 3, nil, 3, nil, nil, 1); err != nil {
		t.Errorf("empty: %v", err)
	}
}
