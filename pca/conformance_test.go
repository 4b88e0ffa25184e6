package pca

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/modeltest"
)

// TestConformance: the exact model, a windowed one and the rank-r form pass the
// modeltest suite, persistence included. Transform is checked against (x − μ)ᵀV from
// Mean and VectorsTo, the signed vectors are the directions (VectorsTo). Remove is
// skipped: the model is not an ikpca.Decremental (its Remove takes a point, not an
// index); TestStatPCMagic checks its removals against stat.PC.
func TestConformance(t *testing.T) {
	project := func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) {
		md := m.(*Model)
		var v mat.Dense
		md.VectorsTo(&v)
		mu := md.Mean(nil)
		r, d := X.Dims()
		out := mat.NewDense(r, k, nil)
		for i := range r {
			for j := range k {
				var s float64
				for c := range d {
					s += (X.At(i, c) - mu[c]) * v.At(c, j)
				}
				out.Set(i, j, s)
			}
		}
		return out, nil
	}
	signed := func(m ikpca.Model) (*mat.Dense, error) {
		var v mat.Dense
		m.(*Model).VectorsTo(&v)
		return &v, nil
	}
	skip := map[string]string{"Remove": "pca.Model.Remove takes the point to remove, not an index: not an ikpca.Decremental"}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"exact", Options{Components: All}},
		{"window", Options{Components: 2, Window: 25}},
		{"rank 2", Options{Components: 2, Rank: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			modeltest.Run(t, modeltest.Subject{
				New: func(X *mat.Dense) (ikpca.Incremental, error) {
					return Fit(X, c.opts)
				},
				Project: project,
				Signed:  signed,
				Window:  c.opts.Window,
				Skip:    skip,
			})
		})
	}
}
