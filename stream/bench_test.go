package stream

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

func benchPoints(n, d int) *mat.Dense {
	rng := rand.New(rand.NewPCG(7, 7))
	X := synth.Normal(n, d, rng)
	return X
}

// BenchmarkAdd times adding one point to each streaming method after 2000 points (d =
// 21, D = 1000 features, ℓ = 20), beside the exact incremental model at m = 500 (whose
// step grows as m³ where the streaming methods' do not grow with m at all, or linearly
// for KRQA). points/s is reported.
func BenchmarkAdd(b *testing.B) {
	const n, d = 2000, 21
	X := benchPoints(n+4096, d)
	run := func(b *testing.B, add func([]float64) error) {
		b.ReportAllocs()
		i := n
		for b.Loop() {
			if err := add(X.RawRowView(n + i%4096)); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
	}
	b.Run("SKPCA", func(b *testing.B) {
		s, _ := NewSKPCA(kernel.RBF{Sigma: 4}, d, SKPCAOptions{Features: 1000, Sketch: 20, Seed: 1})
		_ = s.AddBatch(X.Slice(0, n, 0, d))
		run(b, s.Add)
	})
	b.Run("RNCA", func(b *testing.B) {
		r, _ := NewRNCA(kernel.RBF{Sigma: 4}, d, RNCAOptions{Features: 1000, Seed: 1})
		_ = r.AddBatch(X.Slice(0, n, 0, d))
		run(b, r.Add)
	})
	b.Run("KRQA/n=2000", func(b *testing.B) {
		m, _ := NewKRQA(kernel.RBF{Sigma: 4}, d, KRQAOptions{Components: 5})
		for i := range n {
			_ = m.Add(X.RawRowView(i))
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.present(i % n) // a presentation of a stored sample: the store does not grow
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
	})
	b.Run("exact-kpca/m=500", func(b *testing.B) {
		md, _ := kpca.Fit(kernel.RBF{Sigma: 4}, X.Slice(0, 500, 0, d), kpca.Options{Components: kpca.All})
		base := md
		work := new(kpca.Model)
		work.CopyFrom(base)
		work.Reserve(501)
		i := 0
		for b.Loop() {
			b.StopTimer()
			work.CopyFrom(base)
			b.StartTimer()
			if err := work.Add(X.RawRowView(n + i%4096)); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
	})
}

// BenchmarkSKPCACentring times SKPCA's Add centred (the default) against uncentred (the
// paper's model), D = 1000 features and ℓ = 20, on cpu_act (d = 21, standardised) and
// a9a (d = 123), after 2000 points, the points presented in the data set's order; and a
// read (Values) after ℓ more points, which centred adds the (ℓ+1)-dimensional
// eigenproblem and the D×(ℓ+1) product to the sketch's SVD. points/s and reads/s are
// reported; run with -count to compare (docs/design.md, "Centred SKPCA").
func BenchmarkSKPCACentring(b *testing.B) {
	for _, set := range []struct {
		name        string
		X           *mat.Dense
		standardise bool
	}{{"cpu_act", data.CPUAct().X, true}, {"a9a", data.A9A().X, false}} {
		n, d := set.X.Dims()
		X := mat.DenseCopyOf(set.X)
		if set.standardise {
			synth.Standardise(X)
		}
		sigma, err := kernel.MedianDistance(X, 1000)
		if err != nil {
			b.Fatal(err)
		}
		for _, uncentred := range []bool{false, true} {
			name := set.name + "/centred"
			if uncentred {
				name = set.name + "/uncentred"
			}
			opts := SKPCAOptions{Features: 1000, Sketch: 20, Seed: 1, Uncentred: uncentred}
			s, err := NewSKPCA(kernel.RBF{Sigma: sigma}, d, opts)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.AddBatch(X.Slice(0, 2000, 0, d)); err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/Add", func(b *testing.B) {
				b.ReportAllocs()
				i := 2000
				for b.Loop() {
					if err := s.Add(X.RawRowView(i % n)); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
			})
			b.Run(name+"/read", func(b *testing.B) {
				i := 0
				for b.Loop() {
					b.StopTimer()
					for range 20 {
						_ = s.Add(X.RawRowView(i % n))
						i++
					}
					b.StartTimer()
					s.Values(nil)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
			})
		}
	}
}
