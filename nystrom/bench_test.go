package nystrom

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// benchRows and benchComps are the points BenchmarkTransform and
// BenchmarkApproximationTransform project, and onto how many components.
const benchRows, benchComps = 4096, 6

// benchSet is a data set of those benchmarks: the first m rows of MAGIC (d = 10) or a9a
// (d = 123) as they are, m = 1000 (100 with -short), and the next benchRows rows X to
// project.
type benchSet struct {
	name     string
	d, m     int
	train, X *mat.Dense
}

// benchSets returns the data sets of BenchmarkTransform and
// BenchmarkApproximationTransform.
func benchSets() []benchSet {
	m := 1000
	if testing.Short() {
		m = 100
	}
	var sets []benchSet
	for _, ds := range []data.Dataset{data.Magic(), data.A9A()} {
		_, d := ds.X.Dims()
		sets = append(sets, benchSet{name: ds.Name, d: d, m: m,
			train: mat.DenseCopyOf(ds.X.Slice(0, m, 0, d)), X: mat.DenseCopyOf(ds.X.Slice(m, m+benchRows, 0, d))})
	}
	return sets
}

// benchTransform measures transform, which projects the benchRows points of a set (into
// dst, or elsewhere), and reports points/s.
func benchTransform(b *testing.B, transform func(dst *mat.Dense) error) {
	var dst mat.Dense
	for b.Loop() {
		dst.Reset()
		if err := transform(&dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkTransform measures Transform of 4096 points onto 6 components for a model of
// r = 1000 landmarks (100 with -short), the first r rows of MAGIC (d = 10) and a9a
// (d = 123) as they are, RBF with their median distance, and the next 4096 rows added;
// the same points and sizes as BenchmarkApproximationTransform, so that points/s
// compare. Building the map costs one r×r eigendecomposition (seconds in pure Go).
func BenchmarkTransform(b *testing.B) {
	for _, set := range benchSets() {
		L, X := set.train, set.X
		m := fit(b, rbfMedian(b, L), L, X, Options{})
		b.Run(fmt.Sprintf("%s/d=%d/r=%d", set.name, set.d, set.m), func(b *testing.B) {
			benchTransform(b, func(dst *mat.Dense) error { return m.Transform(dst, X, benchComps) })
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
	for _, set := range benchSets() {
		train, X := set.train, set.X
		ny, err := NewApproximation(rbfMedian(b, train), train, ApproximationOptions{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := ny.Grow(set.m); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%s/d=%d/m=%d", set.name, set.d, set.m)
		b.Run(name+"/bulk", func(b *testing.B) {
			benchTransform(b, func(dst *mat.Dense) error { return ny.Transform(dst, X, benchComps) })
		})
		b.Run(name+"/elements", func(b *testing.B) {
			benchTransform(b, func(*mat.Dense) error { ny.transformElements(X, benchComps, false); return nil })
		})
	}
}

// BenchmarkDecode measures what a distributed fit's merge decodes per partial model
// (docs/design.md, "Beyond one machine"): a Model's encoding, whose map is verified,
// O(r²·(d + r')), against the Sums of its points, whose sums only are, O(r'²). Landmarks
// are the first r rows of a9a (d = 123), r = 1000 (100 with -short), RBF of σ = 3; the
// next 4096 rows are added. bytes and ms per decoding are reported.
func BenchmarkDecode(b *testing.B) {
	set := benchSets()[1]
	m := fit(b, kernel.RBF{Sigma: 3}, set.train, set.X, Options{})
	model := wiretest.Marshal(b, m)
	var s Sums
	if err := m.SumsTo(&s); err != nil {
		b.Fatal(err)
	}
	sums := wiretest.Marshal(b, &s)
	report := func(b *testing.B, n int) {
		b.ReportMetric(float64(n), "bytes")
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/decode")
	}
	b.Run(fmt.Sprintf("model/r=%d", set.m), func(b *testing.B) {
		for b.Loop() {
			var d Model
			if err := d.UnmarshalBinary(model); err != nil {
				b.Fatal(err)
			}
		}
		report(b, len(model))
	})
	b.Run(fmt.Sprintf("sums/r=%d", set.m), func(b *testing.B) {
		for b.Loop() {
			var d Sums
			if err := d.UnmarshalBinary(sums); err != nil {
				b.Fatal(err)
			}
		}
		report(b, len(sums))
	})
}
