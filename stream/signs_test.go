package stream

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/features"
)

// TestSignsRNCA: RNCA fitted a point at a time and in one batch gives the scores of an
// independent oracle — gonum's pure-Go Dsyev of the same (centred) ZᵀZ, called
// directly, with the sign convention written out here — signs included and with no
// alignment in the test, on whichever backend the build has.
func TestSignsRNCA(t *testing.T) {
	const n, k = 300, 4
	X, sigma := standardised(t, data.Magic().X, n)
	for _, centred := range []bool{false, true} {
		opts := RNCAOptions{Features: 64, Sigma: sigma, Seed: 2, Centred: centred, Form: features.RandomPhase}
		one, _ := NewRNCA(10, opts)
		batch, _ := NewRNCA(10, opts)
		for i := range n {
			if err := one.Add(X.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := batch.AddBatch(X); err != nil {
			t.Fatal(err)
		}
		var Z mat.Dense
		if err := one.Map().Transform(&Z, X); err != nil {
			t.Fatal(err)
		}
		const D = 64
		if centred {
			for j := range D {
				m := mat.Sum(Z.ColView(j)) / n
				for i := range n {
					Z.Set(i, j, Z.At(i, j)-m)
				}
			}
		}
		var ztz mat.Dense
		ztz.Mul(Z.T(), &Z)
		a := ztz.RawMatrix().Data
		w := make([]float64, D)
		work := make([]float64, 1)
		var impl gonum.Implementation
		impl.Dsyev(lapack.EVCompute, blas.Upper, D, a, D, w, work, -1)
		work = make([]float64, int(work[0]))
		if !impl.Dsyev(lapack.EVCompute, blas.Upper, D, a, D, w, work, len(work)) {
			t.Fatal("Dsyev did not converge")
		}
		gap := math.Inf(1)
		V := mat.NewDense(D, k, nil)
		for q := range k {
			j := D - 1 - q
			gap = math.Min(gap, (w[j]-w[j-1])/w[D-1])
			big, s := 0.0, 1.0
			for i := range D {
				big = math.Max(big, math.Abs(a[i*D+j]))
			}
			for i := range D {
				if math.Abs(a[i*D+j]) >= (1-1e-6)*big {
					s = math.Copysign(1, a[i*D+j])
					break
				}
			}
			for i := range D {
				V.Set(i, q, s*a[i*D+j])
			}
		}
		// Three eigensolvers of the same 64×64 matrix (accumulated in two orders) agree
		// on each eigenvector to about D·ε·λ₁/gap; with the relative gap at least 1e-3
		// that is below 1e-11, and 1e-9 of the largest score is far below a flipped
		// sign, an error of twice the score.
		if gap < 1e-3 {
			t.Fatalf("centred=%v: the top %d components are not separated (relative gap %.3g)", centred, k, gap)
		}
		var want mat.Dense
		want.Mul(&Z, V)
		scale := mat.Norm(&want, math.Inf(1))
		for _, c := range []struct {
			name string
			r    *RNCA
		}{{"a point at a time", one}, {"batch", batch}} {
			var got mat.Dense
			if err := c.r.Transform(&got, X, k); err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i := range n {
				for j := range k {
					worst = math.Max(worst, math.Abs(got.At(i, j)-want.At(i, j)))
				}
			}
			t.Logf("centred=%v, %s: largest difference %.3g (scale %.3g, gap %.3g)", centred, c.name, worst, scale, gap)
			if !(worst <= 1e-9*scale) {
				t.Errorf("centred=%v, %s: scores differ from the oracle's by %.3g", centred, c.name, worst)
			}
		}
	}
}
