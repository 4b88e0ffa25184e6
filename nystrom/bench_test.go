package nystrom

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
)

// BenchmarkTransform measures Transform of 4096 points onto 6 components for a model of
// r = 1000 landmarks (100 with -short), the first r rows of MAGIC (d = 10) and a9a
// (d = 123) as they are, RBF with their median distance, and the next 4096 rows added;
// the same points and sizes as BenchmarkApproximationTransform, so that points/s
// compare. Building the map costs one r×r eigendecomposition (seconds in pure Go).
func BenchmarkTransform(b *testing.B) {
	const rows, comps = 4096, 6
	r := 1000
	if testing.Short() {
		r = 100
	}
	for _, ds := range []data.Dataset{data.Magic(), data.A9A()} {
		_, d := ds.X.Dims()
		L := mat.DenseCopyOf(ds.X.Slice(0, r, 0, d))
		X := mat.DenseCopyOf(ds.X.Slice(r, r+rows, 0, d))
		m := fit(b, rbfMedian(b, L), L, X, Options{})
		b.Run(fmt.Sprintf("%s/d=%d/r=%d", ds.Name, d, r), func(b *testing.B) {
			var dst mat.Dense
			for b.Loop() {
				dst.Reset()
				if err := m.Transform(&dst, X, comps); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}

// BenchmarkApproximationTransform measures Approximation.Transform with m = 1000
// landmarks (100 with -short), the first m rows, RBF with the median distance, 6
// components, on MAGIC (d = 10) and a9a (d = 123): 4096 points projected at once
// ("bulk") and by the element path ("elements"), the same points and sizes as
// BenchmarkTransform. points/s is reported. Growing the m landmarks costs about n·m³/3
// flops (a minute or two for m = 1000 in pure Go, seconds with OpenBLAS).
func BenchmarkApproximationTransform(b *testing.B) {
	const rows, comps = 4096, 6
	m := 1000
	if testing.Short() {
		m = 100
	}
	for _, ds := range []data.Dataset{data.Magic(), data.A9A()} {
		_, d := ds.X.Dims()
		train := mat.DenseCopyOf(ds.X.Slice(0, m, 0, d))
		X := mat.DenseCopyOf(ds.X.Slice(m, m+rows, 0, d))
		ny, err := NewApproximation(rbfMedian(b, train), train, ApproximationOptions{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := ny.Grow(m); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%s/d=%d/m=%d", ds.Name, d, m)
		b.Run(name+"/bulk", func(b *testing.B) {
			var dst mat.Dense
			for b.Loop() {
				dst.Reset()
				if err := ny.Transform(&dst, X, comps); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "points/s")
		})
		b.Run(name+"/elements", func(b *testing.B) {
			for b.Loop() {
				ny.transformElements(X, comps, false)
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}
