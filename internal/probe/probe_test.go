package probe

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
)

// TestOrthogonality: the probe is at rounding level for orthonormal columns (a QR
// factor: 1e-14 is far above the few ε of two gemvs), large for columns that are not
// (column 0 scaled by 1.001 moves it by 2e-3·|x₀|/‖x‖ = 1.2e-3 for this x), and 1 for
// no rows; it leaves V·x and VᵀV·x where it says, and Fill gives the same x every time.
func TestOrthogonality(t *testing.T) {
	const n, k = 30, 7
	rng := rand.New(rand.NewPCG(3, 4))
	a := synth.Normal(n, k, rng)
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	v := mat.DenseCopyOf(q.Slice(0, n, 0, k))
	x, again := make([]float64, k), make([]float64, k)
	xx := Fill(x, Seed)
	if Fill(again, Seed) != xx || !mat.Equal(mat.NewVecDense(k, x), mat.NewVecDense(k, again)) {
		t.Fatal("Fill is not deterministic")
	}
	var norm float64
	for _, e := range x {
		if e < -0.5 || e >= 0.5 {
			t.Fatalf("entry %v outside [−½, ½)", e)
		}
		norm += e * e
	}
	if math.Abs(norm-xx) > 1e-15*norm {
		t.Errorf("Fill returned %v, ‖x‖² = %v", xx, norm)
	}
	y, r := make([]float64, n), make([]float64, k)
	if dev := Orthogonality(v.RawMatrix(), x, xx, y, r); dev > 1e-14 {
		t.Errorf("orthonormal columns: %.3g", dev)
	}
	var vx mat.VecDense
	vx.MulVec(v, mat.NewVecDense(k, x))
	if !mat.EqualApprox(&vx, mat.NewVecDense(n, y), 1e-14) || !mat.EqualApprox(mat.NewVecDense(k, r), mat.NewVecDense(k, x), 1e-14) {
		t.Error("y is not V·x, or r is not VᵀV·x = x")
	}
	col := v.ColView(0).(*mat.VecDense)
	col.ScaleVec(1.001, col)
	if dev := Orthogonality(v.RawMatrix(), x, xx, y, r); dev < 1e-3 {
		t.Errorf("a column of norm 1.001: %.3g", dev)
	}
	if dev := Orthogonality(blas64.General{Cols: k}, x, xx, nil, r); dev != 1 {
		t.Errorf("no rows: %v, want 1", dev)
	}
}
