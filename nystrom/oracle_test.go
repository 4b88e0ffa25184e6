package nystrom

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// oracle is the exact kernel PCA of the Nyström-approximated kernel matrix
// K̃ = K_nL·K_LL⁺·K_Ln of the rows of X, formed explicitly (n×n) with gonum's mat:
// the pseudo-inverse over the same pairs of K_LL as the model keeps, the centred matrix
// CK̃C (or K̃ itself, uncentred), its eigendecomposition, and new points projected by
// the kernel trick, uⱼᵀ(k̃ₓ − K̃1/n)/√λⱼ with k̃ₓ = K_nL·K_LL⁺·k(L, x) (uⱼᵀk̃ₓ/√λⱼ
// uncentred). It shares nothing with the model but the kernel: no feature map, no sums.
type oracle struct {
	k       kernel.Kernel
	L       *mat.Dense
	p       int        // pairs of K_LL kept
	pinv    *mat.Dense // K_LL⁺, r×r
	knl     *mat.Dense // K_nL
	rowMean []float64  // K̃·1/n
	vals    []float64  // eigenvalues of CK̃C, descending
	U       *mat.Dense // their unit eigenvectors
}

func newOracle(t *testing.T, k kernel.Kernel, L, X *mat.Dense, cut float64, centred bool) *oracle {
	t.Helper()
	r, _ := L.Dims()
	n, _ := X.Dims()
	sig, W := testmat.Eigen(t, kernel.Matrix(k, L))
	o := &oracle{k: k, L: L, pinv: mat.NewDense(r, r, nil), knl: mat.NewDense(n, r, nil)}
	for j, s := range sig {
		if s <= cut*sig[0] {
			continue
		}
		o.p++
		w := mat.Col(nil, j, W)
		for a := range r {
			for b := range r {
				o.pinv.Set(a, b, o.pinv.At(a, b)+w[a]*w[b]/s)
			}
		}
	}
	for i := range n {
		for j := range r {
			o.knl.Set(i, j, k.Eval(X.RawRowView(i), L.RawRowView(j)))
		}
	}
	var tmp, kt mat.Dense
	tmp.Mul(o.knl, o.pinv)
	kt.Mul(&tmp, o.knl.T())
	sym := mat.NewSymDense(n, nil)
	o.rowMean = make([]float64, n)
	for i := range n {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (kt.At(i, j)+kt.At(j, i))/2)
		}
	}
	var a mat.Symmetric = sym
	if centred {
		for i := range n {
			for j := range n {
				o.rowMean[i] += sym.At(i, j) / float64(n)
			}
		}
		a = kernel.Centre(sym)
	}
	o.vals, o.U = testmat.Eigen(t, a)
	return o
}

// scores returns the oracle's scores of the rows of Y on its top k components.
func (o *oracle) scores(Y *mat.Dense, k int) *mat.Dense {
	ny, _ := Y.Dims()
	r, _ := o.L.Dims()
	n := len(o.vals)
	out := mat.NewDense(ny, k, nil)
	kl := mat.NewVecDense(r, nil)
	var a, kt mat.VecDense
	for i := range ny {
		for j := range r {
			kl.SetVec(j, o.k.Eval(Y.RawRowView(i), o.L.RawRowView(j)))
		}
		a.MulVec(o.pinv, kl)
		kt.MulVec(o.knl, &a)
		for q := range k {
			var s float64
			for l := range n {
				s += o.U.At(l, q) * (kt.AtVec(l) - o.rowMean[l])
			}
			out.Set(i, q, s/math.Sqrt(o.vals[q]))
		}
	}
	return out
}

// separated returns the components j < limit whose eigenvalue is at least 1e-3·λ₁ and
// at least gap·λ₁ from its neighbours: those whose vectors (and so scores) are
// determined to rounding, within ‖E‖/gap of the exact ones (Davis–Kahan).
func separated(v []float64, limit int, gap float64) []int {
	var out []int
	for j := 0; j < min(limit, len(v)); j++ {
		if v[j] < 1e-3*v[0] || j > 0 && v[j-1]-v[j] < gap*v[0] || j+1 < len(v) && v[j]-v[j+1] < gap*v[0] {
			continue
		}
		out = append(out, j)
	}
	return out
}

