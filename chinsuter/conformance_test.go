package chinsuter_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/modeltest"
)

// TestConformance: the exact, truncated and compressed forms pass the suite of package
// modeltest, persistence included, started by Fit (a batch of the first points) and by
// New (empty, every point added).
func TestConformance(t *testing.T) {
	for _, c := range []struct {
		name    string
		opts    chinsuter.Options
		bounded bool
		// centring: Subject.CentringTolerance. The compressed form re-expresses the
		// mean on pre-images, so the scores of the points seen sum to n·⟨v, μ − μ̃⟩,
		// the compression's error in the mean (ResidualMean, 1.5–3 % of ‖μ‖ here),
		// largest relative to Σ|s| on the smallest component (λ₃ ≈ 0.1·λ₁): measured up
		// to 0.069 (pure Go) and 0.14 (OpenBLAS) with 4 and 6 pre-images, started by Fit
		// or by New — the pre-image search follows argmax choices, which rounding
		// changes, so the two backends follow different paths. 0.25 leaves a margin; a
		// model that does not centre misses by the mean score, Σ|s| itself when all its
		// scores share a sign. The exact forms cancel to rounding.
		centring float64
	}{
		{"exact", chinsuter.Options{}, false, 0},
		{"truncated", chinsuter.Options{Components: 4}, false, 0},
		// (r+1)·n′ = 16 pre-images: the suite's 40 points compress again and again.
		{"compressed", chinsuter.Options{Components: 3, Compression: &chinsuter.Compression{PreImages: 4}}, true, 0.25},
	} {
		for _, empty := range []bool{false, true} {
			name := c.name
			if empty {
				name += "/New"
			}
			t.Run(name, func(t *testing.T) {
				model := func(m ikpca.Model) *chinsuter.Model { return m.(*chinsuter.Model) }
				modeltest.Run(t, modeltest.Subject{
					New: func(X *mat.Dense) (ikpca.Incremental, error) {
						if !empty {
							return chinsuter.Fit(kernel.RBF{Sigma: 1}, X, c.opts)
						}
						_, d := X.Dims()
						m, err := chinsuter.New(kernel.RBF{Sigma: 1}, d, c.opts)
						if err != nil {
							return nil, err
						}
						return m, m.AddBatch(X)
					},
					Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) {
						return project(model(m), X, k), nil
					},
					// The vectors whose signs the model fixes: the components' scores on the
					// expansion points (in the exact form, the training scores).
					Signed: func(m ikpca.Model) (*mat.Dense, error) {
						A, _, _ := model(m).Expansions()
						return project(model(m), A, model(m).Components()), nil
					},
					Bounded:           c.bounded,
					CentringTolerance: c.centring,
				})
			})
		}
	}
}

// project computes the scores of the rows of X from the model's expansion (Expansions:
// the points A, the signed coefficients α and the mean's ν) by the textbook formula
// ⟨vⱼ, φ(x) − μ⟩ = αⱼᵀ(k_A(x) − K_A·ν).
func project(md *chinsuter.Model, X mat.Matrix, k int) *mat.Dense {
	A, alpha, nu := md.Expansions()
	N, _ := A.Dims()
	K := kernel.Matrix(md.Kernel(), A)
	var kn mat.VecDense
	kn.MulVec(K, mat.NewVecDense(N, nu))
	rows, _ := X.Dims()
	out := mat.NewDense(rows, k, nil)
	kx := make([]float64, N)
	for i := range rows {
		kernel.Column(kx, md.Kernel(), A, mat.Row(nil, i, X))
		for l := range kx {
			kx[l] -= kn.AtVec(l)
		}
		for j := range k {
			out.Set(i, j, mat.Dot(mat.NewVecDense(N, kx), alpha.ColView(j)))
		}
	}
	return out
}
