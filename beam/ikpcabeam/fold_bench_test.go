package ikpcabeam

import (
	"context"
	"fmt"
	"testing"

	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// BenchmarkFoldBundle times one bundle of 1024 points through a fit's fold on a
// Nyström prototype of r landmarks (d = 10, RBF, blocks of 256): "decoded" decodes and
// validates the prototype at the bundle's start, as every bundle did before the decode
// cache (sideKey); "cached" hashes the side input's bytes and resets the model. The
// difference of the two is the decoding a bundle saves. Reports points/s. The
// "start=" benchmarks time a bundle's start alone: a decoding, and a hash and Reset.
func BenchmarkFoldBundle(b *testing.B) {
	const d, points = 10, 1024
	X := curve(points, d, 3)
	for _, r := range []int{200, 1000} {
		proto, err := newNystromModel(curve(r, d, 4), NystromOptions{Dim: d, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}})
		if err != nil {
			b.Fatal(err)
		}
		enc := wiretest.Marshal(b, proto)
		// A bundle's start alone: decoding the prototype, against hashing its bytes and
		// resetting the model decoded before.
		b.Run(fmt.Sprintf("r=%d/start=decode", r), func(b *testing.B) {
			for range b.N {
				if _, err := DecodeSummary(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("r=%d/start=cached", r), func(b *testing.B) {
			fn := &foldFn{Block: 256}
			side := func(dst *[]byte) bool { *dst = enc; return true }
			for range b.N {
				if err := fn.start(side); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, how := range []string{"decoded", "cached"} {
			b.Run(fmt.Sprintf("r=%d/%s", r, how), func(b *testing.B) {
				fn := &foldFn{Block: 256}
				side := func(dst *[]byte) bool { *dst = enc; return true }
				emit := func(int, []byte) {}
				dead := func(DeadLetter) { b.Fatal("a dead letter") }
				bundle := func() {
					fn.StartBundle(side, emit, dead)
					for i := range points {
						if err := fn.ProcessElement(Point{X: X.RawRowView(i)}, side, emit, dead); err != nil {
							b.Fatal(err)
						}
					}
					if err := fn.FinishBundle(context.Background(), side, emit, dead); err != nil {
						b.Fatal(err)
					}
				}
				bundle()
				b.ResetTimer()
				for range b.N {
					if how == "decoded" {
						fn.side.set(modelKey{}, false)
					}
					bundle()
				}
				b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
			})
		}
	}
}
