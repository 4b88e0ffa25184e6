package lanczos

import (
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that SymNorm reaches BLAS and LAPACK through package native
// only, never through gonum's blas64 and lapack64 registries. Not parallel: the
// registries are replaced while it runs.
func TestBackendRoute(t *testing.T) {
	a := synth.RandomSym(40, rand.New(rand.NewPCG(12, 5)))
	backend.CheckRoute(t, native.Compiled == "gonum", func() { _ = SymNorm(a) })
}
