package sketch

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that Update (with its compressions), UpdateRows, Merge and
// the read-out methods reach LAPACK through package native only, never through gonum's
// lapack64 and blas64 registries, so that a -tags openblas build runs the SVDs on
// OpenBLAS without native.Use. Not parallel: the registries are replaced while it runs.
func TestBackendRoute(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 3))
	a := synth.Normal(50, 8, rng)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		f, err := New(4, 8, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := New(4, 8, Options{Buffer: 5})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 25 {
			if err := f.Update(a.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.UpdateRows(a.Slice(25, 50, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if err := f.Merge(g); err != nil {
			t.Fatal(err)
		}
		var b, v mat.Dense
		if err := f.Sketch(&b); err != nil {
			t.Fatal(err)
		}
		if err := f.VectorsTo(&v); err != nil {
			t.Fatal(err)
		}
	})
}
