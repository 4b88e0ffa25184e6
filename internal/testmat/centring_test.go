package testmat

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
)

// TestCentring: the centred columns of the points themselves are the columns of CKC
// (kernel.Centre), and uncentred those of K.
func TestCentring(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	P := synth.Toy(30, rng)
	k := kernel.RBF{Sigma: 0.7}
	c := NewCentring(k, P)
	K := kernel.Matrix(k, P)
	CKC := kernel.Centre(K)
	col := make([]float64, 30)
	for i := range 30 {
		for _, centred := range []bool{false, true} {
			c.Column(col, P.RawRowView(i), centred)
			for j, v := range col {
				want := K.At(i, j)
				if centred {
					want = CKC.At(i, j)
				}
				if math.Abs(v-want) > 1e-14 {
					t.Fatalf("centred=%v: column %d, entry %d: %g, want %g", centred, i, j, v, want)
				}
			}
		}
	}
	// Scores with C = I and no scale are the columns themselves.
	I := mat.NewDiagDense(30, nil)
	for i := range 30 {
		I.SetDiag(i, 1)
	}
	s := c.Scores(P, I, 30, nil, true)
	if !mat.EqualApprox(s, CKC, 1e-14) {
		t.Error("Scores with the identity differ from CKC")
	}
}
