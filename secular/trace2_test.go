package secular

import (
	"math"
	"testing"
)

func TestOrth1166(t *testing.T) {
	var s Solver
	res, _ := s.RankOne(i1166d, i1166z, 6.2964808955495258e-05)
	K, S := res.K, res.Stride
	for a := range K {
		for b := a; b < K; b++ {
			var dot float64
			for j := range S {
				dot += res.Vectors[a*S+j] * res.Vectors[b*S+j]
			}
			if a == b {
				dot -= 1
			}
			if math.Abs(dot) > 1e-14 {
				t.Logf("pair %d %d: %g", a, b, dot)
			}
		}
	}
	t.Logf("w: %v", s.what[:29])
}