// compareScores reports where got and want (columns cols) differ by more than
// tol·max|want| after matching each column's sign: the oracles fix signs by
// other vectors than the model (the Signs check of the conformance suite tests the
// model's own), so a column may differ by its sign alone.
func compareScores(t *testing.T, what string, got, want *mat.Dense, cols []int, tol float64) {
	t.Helper()
	n, _ := want.Dims()
	for _, q := range cols {
		var dot, scale float64
		for i := range n {
			dot += got.At(i, q) * want.At(i, q)
			scale = math.Max(scale, math.Abs(want.At(i, q)))
		}
		s := 1.0
		if dot < 0 {
			s = -1
		}
		var worst float64
		for i := range n {
			worst = math.Max(worst, math.Abs(s*got.At(i, q)-want.At(i, q)))
		}
		if !(worst <= tol*scale) {
			t.Errorf("%s: component %d: scores differ by %.3g of %.3g, tolerance %g", what, q, worst/scale, scale, tol)
		}
		t.Logf("%s: component %d: scores within %.3g relative", what, q, worst/scale)
	}
}

// TestOracle: Values, the training points' components and Transform of new points
// equal the exact kernel PCA of K̃ formed explicitly, centred and uncentred, for three
// kernels (one whose feature space, of dimension 66, is smaller than the landmarks: the
// tolerance must find its rank), landmarks among the points and not, added by AddBatch
// and by Add.
//
// Tolerances: the two routes compute the same spectrum by different products and
// eigensolvers, each backward stable, so eigenvalues agree to c·n·ε·λ₁ — about 1e-13·λ₁
// for n = 300, c ≈ 10 — when K_LL is well conditioned (RBF: measured 2.6e-13·λ₁,
// Laplacian 1.3e-15·λ₁), and 1e-11·λ₁ leaves a margin of 40 while any error of the
// method (a wrong centring, a missing pair) is of the order of the eigenvalues. The
// polynomial kernel's K_LL keeps pairs down to σ = 1.2e-7·σ₁, and the oracle's
// K_LL⁺ amplifies rounding by up to that condition number: measured 2.3e-12·λ₁, and
// 1e-9·λ₁ is the bound there. Vectors of components separated by 1e-2·λ₁ are within
// that error over the gap (1e-9, and 1e-7 for the polynomial kernel), and new points'
// scores, divided by √λⱼ ≥ √1e-3·√λ₁, within 100 times that again: 1e-7 (1e-5).
func TestOracle(t *testing.T) {
	magic := points(t, "magic", 360, 1)
	yeast := points(t, "yeast", 360, 2)
	for _, c := range []oracleCase{
		{"magic/rbf", magic, rbfMedian(t, magic), 40, true, 0, 1e-11},
		{"yeast/laplacian", yeast, kernel.Laplacian{Sigma: 4}, 30, false, 0, 1e-11},
		{"magic/polynomial", magic, kernel.Polynomial{Degree: 2, Gamma: 0.1, Coef0: 1}, 80, true, 66, 1e-9},
	} {
		for _, uncentred := range []bool{false, true} {
			name := c.name
			if uncentred {
				name += "/uncentred"
			}
			t.Run(name, func(t *testing.T) { c.run(t, Options{Uncentred: uncentred}) })
		}
	}
}

// oracleCase is a case of TestOracle: the model of 300 rows of X on r landmarks (among
// those rows if inData, other rows of X otherwise), against the oracle.
type oracleCase struct {
	name     string
	X        *mat.Dense
	k        kernel.Kernel
	r        int
	inData   bool
	features int     // the expected r' (0: r)
	tol      float64 // for eigenvalues, relative to λ₁
}

