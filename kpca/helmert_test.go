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

// TestHelmertCongruence: M = QᵀKQ by rows and strips, in K's storage, is, bit for bit,
// helmertT applied to the full rows of K and then to the columns of the result a vector
// at a time (the definition, docs/design.md, "Helmert coordinates"), in both of its
// triangles, for orders across the 64-wide tiles and 128-wide strips, and on the
// goroutines of orders from 256; and M's spectrum is that of the centred CKC without its
// zero, to rounding.
func TestHelmertCongruence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, m := range []int{2, 3, 64, 65, 129, 200, 256, 300} {
		K := mat.NewSymDense(m, nil)
		for i := range m {
			for j := i; j < m; j++ {
				K.SetSym(i, j, rng.NormFloat64())
			}
		}
		// The storage worked in: its lower triangle holds other numbers, which
		// wholeKernel replaces by the upper's.
		work := mat.NewSymDense(m, append([]float64(nil), K.RawSymmetric().Data...))
		raw := work.RawSymmetric()
		for i := range m {
			for j := range i {
				raw.Data[i*raw.Stride+j] = math.NaN()
			}
		}
		alpha := helmertAlpha(nil, m+1)
		got := helmertCongruence(wholeKernel(work), alpha)
		if m > 2 && &got.RawSymmetric().Data[0] != &raw.Data[0] {
			t.Fatalf("m = %d: M is not in K's storage", m)
		}

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
			// M[i][j] for i ≥ j is out[i], in both triangles: the upper, which M's
			// readers see, and the lower, which krylovTop's products may read.
			gr := got.RawSymmetric()
			for i := j; i < n; i++ {
				for _, g := range []float64{gr.Data[j*gr.Stride+i], gr.Data[i*gr.Stride+j]} {
					if math.Float64bits(g) != math.Float64bits(out[i]) {
						t.Fatalf("m = %d: M[%d][%d] = %v, want %v bit for bit", m, i, j, g, out[i])
					}
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

// TestHelmertColumns: V = Q·W by rows and strips of columns, on the goroutines from 256
// points, is bit for bit helmert applied to each column of W, for sizes across the
// 128-wide strips.
func TestHelmertColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	for _, m := range []int{2, 3, 255, 300} {
		for _, k := range []int{1, 128, 129, 300} {
			W := mat.NewDense(m-1, k, nil)
			for i := range m - 1 {
				for c := range k {
					W.Set(i, c, rng.NormFloat64())
				}
			}
			alpha := helmertAlpha(nil, m)
			V := mat.NewDense(m, k, nil)
			helmertColumns(V.RawMatrix(), W.RawMatrix(), alpha)
			col, want := make([]float64, m-1), make([]float64, m)
			for c := range k {
				mat.Col(col, c, W)
				helmert(want, col, alpha)
				for i, x := range want {
					if g := V.At(i, c); math.Float64bits(g) != math.Float64bits(x) {
						t.Fatalf("m = %d, k = %d: V[%d][%d] = %v, want %v bit for bit", m, k, i, c, g, x)
					}
				}
			}
		}
	}
}

// helmert sets dst = Qₘw for w of length m−1 (dst of length m), a vector at a time:
// with the suffix sums tᵢ = Σ_{j>i} αⱼwⱼ (w indexed from 1), dstᵢ = tᵢ − i·αᵢ·wᵢ and
// dst₀ = t₀. It is the definition that helmertColumns computes by rows, and the tests'
// oracle of it.
func helmert(dst, w, alpha []float64) {
	m := len(dst)
	var t float64
	for i := m - 1; i >= 1; i-- {
		aw := alpha[i] * w[i-1]
		dst[i] = t - float64(i)*aw
		t += aw
	}
	if m > 0 {
		dst[0] = t
	}
}
