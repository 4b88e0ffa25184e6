package kpca

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// TestIndefinitePrecomputed checks what Values' and Transform's docs promise for a
// precomputed matrix that is not positive semi-definite: the exact model reports its
// negative eigenvalues as they are (equal to a batch eigendecomposition of C·K·C), and
// the components of those values score zero, while the positive ones score as the
// training scores do.
func TestIndefinitePrecomputed(t *testing.T) {
	const m = 40
	rng := rand.New(rand.NewPCG(91, 92))
	// K = G·D·Gᵀ with D holding three negative weights among the positive ones: a
	// symmetric matrix with both signs in its centred spectrum, by construction.
	G := mat.NewDense(m, 8, nil)
	for i := range m {
		for j := range 8 {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	D := mat.NewDiagDense(8, []float64{9, 7, 5, 3, 2, -1, -4, -6})
	var GD, K mat.Dense
	GD.Mul(G, D)
	K.Mul(&GD, G.T())
	md, err := Fit(kernel.Precomputed{}, &K, Options{Components: All})
	if err != nil {
		t.Fatal(err)
	}
	// The reference: the centred matrix's eigenvalues, descending, without the trivial
	// zero along 1 (Values' centred spectrum holds m−1).
	C := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			c := -1.0 / m
			if i == j {
				c += 1
			}
			C.Set(i, j, c)
		}
	}
	var CK, CKC mat.Dense
	CK.Mul(C, &K)
	CKC.Mul(&CK, C)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(m, CKC.RawMatrix().Data), false) {
		t.Fatal("reference eigendecomposition failed")
	}
	ref := eig.Values(nil) // ascending
	got := md.Values(nil)
	if len(got) != m-1 {
		t.Fatalf("Values: %d values, want %d", len(got), m-1)
	}
	scale := math.Max(-ref[0], ref[m-1])
	// Both sides are backward stable eigensolvers of the same matrix: each value is off
	// by at most a small multiple of m·ε·‖K‖ (one product rounding each side).
	tol := 64 * m * 0x1p-52 * scale
	// Drop the reference's value closest to zero: the trivial one along 1.
	trivial := 0
	for i := range ref {
		if math.Abs(ref[i]) < math.Abs(ref[trivial]) {
			trivial = i
		}
	}
	want := make([]float64, 0, m-1)
	for i := m - 1; i >= 0; i-- {
		if i != trivial {
			want = append(want, ref[i])
		}
	}
	negative := 0
	for j := range got {
		if math.Abs(got[j]-want[j]) > tol {
			t.Errorf("value %d: %.17g, batch %.17g", j, got[j], want[j])
		}
		if want[j] < -tol {
			negative++
		}
	}
	if negative != 3 {
		t.Fatalf("%d negative values beyond rounding in the reference, want the 3 of D", negative)
	}
	// The training points' kernel rows, projected: each component of a negative value
	// scores zero exactly, and the others equal the training scores. The positive
	// values here are the five of D, of order 10²·m, so uⱼᵀk'ₓ/√λⱼ and √λⱼ·uⱼ agree to
	// about m·ε·‖K‖/√λⱼ ≈ 1e-12·√‖K‖; 1e-9 leaves room for any backend's rounding.
	var scores mat.Dense
	if err := md.Transform(&scores, &K, m-1); err != nil {
		t.Fatal(err)
	}
	var train mat.Dense
	if err := md.Scores(&train, m-1); err != nil {
		t.Fatal(err)
	}
	for j := range m - 1 {
		for i := range m {
			s := scores.At(i, j)
			switch {
			case got[j] < -tol:
				if s != 0 {
					t.Fatalf("point %d, component %d of value %.3g: score %.3g, want 0", i, j, got[j], s)
				}
			case got[j] > tol && math.Abs(s-train.At(i, j)) > 1e-9*math.Sqrt(scale):
				t.Fatalf("point %d, component %d: Transform %.17g, Scores %.17g", i, j, s, train.At(i, j))
			}
		}
	}
}
