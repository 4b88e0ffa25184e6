package nystrom

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// elementFeatures is the element path of the model's feature map, as the model computed
// it before kernel blocks: kernel.Column per point (bit for bit Eval), then
// ψ = Fᵀk − c by plain loops. It returns ψ for the rows of X (n×p) and a (n×p), where
// a[i][j] = Σ_l |F_lj|·size_l + |c_j| (testmat.KernelValueSize) bounds |ψ_ij| and is the size
// against which its rounding is measured.
func elementFeatures(m *Model, X *mat.Dense) (psi, a *mat.Dense) {
	n, _ := X.Dims()
	r, p := m.r, m.p
	col, size := make([]float64, r), make([]float64, r)
	psi, a = mat.NewDense(n, p, nil), mat.NewDense(n, p, nil)
	for i := range n {
		x := X.RawRowView(i)
		kernel.Column(col, m.kern, m.land, x)
		for l := range r {
			size[l] = testmat.KernelValueSize(m.kern, x, m.land.RawRowView(l), col[l])
		}
		for j := range p {
			var s, t float64
			for l := range r {
				s += m.f[l*p+j] * col[l]
				t += math.Abs(m.f[l*p+j]) * size[l]
			}
			psi.Set(i, j, s-m.shift[j])
			a.Set(i, j, t+math.Abs(m.shift[j]))
		}
	}
	return psi, a
}

// blockCases returns the data of TestTransformBlocks and TestAddBatchBlocks, as kpca's
// TestTransformBlocks: 120 rows of Yeast (d = 8) and the sets of testmat.BlockSets,
// with testmat.BlockKernels for their median distance med.
func blockCases(t *testing.T) (sets map[string]*mat.Dense, kernels []kernel.Kernel, med float64) {
	base := points(t, "yeast", 120, 5)
	med = rbfMedian(t, base).Sigma
	return testmat.BlockSets("yeast", base), testmat.BlockKernels(med), med
}

// blockDeltas are the distances, relative to a point's norm, of the copies of the
// points that TestTransformBlocks and TestAddBatchBlocks transform and add
// (testmat.NearPoints, near-duplicates of the landmarks among them included).
var blockDeltas = []float64{1e-8, 1e-6, 1e-4, 1e-2, 1, 10, 1e3}

// TestTransformBlocks compares Transform (kernel blocks, kernel.Cross, and the map
// folded into the directions, G = F·V), of all the points at once and a few at a time,
// with the element path (kernel.Column per point, the features and scores by plain loops) on
// the data points, copies at distances from 1e-8 to 1e3 of their norm, one-ulp
// near-duplicates (of the 30 landmarks among them) and far points, for RBF, polynomial
// and linear kernels (blockCases).
//
// Tolerance. By docs/design.md, "Kernel blocks", a block's RBF value is within
// (τ + 4ε)·max(1, e)·v of the true one (τ = 1e-13) and Eval's within (d + 3)·ε·max(1, e)·v,
// so the two within (τ + (d + 7)·ε)·size (testmat.KernelValueSize; plus the subnormal floor); a
// polynomial or linear value within 2(d + 4)·ε·size of Eval's. With d = 8 that is at
// most 1.02e-13·size. The features are sums of r = 30 terms F_lj·k_l in another order
// (a dgemm against a loop, 2r·ε = 6.7e-15 of Σ|F_lj|·|k_l|), minus c and φ̄ (4ε each
// path), and a score sums p ≤ 30 of them times v_jq (another 2p·ε); Transform's G = F·V
// and (c + φ̄)ᵀV sum p terms and its score r, the same orders. So score q of x agrees
// within about 1.2e-13·S_q, S_q = Σ_j |v_jq|·(Σ_l |F_lj|·size_l + |c_j| + |φ̄_j|); the
// test allows 1e-12·S_q, eight times that, and far below any wrong entry, which moves a
// score by a fraction of S_q.
func TestTransformBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 14))
	sets, kernels, med := blockCases(t)
	for name, x := range sets {
		for _, k := range kernels {
			m := fit(t, k, rows(x, 0, 30), x, Options{})
			X := testmat.NearPoints(rng, x, blockDeltas, 3*med)
			comps := min(6, m.components())
			var got mat.Dense
			if err := m.Transform(&got, X, comps); err != nil {
				t.Fatalf("%s %v: %v", name, k, err)
			}
			// Calls of fewer rows than components: the same scores to rounding.
			n, _ := X.Dims()
			few := mat.NewDense(n, comps, nil)
			for lo := 0; lo < n; lo += comps - 1 {
				hi := min(lo+comps-1, n)
				if err := m.Transform(few.Slice(lo, hi, 0, comps).(*mat.Dense), rows(X, lo, hi), comps); err != nil {
					t.Fatalf("%s %v: %v", name, k, err)
				}
			}
			psi, a := elementFeatures(m, X)
			p := m.p
			for i := range n {
				for q := range comps {
					var want, scale float64
					for j := range p {
						v := m.vecs[j*p+q]
						want += (psi.At(i, j) - m.mean[j]) * v
						scale += math.Abs(v) * (a.At(i, j) + math.Abs(m.mean[j]))
					}
					for path, got := range map[string]*mat.Dense{"all rows": &got, "a few rows a call": few} {
						if d := math.Abs(got.At(i, q) - want); !(d <= 1e-12*scale) {
							t.Fatalf("%s %v point %d component %d, %s: %v, element path %v (|Δ| = %.3g, S = %.3g)",
								name, k, i, q, path, got.At(i, q), want, d, scale)
						}
					}
				}
			}
			// A matrix that is not a *mat.Dense goes through a copy of its rows: the same
			// blocks, the same values.
			var viaT mat.Dense
			if err := m.Transform(&viaT, mat.DenseCopyOf(X.T()).T(), comps); err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(&viaT, &got) {
				t.Errorf("%s %v: a transposed view gives other scores", name, k)
			}
		}
	}
}

