package kpca_test

import (
	"io"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
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
// coordinates (VectorsTo), its points and its kernel, by the textbook formula:
// uⱼᵀk'ₓ/√λⱼ with k'ₓ = kₓ − K1/m − (1ᵀkₓ/m)·1 + (1ᵀK1/m²)·1 (centred) or kₓ.
func project(md *kpca.Model, X mat.Matrix, k int) *mat.Dense {
	var pts, u mat.Dense
	md.Points(&pts)
	md.VectorsTo(&u)
	vals := md.Values(nil)
	K := kernel.Matrix(md.Kernel(), &pts)
	m := md.Len()
	rowAvg := make([]float64, m)
	var avg float64
	for i := range m {
		for j := range m {
			rowAvg[i] += K.At(i, j) / float64(m)
		}
		avg += rowAvg[i] / float64(m)
	}
	rows, _ := X.Dims()
	out := mat.NewDense(rows, k, nil)
	kx := make([]float64, m)
	for i := range rows {
		x := mat.Row(nil, i, X)
		kernel.Column(kx, md.Kernel(), &pts, x)
		if md.Options().Mode == kpca.Centred {
			var mean float64
			for _, v := range kx {
				mean += v / float64(m)
			}
			for l := range kx {
				kx[l] += avg - rowAvg[l] - mean
			}
		}
		for j := range k {
			out.Set(i, j, mat.Dot(mat.NewVecDense(m, kx), u.ColView(j))/math.Sqrt(vals[j]))
		}
	}
	return out
}
