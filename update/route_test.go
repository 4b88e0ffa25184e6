package update

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that Factorize, Border, BorderWith (a Product), RankOne,
// SetEigen and Product.Reset reach BLAS and LAPACK through package native only, never through gonum's
// blas64 and lapack64 registries: a -tags openblas build then runs every update on
// OpenBLAS without a call to native.Use. The registries are replaced by recording
// implementations while it runs; not parallel.
func TestBackendRoute(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	const n = 60 // large enough for every code path: deflation, the dgemm, the tip column
	a := testmat.RandomSym(n+10, rng)
	b := mat.NewDense(3, n, nil)
	for i := range 3 {
		for j := range n {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	calls := backend.RegistryCalls(func() {
		var s Sym
		if err := s.Factorize(testmat.Leading(a, n)); err != nil {
			t.Fatal(err)
		}
		var p Product
		if err := p.Reset(b, &s); err != nil {
			t.Fatal(err)
		}
		for m := n; m < n+5; m++ {
			tip := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			if err := s.BorderWith(column(a, m, m), a.At(m, m), &p, tip); err != nil {
				t.Fatal(err)
			}
		}
		for m := n + 5; m < n+10; m++ {
			if err := s.Border(column(a, m, m), a.At(m, m)); err != nil {
				t.Fatal(err)
			}
		}
		v := make([]float64, s.Len())
		v[0] = 1 // e₁ against a dense U: no deflation
		if err := s.RankOne(0.5, v); err != nil {
			t.Fatal(err)
		}
		v[0], v[1] = 0, 1
		if err := s.RankOne(-0.25, v); err != nil {
			t.Fatal(err)
		}
		var u mat.Dense
		s.VectorsTo(&u)
		var c Sym
		if err := c.SetEigen(s.Values(nil), &u); err != nil { // runs the orthogonality probe
			t.Fatal(err)
		}
	}, native.Compiled == "gonum")
	if len(calls) > 0 {
		t.Errorf("reached gonum's blas64/lapack64 registry instead of package native:\n%s", strings.Join(calls, "\n"))
	}
}
