package features

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
)

// BenchmarkMap maps 21-dimensional points (cpu_act's) to D = 1000 features: a gemv of
// d·D/2 multiply-adds and D/2 sincos. It cycles through 1024 points: one fixed point
// makes math.Sincos's branches perfectly predictable and doubles the apparent speed.
// points/s is reported.
func BenchmarkMap(b *testing.B) {
	r, _ := NewRFF(kernel.RBF{Sigma: 3}, 21, RFFOptions{Dim: 1000, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([][]float64, 1024)
	for i := range xs {
		xs[i] = make([]float64, 21)
		for j := range xs[i] {
			xs[i][j] = rng.NormFloat64()
		}
	}
	z := make([]float64, 1000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = r.Map(z, xs[i%len(xs)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkTransform maps 1000 points at once (one dgemm); points/s for comparison
// with BenchmarkMap.
func BenchmarkTransform(b *testing.B) {
	r, _ := NewRFF(kernel.RBF{Sigma: 3}, 21, RFFOptions{Dim: 1000, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 1))
	X := synth.Normal(1000, 21, rng)
	var Z mat.Dense
	for b.Loop() {
		Z.Reset()
		_ = r.Transform(&Z, X)
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
