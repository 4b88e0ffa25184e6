package kpca

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
)

// BenchmarkModelTransform measures Model.Transform of 4096 points for a centred model of
// m = 1000 points (200 with -short), RBF with the median distance, 6 components, on
// MAGIC (d = 10) and a9a (d = 123), through the public API only. points/s is reported,
// to compare with BenchmarkNystromTransform and kernel's BenchmarkBlock.
func BenchmarkModelTransform(b *testing.B) {
	const rows, comps = 4096, 6
	m := 1000
	if testing.Short() {
		m = 200
	}
	for _, ds := range []data.Dataset{data.Magic(), data.A9A()} {
		_, d := ds.X.Dims()
		train := mat.DenseCopyOf(ds.X.Slice(0, m, 0, d))
		X := mat.DenseCopyOf(ds.X.Slice(m, m+rows, 0, d))
		med, err := kernel.MedianDistance(train, 1000)
		if err != nil {
			b.Fatal(err)
		}
		md := newModel(b, kernel.RBF{Sigma: med}, train, Options{Mode: Centred})
		b.Run(fmt.Sprintf("%s/d=%d/m=%d", ds.Name, d, m), func(b *testing.B) {
			var dst mat.Dense
			for b.Loop() {
				dst.Reset()
				if err := md.Transform(&dst, X, comps); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}
