package features

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkMap maps one 21-dimensional point (cpu_act's) to D = 1000 features: a gemv
// of d·D/2 multiply-adds and D/2 sincos. points/s is reported.
func BenchmarkMap(b *testing.B) {
	r, _ := NewRFF(21, RFFOptions{Dim: 1000, Sigma: 3, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 21)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	z := make([]float64, 1000)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Map(z, x)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkTransform maps 1000 points at once (one dgemm); points/s for comparison
// with BenchmarkMap.
func BenchmarkTransform(b *testing.B) {
	r, _ := NewRFF(21, RFFOptions{Dim: 1000, Sigma: 3, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 1))
	X := mat.NewDense(1000, 21, nil)
	for i := range 1000 {
		for j := range 21 {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	var Z mat.Dense
	for b.Loop() {
		Z.Reset()
		_ = r.Transform(&Z, X)
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
