package update

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that Factorize, Border, BorderWith (a Product), RankOne,
// SetEigen, Product.Mul and Thin's SetEigen, Border, RankOne, RemoveKeepRank and Remove
// reach BLAS and LAPACK through package native only, never through gonum's blas64 and
// lapack64 registries: a -tags openblas build then runs every update on
// OpenBLAS without a call to native.Use. The registries are replaced by recording
// implementations while it runs; not parallel.
func TestBackendRoute(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	const n = 60 // large enough for every code path: deflation, the dgemm, the tip column
	a := synth.RandomSym(n+10, rng)
	b := synth.Normal(3, n, rng)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		var s Sym
		if err := s.Factorize(synth.Leading(a, n)); err != nil {
			t.Fatal(err)
		}
		var p Product
		if err := p.Mul(b, &s); err != nil {
			t.Fatal(err)
		}
		for m := n; m < n+5; m++ {
			tip := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			if err := s.BorderWith(vd(column(a, m, m)), a.At(m, m), &p, vd(tip)); err != nil {
				t.Fatal(err)
			}
		}
		for m := n + 5; m < n+10; m++ {
			if err := s.Border(vd(column(a, m, m)), a.At(m, m)); err != nil {
				t.Fatal(err)
			}
		}
		v := make([]float64, s.Len())
		v[0] = 1 // e₁ against a dense U: no deflation
		if err := s.RankOne(0.5, vd(v)); err != nil {
			t.Fatal(err)
		}
		v[0], v[1] = 0, 1
		if err := s.RankOne(-0.25, vd(v)); err != nil {
			t.Fatal(err)
		}
		var u mat.Dense
		s.VectorsTo(&u)
		var c Sym
		if err := c.SetEigen(s.Values(nil), &u); err != nil { // runs the orthogonality probe
			t.Fatal(err)
		}
		// A Thin: SetEigen (its probe), Border with a new direction and a tip column,
		// RankOne with a new direction and without (v in span(V)), RemoveKeepRank
		// centred and not, Remove.
		var th Thin
		th.SetTruncation(Truncation{Rank: 20})
		if err := th.SetEigen(s.Values(nil)[s.Len()-20:], mat.DenseCopyOf(u.Slice(0, s.Len(), s.Len()-20, s.Len()))); err != nil {
			t.Fatal(err)
		}
		rows, _ := th.Dims()
		e := make([]float64, rows)
		for i := range e {
			e[i] = 0.6 / math.Sqrt(float64(rows))
		}
		if err := th.Border(vd(column(a, 3, rows)), vd(e), 0.8, 1); err != nil {
			t.Fatal(err)
		}
		r, k := th.Dims()
		x := make([]float64, r)
		for i := range x {
			x[i] = math.Sin(float64(i))
		}
		if err := th.RankOne(0.3, vd(x)); err != nil {
			t.Fatal(err)
		}
		var vv mat.Dense
		th.VectorsTo(&vv)
		if err := th.RankOne(-0.1, vv.ColView(k-1)); err != nil {
			t.Fatal(err)
		}
		if err := th.RemoveKeepRank(4, false); err != nil {
			t.Fatal(err)
		}
		if err := th.RemoveKeepRank(5, true); err != nil {
			t.Fatal(err)
		}
		if err := th.Remove(6); err != nil {
			t.Fatal(err)
		}
	})
}