// TestAddBatchBlocks compares the sums AddBatch accumulates through kernel blocks with
// sums of the element path's features (elementFeatures) over the points of
// TestTransformBlocks: s_j = Σψ_ij and S_jk = Σψ_ij·ψ_ik.
//
// Tolerance. Each ψ_ij is within about 1.1e-13·a_ij of the element path's (the bound of
// TestTransformBlocks without the scores' sum), |ψ_ij| ≤ a_ij, so a term ψ_ij·ψ_ik moves
// by at most 2.2e-13·a_ij·a_ik + ε·|ψ_ij·ψ_ik|. AddBatch sums 64 terms plainly, then
// with compensation (64ε = 7.1e-15 of Σ|terms|); the reference sums plainly over
// n ≤ 1300 points (1.5e-13). The test allows 1e-12 of Σ_i a_ij (for s) and of
// Σ_i 2·a_ij·a_ik (for S), over twice the sum of these.
func TestAddBatchBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	sets, kernels, med := blockCases(t)
	for name, x := range sets {
		for _, k := range kernels {
			m, err := New(k, rows(x, 0, 30), Options{})
			if err != nil {
				t.Fatal(err)
			}
			X := testmat.NearPoints(rng, x, blockDeltas, 3*med)
			if err := m.AddBatch(X); err != nil {
				t.Fatalf("%s %v: %v", name, k, err)
			}
			psi, a := elementFeatures(m, X)
			n, p := psi.Dims()
			for j := range p {
				var want, scale float64
				for i := range n {
					want += psi.At(i, j)
					scale += a.At(i, j)
				}
				if got := m.sum.hi[j] + m.sum.lo[j]; !(math.Abs(got-want) <= 1e-12*scale) {
					t.Fatalf("%s %v: s[%d] = %v, element path %v (scale %.3g)", name, k, j, got, want, scale)
				}
				for l := j; l < p; l++ {
					var want, scale float64
					for i := range n {
						want += psi.At(i, j) * psi.At(i, l)
						scale += 2 * a.At(i, j) * a.At(i, l)
					}
					if got := m.sq.at(j, l); !(math.Abs(got-want) <= 1e-12*scale) {
						t.Fatalf("%s %v: S[%d][%d] = %v, element path %v (scale %.3g)", name, k, j, l, got, want, scale)
					}
				}
			}
		}
	}
}

// TestBlocksNonFinite: a point whose polynomial kernel value overflows is an
// ErrNonFinite of AddBatch, which leaves the model unchanged, of Transform, which leaves
// dst unchanged, and of Map, whichever block it falls in.
func TestBlocksNonFinite(t *testing.T) {
	X := points(t, "yeast", 200, 6)
	m := fit(t, kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, rows(X, 0, 20), rows(X, 0, 100), Options{})
	before := wiretest.Marshal(t, m)
	for _, at := range []int{0, 70, 99} {
		Y := mat.DenseCopyOf(rows(X, 100, 200))
		for l := range 8 {
			Y.Set(at, l, 1e110)
		}
		if err := m.AddBatch(Y); !errors.Is(err, ErrNonFinite) {
			t.Errorf("AddBatch with a huge point %d: %v", at, err)
		}
		after := wiretest.Marshal(t, m)
		if string(after) != string(before) {
			t.Errorf("AddBatch with a huge point %d changed the model", at)
		}
		dst := mat.NewDense(100, 2, nil)
		dst.Set(3, 1, 7)
		if err := m.Transform(dst, Y, 2); !errors.Is(err, ErrNonFinite) || dst.At(3, 1) != 7 || dst.At(0, 0) != 0 {
			t.Errorf("Transform with a huge point %d: %v, or dst changed", at, err)
		}
		if _, err := m.Map(nil, Y.RawRowView(at)); !errors.Is(err, ErrNonFinite) {
			t.Errorf("Map of a huge point: %v", err)
		}
	}
}
