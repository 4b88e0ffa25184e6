package features

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that Map and Transform of the feature maps reach BLAS through
// package native only, never through gonum's blas64 registry, so that a -tags openblas
// build runs them on OpenBLAS without native.Use. The maps are built outside the check:
// NewQuadrature computes its Gauss–Hermite rule once with gonum's Dsteqr, which takes
// its few BLAS calls from the registry. Not parallel: the registries are replaced while
// it runs.
func TestBackendRoute(t *testing.T) {
	X := randomPoints(rand.New(rand.NewPCG(12, 4)), 20, 3, 1)
	rff, err := NewRFF(kernel.RBF{Sigma: 1}, 3, RFFOptions{Dim: 64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewQuadrature(kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: 64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tay, err := NewTaylor(kernel.RBF{Sigma: 1}, 3, TaylorOptions{Degree: 3})
	if err != nil {
		t.Fatal(err)
	}
	maps := map[string]interface {
		Map(dst, x []float64) error
		Transform(dst *mat.Dense, X mat.Matrix) error
		OutDim() int
	}{"rff": rff, "quadrature": q, "taylor": tay}
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		for name, m := range maps {
			z := make([]float64, m.OutDim())
			if err := m.Map(z, X.RawRowView(0)); err != nil {
				t.Fatal(name, err)
			}
			var dst mat.Dense
			if err := m.Transform(&dst, X); err != nil {
				t.Fatal(name, err)
			}
		}
	})
}
