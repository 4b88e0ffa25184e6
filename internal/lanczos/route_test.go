package lanczos

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that SymNorm reaches BLAS and LAPACK through package native
// only, never through gonum's blas64 and lapack64 registries. Not parallel: the
// registries are replaced while it runs.
func TestBackendRoute(t *testing.T) {
	a := testmat.RandomSym(40, rand.New(rand.NewPCG(12, 5)))
	calls := backend.RegistryCalls(func() { _ = SymNorm(a) }, native.Compiled == "gonum")
	if len(calls) > 0 {
		t.Errorf("reached gonum's blas64/lapack64 registry instead of package native:\n%s", strings.Join(calls, "\n"))
	}
}
