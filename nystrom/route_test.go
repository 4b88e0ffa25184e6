package nystrom

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that every path of the model — Choose by each strategy, New,
// Fit, Add, AddBatch, Merge, the reads (Values, ExplainedVariance, VectorsTo, Transform,
// Map) and the encoding — reaches BLAS and LAPACK through package native only, never
// through gonum's blas64 and lapack64 registries, so that a -tags openblas build runs
// them on OpenBLAS without native.Use. Not parallel: the registries are replaced while
// it runs.
func TestBackendRoute(t *testing.T) {
	X := points(t, "yeast", 200, 4)
	k := rbfMedian(t, X)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		for _, s := range []Strategy{Uniform, Stream, Greedy} {
			m, err := Fit(k, rows(X, 0, 100), Options{Landmarks: 20, Strategy: s, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			o := m.Empty()
			testmat.AddRows(t, o, X, 100, 150)
			if err := m.Merge(o); err != nil {
				t.Fatal(err)
			}
			_ = m.Values(nil)
			_ = m.ExplainedVariance(nil)
			var v, sc mat.Dense
			m.VectorsTo(&v)
			if err := m.Transform(&sc, rows(X, 150, 200), 5); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Map(nil, X.RawRowView(0)); err != nil {
				t.Fatal(err)
			}
			b := wiretest.Marshal(t, m)
			var back Model
			if err := back.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
		}
	})
}
