package update

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
)

// TestBorderLostOrthogonality extends a V orthonormal only to δ — as a RemoveKeepRank
// leaves it — with a border whose part outside span(V) is just above Border's threshold of
// 64ε times the scale. Gram–Schmidt against such a V leaves Δ^j·p in span(V) after j
// passes (Δ = VᵀV − I); with two fixed passes the new direction q overlapped V by
// ‖Δ‖²‖p‖/β, up to 4.7e-7 here, 3e4 times V's own loss. Passes until one does not
// cancel (Thin.reorthogonalize) keep the new vectors within what they inherit
// (inherited: (1+√2)·k·max|Δ| at most, for ‖Vᵀq‖ ≤ √2·‖Δ‖₂) plus rounding.
func TestBorderLostOrthogonality(t *testing.T) {
	const n, k = 20, 7
	worst := 0.0 // the largest ratio of the loss to its bound
	defer func() { t.Logf("worst loss: %.2g of the bound", worst) }()
	for _, delta := range []float64{0, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9} {
		for _, betaRel := range []float64{0, 70, 100, 1000, 1e6, 1e12} {
			rng := rand.New(rand.NewPCG(1, 2))
			u := orthonormal(n, k+1, false, rng)
			w := mat.Col(nil, k, u) // a unit vector orthogonal to the first k columns
			exact := mat.DenseCopyOf(u.Slice(0, n, 0, k))
			v := mat.DenseCopyOf(exact)
			for i := range n {
				for j := range k {
					v.Set(i, j, v.At(i, j)+delta*rng.NormFloat64()/math.Sqrt(n))
				}
			}
			values := []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1}
			var th Thin // exact: every pair kept, as FuzzThin at rank 0
			if err := th.SetEigen(values, v); err != nil {
				t.Fatal(err)
			}
			p := make([]float64, k)
			for i := range p {
				p[i] = rng.NormFloat64() / 3
			}
			var bv mat.VecDense // in the span of the V given, plus β along w
			bv.MulVec(v, mat.NewVecDense(k, p))
			b := bv.RawVector().Data
			for i := range b {
				b[i] += betaRel * eps * w[i]
			}
			bound := inherited(&th, nil) + 64*float64(n+7)*eps // the tolerance of FuzzThin's steps
			if err := th.Border(vd(b), nil, 1, 0.5); err != nil {
				t.Fatal(err)
			}
			var nv mat.Dense
			th.VectorsTo(&nv)
			o := testmat.Orthogonality(&nv)
			worst = math.Max(worst, o/bound)
			if !(o <= bound) {
				t.Errorf("δ = %g, β = %gε: orthogonality %.3g after Border > %.3g", delta, betaRel, o, bound)
			}
		}
	}
}
