package chinsuter

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/featurespace"
	"github.com/ikpca/ikpca/kernel"
)

// ExactRow compares the exact Chin–Suter model with batch kernel PCA at one toy size.
type ExactRow struct {
	N int
	// Kept is the number of components the model holds; Batch the number of batch
	// eigenvalues above 1e-10·λ₁.
	Kept, Batch int
	// MaxEigenError is max |λ_j − λ_j,batch|/λ₁ over the components both hold.
	MaxEigenError float64
	// TopK is the largest k ≤ 10 with a gap λ_k − λ_{k+1} ≥ 1e-3·λ₁, Sine the sine of
	// the largest principal angle between the top-k subspaces and Orthogonality
	// ‖YᵀY − I‖₂ of the model's top-k axes, both in explicit feature coordinates.
	TopK                int
	Sine, Orthogonality float64
}

// ProjectionSeries holds the projections of the training points onto one kernel
// principal component, for batch kernel PCA and each incremental method (sign-aligned
// with batch), and their relative RMS difference from batch.
type ProjectionSeries struct {
	Component int
	X         []float64            // the points' first coordinate
	Batch     []float64            // batch scores
	Methods   map[string][]float64 // method → scores
	RelRMS    map[string]float64   // method → ‖s − s_batch‖/‖s_batch‖
}

// exactAccuracy compares the exact Chin–Suter model with batch kernel PCA of X, the
// subspaces in explicit feature coordinates (package featurespace).
func exactAccuracy(k kernel.Kernel, X *mat.Dense, m toyModels) (ExactRow, error) {
	got := m.exact.Values(nil)
	vals := m.batchValues
	row := ExactRow{N: X.RawMatrix().Rows, Kept: len(got)}
	for _, v := range vals {
		if v > 1e-10*vals[0] {
			row.Batch++
		}
	}
	for j := range min(len(got), row.Batch) {
		row.MaxEigenError = math.Max(row.MaxEigenError, math.Abs(got[j]-vals[j])/vals[0])
	}
	for j := 1; j <= min(10, len(got), len(vals)-1); j++ {
		if vals[j-1]-vals[j] >= 1e-3*vals[0] {
			row.TopK = j
		}
	}
	if row.TopK == 0 {
		return row, nil
	}
	pts, alpha, _ := m.exact.Expansions()
	p, err := featurespace.NewPair(k, X, pts)
	if err != nil {
		return row, err
	}
	ym := p.A(alpha.Slice(0, pts.RawMatrix().Rows, 0, row.TopK))
	row.Sine, err = featurespace.Sine(ym, p.X(scaledVectors(m.batchValues, m.batchU, row.TopK)))
	row.Orthogonality = featurespace.Orthogonality(ym)
	return row, err
}

// scaledVectors returns the first k batch eigenvectors, each divided by the square root
// of its eigenvalue: the coefficients of the unit principal axes as expansions over the
// points.
func scaledVectors(vals []float64, u *mat.Dense, k int) *mat.Dense {
	n, _ := u.Dims()
	ab := mat.NewDense(n, k, nil)
	for j := range k {
		s := 1 / math.Sqrt(vals[j])
		for i := range n {
			ab.Set(i, j, u.At(i, j)*s)
		}
	}
	return ab
}

// projections compares the scores of the training points on the first three
// components: batch u_j·√λ_j (the centred projections) with the Transform of the
// compressed Chin–Suter model and of KHA, each sign-aligned with batch. The models are
// compared through ikpca.Model.
func projections(X *mat.Dense, m toyModels) ([]ProjectionSeries, error) {
	models := map[string]ikpca.Model{methodCS: m.cs, methodKHA: m.kha}
	n := X.RawMatrix().Rows
	k := min(3, m.cs.Components())
	scores := map[string]*mat.Dense{}
	for name, md := range models {
		var sc mat.Dense
		if err := md.Transform(&sc, X, k); err != nil {
			return nil, err
		}
		scores[name] = &sc
	}
	out := make([]ProjectionSeries, k)
	for j := range k {
		s := ProjectionSeries{Component: j + 1, X: make([]float64, n), Batch: make([]float64, n),
			Methods: map[string][]float64{}, RelRMS: map[string]float64{}}
		sq := math.Sqrt(math.Max(m.batchValues[j], 0))
		for i := range n {
			s.X[i] = X.At(i, 0)
			s.Batch[i] = m.batchU.At(i, j) * sq
		}
		for name, sc := range scores {
			v := mat.Col(nil, j, sc)
			if mat.Dot(mat.NewVecDense(n, v), mat.NewVecDense(n, s.Batch)) < 0 {
				for i := range v {
					v[i] = -v[i]
				}
			}
			var num, den float64
			for i := range n {
				num += (v[i] - s.Batch[i]) * (v[i] - s.Batch[i])
				den += s.Batch[i] * s.Batch[i]
			}
			s.Methods[name] = v
			s.RelRMS[name] = math.Sqrt(num / den)
		}
		out[j] = s
	}
	return out, nil
}

// sineToBatch returns the sine of the largest principal angle between the model's top r
// axes, the expansions φ(A)α, and batch kernel PCA's: the cosines are the singular values
// of (u/√λ)ᵀK(X, A)α (the kernel trick; adequate above √ε).
func sineToBatch(pts, alpha *mat.Dense, k kernel.Kernel, X *mat.Dense, vals []float64, u *mat.Dense, r int) float64 {
	n, N := X.RawMatrix().Rows, pts.RawMatrix().Rows
	kxa := mat.NewDense(n, N, nil)
	col := make([]float64, N)
	for i := range n {
		kernel.Column(col, k, pts, X.RawRowView(i))
		kxa.SetRow(i, col)
	}
	var tmp, c mat.Dense
	tmp.Mul(kxa, alpha.Slice(0, N, 0, r))
	c.Mul(scaledVectors(vals, u, r).T(), &tmp)
	var svd mat.SVD
	if !svd.Factorize(&c, mat.SVDNone) {
		return math.NaN()
	}
	worst := 0.0
	for _, v := range svd.Values(nil) {
		worst = math.Max(worst, math.Sqrt(math.Max(0, 1-v*v)))
	}
	return worst
}
