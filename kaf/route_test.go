package kaf

import (
	"math"
	"testing"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that SPEED (construction, Map, Grow with a weight transfer) and
// a SPEEDFilter growing its dictionary reach BLAS and LAPACK through package native
// only, never through gonum's blas64 and lapack64 registries, so that a -tags openblas
// build runs them on OpenBLAS without native.Use. Not parallel: the registries are
// replaced while it runs.
func TestBackendRoute(t *testing.T) {
	k := kernel.RBF{Sigma: 0.5}
	X := randomInputs(80, 2, 12)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		s, err := NewSPEED(k, X.Slice(0, 20, 0, 2), SPEEDOptions{Components: 10, Centred: true})
		if err != nil {
			t.Fatal(err)
		}
		phi := make([]float64, s.OutDim())
		if err := s.Map(phi, X.RawRowView(30)); err != nil {
			t.Fatal(err)
		}
		w := make([]float64, s.OutDim())
		w[0] = 1
		if err := s.Grow(X.RawRowView(21), &w); err != nil {
			t.Fatal(err)
		}
		f, err := NewSPEEDFilter(s, func(m int) (Filter, error) { return NewRLS(m, RLSOptions{Delta: 1e-2}) },
			SPEEDFilterOptions{Threshold: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		for i := 22; i < 80; i++ {
			x := X.RawRowView(i)
			if _, err := f.Update(x, math.Sin(3*x[0])); err != nil {
				t.Fatal(err)
			}
		}
		if f.Map().Len() <= 21 {
			t.Errorf("the dictionary did not grow (%d samples): the test misses Grow", f.Map().Len())
		}
	})
}
