package pca

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
)

// BenchmarkAddBatch times AddBatch of b rows to an exact model of dimension d by its two
// routes: b rank-one updates (Add) and one refactorisation. The ratio of a
// refactorisation to an Add is the crossover of the cost model (refactorAt,
// docs/design.md, "Linear PCA").
func BenchmarkAddBatch(b *testing.B) {
	for _, d := range []int{100, 400, 784} {
		X := synth.Normal(4*d+64, d, rand.New(rand.NewPCG(1, uint64(d))))
		m := mustFit(b, X.Slice(0, 2*d, 0, d), Options{Components: 1})
		var saved Model
		saved.replace(m)
		batch := X.Slice(2*d, 2*d+16, 0, d).(*mat.Dense)
		b.Run(fmt.Sprintf("d=%d/Add", d), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if err := m.Add(batch.RawRowView(i % 16)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("d=%d/refactor16", d), func(b *testing.B) {
			for b.Loop() {
				m.replace(&saved)
				if err := m.refactor(batch, 16); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
