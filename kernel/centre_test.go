package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCentre(t *testing.T) {
	// Against the definition CKC, formed with explicit matrix products.
	rng := rand.New(rand.NewPCG(5, 6))
	n := 7
	X := mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 3 {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	K := Matrix(RBF{Sigma: 1.3}, X)
	C := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			C.Set(i, j, -1/float64(n))
		}
		C.Set(i, i, 1-1/float64(n))
	}
	var ck, want mat.Dense
	ck.Mul(C, K)
	want.Mul(&ck, C)
	got := Centre(K)
	for i := range n {
		var rowSum float64
		for j := range n {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > 1e-14 {
				t.Fatalf("K'[%d,%d] = %v, CKC %v", i, j, got.At(i, j), want.At(i, j))
			}
			rowSum += got.At(i, j)
		}
		if math.Abs(rowSum) > 1e-13 {
			t.Fatalf("row %d of K' sums to %v, want 0", i, rowSum)
		}
	}
	for _, empty := range []mat.Symmetric{&mat.SymDense{}, nil, (*mat.SymDense)(nil)} {
		if Centre(empty).SymmetricDim() != 0 {
			t.Fatalf("empty K (%#v): non-empty result", empty)
		}
	}
}
