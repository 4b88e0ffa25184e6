package sketch

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkUpdate streams rows of dimension d = 1000 into sketches of ℓ rows with the
// fast (2ℓ) buffer and Liberty's ℓ+1: rows/s, and the SVD work per row, O(ℓ·d)
// amortised for the fast variant against O(ℓ²·d) per row for the original.
func BenchmarkUpdate(b *testing.B) {
	const d = 1000
	rng := rand.New(rand.NewPCG(1, 1))
	rows := make([][]float64, 256)
	for i := range rows {
		rows[i] = make([]float64, d)
		for j := range rows[i] {
			rows[i][j] = rng.NormFloat64() / float64(1+j%50)
		}
	}
	for _, ell := range []int{10, 50} {
		for _, variant := range []struct {
			name string
			buf  int
		}{{"fast", 0}, {"original", ell + 1}} {
			b.Run(fmt.Sprintf("ell=%d/%s", ell, variant.name), func(b *testing.B) {
				f, _ := New(ell, d, Options{Buffer: variant.buf})
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					_ = f.Update(rows[i%len(rows)])
					i++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
