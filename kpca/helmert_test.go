package kpca

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// TestHelmertCongruence: M = QᵀKQ by rows and tiles is, bit for bit, helmertT applied to
// the full rows of K and then to the columns of the result a vector at a time (the
// definition, docs/design.md, "Helmert coordinates"), for orders across the 64-wide
// tiles; and M's spectrum is that of the centred CKC without its zero, to rounding.
func TestHelmertCongruence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, m := range []int{2, 3, 64, 65, 129, 200} {
		K := mat.NewSymDense(m, nil)
		for i := range m {
			for j := i; j < m; j++ {
				K.SetSym(i, j, rng.NormFloat64())
			}
		}
		// The lower triangle holds other numbers: only the upper may be read.
		raw := K.RawSymmetric()
		for i := range m {
			for j := range i {
				raw.Data[i*raw.Stride+j] = math.NaN()
			}
		}
		alpha := helmertAlpha(nil, m+1)
		got := helmertCongruence(raw, alpha)

		n := m - 1
		T := mat.NewDense(m, n, nil)
		row := make([]float64, m)
		for i := range m {
			for j := range m {
				row[j] = K.At(i, j)
			}
			helmertT(T.RawRowView(i), row, alpha)
		}
		col, out := make([]float64, m), make([]float64, n)
		for j := range n {
			mat.Col(col, j, T)
			helmertT(out, col, alpha)
			for i := j; i < n; i++ {
				if g := got.At(j, i); math.Float64bits(g) != math.Float64bits(out[i]) {
					t.Fatalf("m = %d: M[%d][%d] = %v, want %v bit for bit", m, j, i, g, out[i])
				}
			}
		}

		// The spectrum: CKC (kernel.Centre) has M's eigenvalues and a zero, for 1.
		fv, _ := testmat.Eigen(t, kernel.Centre(K))
		sv, _ := testmat.Eigen(t, got)
		scale := vec.MaxAbs(fv)
		zero := 0 // the smallest |λ| of CKC is the one M lacks
		for i, v := range fv {
			if math.Abs(v) < math.Abs(fv[zero]) {
				zero = i
			}
		}
		fv = append(fv[:zero], fv[zero+1:]...)
		for i := range sv {
			if d := math.Abs(sv[i] - fv[i]); d > 64*float64(m)*vec.Roundoff*scale {
				t.Errorf("m = %d: eigenvalue %d of M is %v, CKC's %v", m, i, sv[i], fv[i])
			}
		}
	}
}
