package kpca_test

import (
	"io"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/modeltest"
)

// TestConformance: every mode and method of Model passes the ikpca.Model suite, with
// its checkpoint.
func TestConformance(t *testing.T) {
	for _, opts := range []kpca.Options{
		{},
		{Mode: kpca.Uncentred},
		{Method: kpca.RankOne},
		{Mode: kpca.Uncentred, Method: kpca.RankOne},
	} {
		t.Run(opts.Mode.String()+"/"+opts.Method.String(), func(t *testing.T) {
			modeltest.Run(t, subject(opts))
		})
	}
}

// subject describes a Model with a Gaussian kernel (σ = 1, suited to the suite's
// points) to the suite.
func subject(opts kpca.Options) modeltest.Subject {
	model := func(m ikpca.Model) *kpca.Model { return m.(*kpca.Model) }
	return modeltest.Subject{
		New:      func(X *mat.Dense) (ikpca.Model, error) { return kpca.New(kernel.RBF{Sigma: 1}, X, opts) },
		Add:      func(m ikpca.Model, x []float64) error { return model(m).Add(x) },
		AddBatch: func(m ikpca.Model, X mat.Matrix) error { return model(m).AddBatch(X) },
		TrainingScores: func(m ikpca.Model, k int) (*mat.Dense, error) {
			var s mat.Dense
			return &s, model(m).Scores(&s, k)
		},
		Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) { return project(model(m), X, k), nil },
		Signed: func(m ikpca.Model) (*mat.Dense, error) {
			var v mat.Dense
			model(m).VectorsTo(&v)
			return &v, nil
		},
		Save: func(m ikpca.Model, w io.Writer) error { return model(m).Save(w) },
		Load: func(r io.Reader) (ikpca.Model, error) { return kpca.Load(r, nil) },
	}
}

// project computes the scores of the rows of X from the model's eigenvectors in point
// coordinates (VectorsTo), its points and its kernel, by the textbook formula
// uⱼᵀk'ₓ/√λⱼ with k'ₓ the kernel column centred from scratch (testmat.Centring) or kₓ.
func project(md *kpca.Model, X mat.Matrix, k int) *mat.Dense {
	var pts, u mat.Dense
	md.Points(&pts)
	md.VectorsTo(&u)
	vals := md.Values(nil)
	scale := make([]float64, k)
	for j := range k {
		scale[j] = 1 / math.Sqrt(vals[j])
	}
	return testmat.NewCentring(md.Kernel(), &pts).Scores(X, &u, k, scale, md.Options().Mode == kpca.Centred)
}