func (c oracleCase) run(t *testing.T, opts Options) {
	const n, test = 300, 20
	X, Y := rows(c.X, 0, n), rows(c.X, n, n+test)
	L := rows(c.X, n-c.r, n) // among the points
	if !c.inData {
		L = rows(c.X, n+test, n+test+c.r)
	}
	m := fit(t, c.k, L, X, opts)
	want := c.features
	if want == 0 {
		want = c.r
	}
	if m.Features() != want {
		t.Errorf("%d features, want %d", m.Features(), want)
	}
	o := newOracle(t, c.k, L, X, Options{}.cutoff(c.r), m.Centred())
	if o.p != m.Features() {
		t.Fatalf("the oracle keeps %d pairs, the model %d", o.p, m.Features())
	}
	vals := m.Values(nil)
	comps := min(m.Features(), n-1)
	if opts.Uncentred {
		comps = min(m.Features(), n)
	}
	if len(vals) != comps {
		t.Fatalf("%d values, want %d", len(vals), comps)
	}
	d := maxRelDiff(vals, o.vals, o.vals[0])
	if d > c.tol {
		t.Errorf("eigenvalues differ from the oracle's by %.3g·λ₁", d)
	}
	t.Logf("%d features, %d values; eigenvalues within %.3g·λ₁ of the oracle's", m.Features(), len(vals), d)
	var train mat.Dense
	if err := m.Transform(&train, X, 10); err != nil {
		t.Fatal(err)
	}
	// The training scores are the vectors uⱼ·√λⱼ: top-k subspaces by principal
	// angles, wherever λₖ − λₖ₊₁ ≥ 1e-2·λ₁.
	for k := 1; k <= 10; k++ {
		if o.vals[k-1]-o.vals[k] < 1e-2*o.vals[0] {
			continue
		}
		s := sine(train.Slice(0, n, 0, k), o.U.Slice(0, n, 0, k))
		if s > 100*c.tol {
			t.Errorf("top-%d subspace: sine %.3g from the oracle's", k, s)
		}
		t.Logf("top-%d subspace: sine %.3g", k, s)
	}
	cols := separated(vals, 10, 1e-2)
	if len(cols) < 2 {
		t.Fatalf("only %d separated components among %v", len(cols), vals[:10])
	}
	var got mat.Dense
	if err := m.Transform(&got, Y, 10); err != nil {
		t.Fatal(err)
	}
	compareScores(t, "new points", &got, o.scores(Y, 10), cols, 1e4*c.tol)

	// One point at a time: the same model to rounding.
	one, err := New(c.k, L, opts)
	if err != nil {
		t.Fatal(err)
	}
	testmat.AddRows(t, one, X, 0, n)
	if d := maxRelDiff(one.Values(nil), vals, vals[0]); d > 1e-12 {
		t.Errorf("Add and AddBatch: eigenvalues differ by %.3g·λ₁", d)
	}
}

// TestAllLandmarks: with every point a landmark, K̃ = K (up to the pairs below the
// tolerance, of norm at most r·2⁻⁵²·‖K‖), and the model is exact kernel PCA: its values
// and new points' scores equal batch kernel PCA's (exactKPCA) to rounding (the
// tolerances of TestOracle: every eigenvalue to 1e-11·λ₁, well-separated scores to
// 1e-7).
func TestAllLandmarks(t *testing.T) {
	for _, name := range []string{"yeast", "magic"} {
		t.Run(name, func(t *testing.T) {
			const n = 200
			all := points(t, name, n+20, 5)
			X, Y := rows(all, 0, n), rows(all, n, n+20)
			k := rbfMedian(t, X)
			m := fit(t, k, X, X, Options{})
			want, scores := exactKPCA(t, k, X)
			got := m.Values(nil)
			c := min(len(got), len(want))
			if c < n/2 {
				t.Fatalf("%d values (%d features), batch %d", len(got), m.Features(), len(want))
			}
			d := maxRelDiff(got[:c], want[:c], want[0])
			if d > 1e-11 {
				t.Errorf("eigenvalues differ from batch kernel PCA's by %.3g·λ₁", d)
			}
			t.Logf("%d features; %d eigenvalues within %.3g·λ₁ of batch kernel PCA's", m.Features(), c, d)
			cols := separated(want, 10, 1e-2)
			if len(cols) < 2 {
				t.Fatalf("only %d separated components among %v", len(cols), want[:10])
			}
			var a mat.Dense
			if err := m.Transform(&a, Y, 10); err != nil {
				t.Fatal(err)
			}
			compareScores(t, "new points", &a, scores(Y, 10), cols, 1e-7)
		})
	}
}

// exactKPCA is batch kernel PCA of the rows of X by gonum's EigenSym: the eigenvalues
// of the centred kernel matrix CKC, descending, and the scores of new points,
// uⱼᵀ(kₓ − K1/n)/√λⱼ (uⱼ ⊥ 1 spares the rest of kₓ's centring).
func exactKPCA(t *testing.T, k kernel.Kernel, X *mat.Dense) ([]float64, func(Y *mat.Dense, c int) *mat.Dense) {
	t.Helper()
	n, _ := X.Dims()
	K := kernel.Matrix(k, X)
	vals, U := testmat.Eigen(t, kernel.Centre(K))
	mean := make([]float64, n)
	for i := range n {
		for j := range n {
			mean[i] += K.At(i, j) / float64(n)
		}
	}
	return vals, func(Y *mat.Dense, c int) *mat.Dense {
		ny, _ := Y.Dims()
		out := mat.NewDense(ny, c, nil)
		kx := make([]float64, n)
		for i := range ny {
			kernel.Column(kx, k, X, Y.RawRowView(i))
			for q := range c {
				var s float64
				for l := range n {
					s += U.At(l, q) * (kx[l] - mean[l])
				}
				out.Set(i, q, s/math.Sqrt(vals[q]))
			}
		}
		return out
	}
}
