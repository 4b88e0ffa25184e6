package secular

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSolver times the whole small problem (deflation, roots, Löwner weights and
// vectors) for random arrowhead and rank-one problems without deflation, serially and
// with two goroutines. roots/s counts secular roots per second.
func BenchmarkSolver(b *testing.B) {
	sizes := []int{250, 500, 1000, 2000}
	if testing.Short() {
		sizes = []int{250}
	}
	for _, n := range sizes {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		d, z := uniformPoles(rng, n), normalWeights(rng, n)
		for _, w := range []int{1, 2} {
			for _, kind := range []string{"arrow", "rank-one"} {
				b.Run(fmt.Sprintf("%s/n=%d/workers=%d", kind, n, w), func(b *testing.B) {
					s := Solver{Workers: w}
					solve := func() *Result {
						var res *Result
						var err error
						if kind == "arrow" {
							res, err = s.Arrow(d, z, 0.1)
						} else {
							res, err = s.RankOne(d, z, 0.7)
						}
						if err != nil {
							b.Fatal(err)
						}
						return res
					}
					res := solve()
					b.ReportAllocs()
					for b.Loop() {
						solve()
					}
					b.ReportMetric(float64(res.K)*float64(b.N)/b.Elapsed().Seconds(), "roots/s")
					b.ReportMetric(float64(res.Stats.Iterations)/float64(res.K), "iter/root")
				})
			}
		}
	}
}
