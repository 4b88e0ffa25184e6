package secular

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSmoke(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Solver
	for _, n := range []int{1, 2, 3, 5, 10, 50, 300} {
		for _, sign := range []float64{1, -1} {
			d := make([]float64, n)
			z := make([]float64, n)
			for j := range d {
				d[j] = rng.NormFloat64()
				z[j] = rng.NormFloat64()
			}
			slices.Sort(d)
			rho := sign * (0.5 + rng.Float64())
			res, err := s.RankOne(d, z, rho)
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			a := mat.NewSymDense(n, nil)
			for i := range n {
				for j := i; j < n; j++ {
					v := rho * z[i] * z[j]
					if i == j {
						v += d[i]
					}
					a.SetSym(i, j, v)
				}
			}
			var es mat.EigenSym
			es.Factorize(a, false)
			want := es.Values(nil)
			var md float64
			for i := range want {
				md = math.Max(md, math.Abs(want[i]-res.Values[i]))
			}
			t.Logf("rank-one n=%d sign=%g maxdiff=%g stats=%+v", n, sign, md, res.Stats)
			// arrowhead
			c := rng.NormFloat64()
			ra, err := s.Arrow(d, z, c)
			if err != nil {
				t.Fatalf("arrow n=%d: %v", n, err)
			}
			b := mat.NewSymDense(n+1, nil)
			for i := range n {
				b.SetSym(i, i, d[i])
				b.SetSym(i, n, z[i])
			}
			b.SetSym(n, n, c)
			es.Factorize(b, false)
			want = es.Values(nil)
			md = 0
			for i := range want {
				md = math.Max(md, math.Abs(want[i]-ra.Values[i]))
			}
			t.Logf("arrow n=%d maxdiff=%g stats=%+v", n, md, ra.Stats)
		}
	}
}
