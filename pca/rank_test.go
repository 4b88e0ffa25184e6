package pca

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/synth"
)

// TestRank: the rank-r form streamed over MAGIC (d = 10, rank 4) and the Fashion-MNIST
// sample (d = 784, rank 30), with removals, reports top eigenvalues that its
// certificate's intervals hold — lo ≤ λⱼ(S) ≤ hi against stat.PC of the same points —
// and ErrorBound bounds their error. The intervals are exact bounds up to the rounding
// they include (64ε·scale a step); stat.PC's own rounding, d·ε·λ₁, is allowed on top.
// The accuracy itself is logged, not asserted: it depends on the spectrum beyond r.
func TestRank(t *testing.T) {
	for _, c := range []struct {
		name        string
		X           *mat.Dense
		n, rank, k  int
		removeEvery int
	}{
		{"MAGIC", data.Magic().X, 2000, 4, 2, 5},
		{"Fashion-MNIST", data.FashionMNISTSample().X, 300, 30, 5, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, d := c.X.Dims()
			m := mustNew(t, d, Options{Components: c.k, Rank: c.rank})
			var held []int
			for i := range c.n {
				if err := m.Add(c.X.RawRowView(i)); err != nil {
					t.Fatal(err)
				}
				held = append(held, i)
				if i%c.removeEvery == c.removeEvery-1 {
					r := held[len(held)/2]
					if err := m.Remove(c.X.RawRowView(r)); err != nil {
						t.Fatal(err)
					}
					held = append(held[:len(held)/2], held[len(held)/2+1:]...)
				}
			}
			want, _ := reference(t, synth.SelectRows(c.X, held), nil)
			scale := float64(len(held) - 1) // stat.PC's variances are S/(n−1)
			lo, hi := m.ValueBounds(nil, nil)
			got := m.Values(nil)
			bound := m.ErrorBound()
			slack := float64(d) * 0x1p-52 * want[0] * scale
			var worst float64
			for j := range got {
				truth := want[j] * scale
				worst = math.Max(worst, math.Abs(got[j]-truth)/(want[0]*scale))
				if !(lo[j]-slack <= truth && truth <= hi[j]+slack) {
					t.Errorf("λ%d = %.17g outside [%.17g, %.17g]", j, truth, lo[j], hi[j])
				}
				if !(math.Abs(got[j]-truth) <= bound+slack) {
					t.Errorf("λ%d off by %g, ErrorBound %g", j, math.Abs(got[j]-truth), bound)
				}
			}
			t.Logf("%s, %d points held, rank %d: top %d within %.2g·λ₁, ErrorBound %.2g·λ₁", c.name, len(held), c.rank, c.k,
				worst, bound/(want[0]*scale))
		})
	}
}

// TestRankExact: a rank-r model of at most r points drops nothing — each point adds one
// pair — so it is exact: its top eigenvalues are stat.PC's to the tolerances of
// TestStatPCMagic, and ErrorBound is rounding only (64ε·scale a step).
func TestRankExact(t *testing.T) {
	X := mat.DenseCopyOf(data.FashionMNISTSample().X.Slice(0, 25, 0, 784))
	m := mustFit(t, X, Options{Components: 5, Rank: 30})
	compareReference(t, "rank 30, 25 points", m, X, nil, 1e-11, 1e-10)
	var lead float64
	if v := m.Values(nil); len(v) > 0 {
		lead = v[0]
	}
	if b := m.ErrorBound(); !(b <= 1e-12*lead) {
		t.Errorf("ErrorBound %g with nothing dropped (λ₁ = %g)", b, lead)
	}
}
