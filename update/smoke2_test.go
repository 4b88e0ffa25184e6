package update

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

func TestSmokeYeast(t *testing.T) {
	native.Use()
	ds := data.Yeast()
	m := 600
	x := ds.X.Slice(0, m, 0, 8)
	k := testmat.RBF(x, testmat.MedianDistance(x))
	var s Sym
	defl, rot := 0, 0
	for j := 0; j < m; j++ {
		a := make([]float64, j)
		for i := range j {
			a[i] = k.At(i, j)
		}
		if err := s.Border(a, k.At(j, j)); err != nil {
			t.Fatal(j, err)
		}
		defl += s.Stats().Deflated
		rot += s.Stats().Rotated
	}
	var u mat.Dense
	s.VectorsTo(&u)
	want, _ := native.EigenSym(nil, nil, k)
	t.Logf("residual %g orth %g maxdiff %g deflated %d rotated %d last %+v", testmat.Residual(k, s.Values(nil), &u), testmat.Orthogonality(&u), testmat.MaxAbsDiff(want, s.Values(nil)), defl, rot, s.Stats())
}
