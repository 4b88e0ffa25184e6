package chinsuter

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/featurespace"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// toy returns the seed paper's 2-D toy: x ~ U[−1, 1], y = x² + N(0, 0.2²).
func toy(n int, seed uint64) *mat.Dense {
	return synth.Toy(n, rand.New(rand.NewPCG(seed, 7)))
}

// gaussian returns n points of N(0, I_d).
func gaussian(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 11))
	X := synth.Normal(n, d, rng)
	return X
}

// batch is the oracle: batch kernel PCA of the rows of X with gonum's EigenSym, the
// eigenvalues of the centred kernel matrix (descending) and its unit eigenvectors.
type batch struct {
	X      *mat.Dense
	values []float64
	u      *mat.Dense // n×n, columns in the order of values
}

func newBatch(t *testing.T, k kernel.Kernel, X *mat.Dense) batch {
	t.Helper()
	values, u := testmat.Eigen(t, kernel.Centre(kernel.Matrix(k, X)))
	return batch{X: X, values: values, u: u}
}

// coords returns explicit feature-space coordinates (package featurespace) of the
// model's top k axes and of batch kernel PCA's, Y_m = F·[0; α] and Y_b = F·[u/√λ; 0].
func coords(t *testing.T, md *Model, b batch, k int) (ym, yb *mat.Dense) {
	t.Helper()
	pts, alpha, _ := md.Expansions()
	p, err := featurespace.NewPair(md.kern, b.X, pts)
	if err != nil {
		t.Fatal(err)
	}
	n := b.X.RawMatrix().Rows
	cb := mat.NewDense(n, k, nil)
	for j := range k {
		s := 1 / math.Sqrt(b.values[j])
		for i := range n {
			cb.Set(i, j, b.u.At(i, j)*s)
		}
	}
	return p.A(alpha.Slice(0, pts.RawMatrix().Rows, 0, k)), p.X(cb)
}

// angles returns the sine of the largest principal angle between the span of the
// model's top k axes φ(A)α_j and batch kernel PCA's, Φ_c u_j/√λ_j: the largest singular
// value of (I − Q_bQ_bᵀ)Q_m, with Q the orthonormalised coordinates.
//
// For a compressed model (expansion points other than X) the joint eigendecomposition
// would be costly, and its angles are far above √ε: the cosines are then taken as the
// singular values of Q_bᵀQ_m = (u/√λ)ᵀK(X, A)α.
func angles(t *testing.T, md *Model, b batch, k int) float64 {
	t.Helper()
	if pts, _, _ := md.Expansions(); !mat.Equal(pts, b.X) {
		return gramAngles(t, md, b, k)
	}
	ym, yb := coords(t, md, b, k)
	sine, err := featurespace.Sine(ym, yb)
	if err != nil {
		t.Fatal(err)
	}
	return sine
}

// orthTop returns ‖YᵀY − I‖₂ for the coordinates Y of the model's first k axes: how far
// they are from orthonormal in feature space.
func orthTop(t *testing.T, md *Model, b batch, k int) float64 {
	t.Helper()
	if k == 0 {
		return 0
	}
	ym, _ := coords(t, md, b, k)
	return featurespace.Orthogonality(ym)
}

// snapshot captures the whole state of a model.
type snapshot struct {
	n, d          int
	trace         float64
	values        []float64
	pts, ka       []float64
	alpha, offset []float64
	nu            []float64
	stats         Stats
}

func snap(md *Model) snapshot {
	return snapshot{n: md.n, d: md.d, trace: md.trace, values: md.Values(nil),
		pts: append([]float64(nil), md.pts.a...), ka: append([]float64(nil), md.ka.a...),
		alpha: append([]float64(nil), md.alpha.a...), offset: append([]float64(nil), md.offset...),
		nu: append([]float64(nil), md.nu...), stats: md.stats}
}

func sameSnapshot(a, b snapshot) bool {
	eq := vec.SameBits
	return a.n == b.n && a.d == b.d && math.Float64bits(a.trace) == math.Float64bits(b.trace) &&
		eq(a.values, b.values) && eq(a.pts, b.pts) && eq(a.ka, b.ka) && eq(a.alpha, b.alpha) &&
		eq(a.offset, b.offset) && eq(a.nu, b.nu) && a.stats == b.stats
}

// gramAngles returns √(1 − cos²) of the smallest cosine between the top k axes, with the
// cosines from the kernel trick: the singular values of (u/√λ)ᵀK(X, A)α.
func gramAngles(t *testing.T, md *Model, b batch, k int) float64 {
	t.Helper()
	pts, alpha, _ := md.Expansions()
	n, N := b.X.RawMatrix().Rows, pts.RawMatrix().Rows
	kxa := mat.NewDense(n, N, nil)
	for i := range n {
		for j := range N {
			kxa.Set(i, j, md.kern.Eval(b.X.RawRowView(i), pts.RawRowView(j)))
		}
	}
	ab := mat.NewDense(n, k, nil)
	for j := range k {
		s := 1 / math.Sqrt(b.values[j])
		for i := range n {
			ab.Set(i, j, b.u.At(i, j)*s)
		}
	}
	var tmp, c mat.Dense
	tmp.Mul(kxa, alpha.Slice(0, N, 0, k))
	c.Mul(ab.T(), &tmp)
	var svd mat.SVD
	if !svd.Factorize(&c, mat.SVDNone) {
		t.Fatal("oracle: SVD failed")
	}
	worst := 0.0
	for _, v := range svd.Values(nil) {
		worst = math.Max(worst, math.Sqrt(math.Max(0, 1-v*v)))
	}
	return worst
}
