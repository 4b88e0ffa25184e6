package nystrom

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/modeltest"
)

// TestConformance: the model passes the suite of package modeltest, persistence
// included, for every landmark strategy, centred and uncentred. New fits 12 landmarks
// among the first half of the suite's points (Gaussian kernel, σ = 1, suited to them)
// and adds that half; the rest come one at a time.
func TestConformance(t *testing.T) {
	for _, uncentred := range []bool{false, true} {
		for _, s := range []Strategy{Uniform, Stream, Greedy} {
			name := s.String()
			if uncentred {
				name += "/uncentred"
			}
			t.Run(name, func(t *testing.T) {
				modeltest.Run(t, subject(Options{Landmarks: 12, Strategy: s, Seed: 3, Uncentred: uncentred}))
			})
		}
	}
}

func subject(opts Options) modeltest.Subject {
	model := func(m ikpca.Model) *Model { return m.(*Model) }
	return modeltest.Subject{
		New: func(X *mat.Dense) (ikpca.Incremental, error) { return Fit(kernel.RBF{Sigma: 1}, X, opts) },
		Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) {
			return project(model(m), X, k)
		},
		Signed: func(m ikpca.Model) (*mat.Dense, error) {
			var v mat.Dense
			model(m).VectorsTo(&v)
			return &v, nil
		},
		Uncentred: opts.Uncentred,
	}
}

// project computes the scores of the rows of X by another route than Transform: each
// point's features one at a time (Map, a dgemv rather than a block's dgemm), minus the
// mean c + s/n formed here from the sums (for a centred model), times the directions of
// VectorsTo.
func project(m *Model, X mat.Matrix, k int) (*mat.Dense, error) {
	rows, d := X.Dims()
	var V mat.Dense
	m.VectorsTo(&V)
	mean := make([]float64, m.p)
	if m.Centred() {
		for j := range mean {
			mean[j] = m.shift[j] + (m.sum.hi[j]+m.sum.lo[j])/float64(m.n)
		}
	}
	out := mat.NewDense(rows, k, nil)
	x := make([]float64, d)
	for i := range rows {
		mat.Row(x, i, X)
		phi, err := m.Map(nil, x)
		if err != nil {
			return nil, err
		}
		for q := range k {
			var s float64
			for j, v := range phi {
				s += (v - mean[j]) * V.At(j, q)
			}
			out.Set(i, q, s)
		}
	}
	return out, nil
}
