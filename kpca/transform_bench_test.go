package kpca

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
)

// transformRows and transformComps are what the Transform benchmarks project: 4096
// points onto 6 components.
const transformRows, transformComps = 4096, 6

// transformSet is a Transform benchmark's data: the first m rows of a data set to train
// on, the next transformRows to project, and RBF with the training rows' median distance.
type transformSet struct {
	name     string
	train, X *mat.Dense
	k        kernel.RBF
}

// transformSets returns the benchmarks' data on MAGIC (d = 10) and a9a (d = 123).
func transformSets(b *testing.B, m int) []transformSet {
	var out []transformSet
	for _, ds := range []data.Dataset{data.Magic(), data.A9A()} {
		_, d := ds.X.Dims()
		train := mat.DenseCopyOf(ds.X.Slice(0, m, 0, d))
		out = append(out, transformSet{
			name:  fmt.Sprintf("%s/d=%d/m=%d", ds.Name, d, m),
			train: train,
			X:     mat.DenseCopyOf(ds.X.Slice(m, m+transformRows, 0, d)),
			k:     rbfMedian(b, train),
		})
	}
	return out
}

// runTransform runs project under b.Run(name) and reports points/s.
func runTransform(b *testing.B, name string, project func() error) {
	b.Run(name, func(b *testing.B) {
		for b.Loop() {
			if err := project(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(transformRows*b.N)/b.Elapsed().Seconds(), "points/s")
	})
}

// BenchmarkModelTransform measures Model.Transform of 4096 points for a centred model of
// m = 1000 points (200 with -short), RBF with the median distance, 6 components, on
// MAGIC (d = 10) and a9a (d = 123), through the public API only. points/s is reported,
// to compare with nystrom's BenchmarkApproximationTransform and kernel's BenchmarkBlock.
func BenchmarkModelTransform(b *testing.B) {
	m := 1000
	if testing.Short() {
		m = 200
	}
	for _, s := range transformSets(b, m) {
		md := fitModel(b, s.k, s.train, Options{Components: All})
		var dst mat.Dense
		runTransform(b, s.name, func() error {
			dst.Reset()
			return md.Transform(&dst, s.X, transformComps)
		})
	}
}
