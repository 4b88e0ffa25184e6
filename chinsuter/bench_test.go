package chinsuter

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// BenchmarkAddExact times one exact update of a model of m points (10-D Gaussian
// points, RBF σ = √10: every component is kept) against one m×m×m dgemm timed in every
// iteration (x-dgemm; the bordered update of package kpca is about 1–1.5 x-dgemm). In
// -short mode only m = 200.
func BenchmarkAddExact(b *testing.B) {
	native.Use()
	sizes := []int{200}
	if !testing.Short() {
		sizes = []int{500, 1000}
	}
	for _, m := range sizes {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			X := gaussian(m+1, 10, uint64(m))
			md, err := Fit(kernel.RBF{Sigma: math.Sqrt(10)}, X.Slice(0, m, 0, 10), Options{})
			if err != nil {
				b.Fatal(err)
			}
			saved := *md // an update replaces the state's slices, never mutates them
			y := yardstick.New(m)
			next := X.RawRowView(m)
			for b.Loop() {
				b.StopTimer()
				*md = saved
				y.Dgemm()
				b.StartTimer()
				if err := md.Add(next); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(per)/float64(y.MeanDgemm()), "x-dgemm")
			b.ReportMetric(float64(md.Components()), "components")
		})
	}
}

// BenchmarkAddCompressed times the compressed model (r = 5, n′ = 10) on the toy in
// chunks of c points, compression included, as points per second.
func BenchmarkAddCompressed(b *testing.B) {
	native.Use()
	for _, c := range []int{1, 50} {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			X := synth.Toy(200+c, rand.New(rand.NewPCG(1, 1)))
			md, err := Fit(kernel.RBF{Sigma: 1}, X.Slice(0, 200, 0, 2), Options{Components: 5, Compression: &Compression{PreImages: 10}})
			if err != nil {
				b.Fatal(err)
			}
			saved := *md
			chunk := X.Slice(200, 200+c, 0, 2)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				*md = saved
				b.StartTimer()
				if err := md.AddBatch(chunk); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c*b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}
