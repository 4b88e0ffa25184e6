package update

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
)

func TestSmokeBorder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	full := testmat.RandomSym(200, rng)
	var s Sym
	for m := 0; m < 200; m++ {
		a := make([]float64, m)
		for i := range m {
			a[i] = full.At(i, m)
		}
		if err := s.Border(a, full.At(m, m)); err != nil {
			t.Fatal(err)
		}
	}
	var u mat.Dense
	s.VectorsTo(&u)
	t.Logf("residual %g orth %g stats %+v", testmat.Residual(full, s.Values(nil), &u), testmat.Orthogonality(&u), s.Stats())
	for i := 0; i < 20; i++ {
		v := make([]float64, 200)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		rho := rng.NormFloat64()
		if err := s.RankOne(rho, v); err != nil {
			t.Fatal(err)
		}
		full.SymRankOne(full, rho, mat.NewVecDense(200, v))
	}
	s.VectorsTo(&u)
	t.Logf("residual %g orth %g stats %+v", testmat.Residual(full, s.Values(nil), &u), testmat.Orthogonality(&u), s.Stats())
}
