package update

import (
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
)

// TestSetCheckIsOrderFree: whether SetEigen and Set accept vectors must not depend on the
// order in which the pairs come, since they store them sorted and a checkpoint saves
// them so: vectors that pass in one order and fail sorted would load once and never
// again (FuzzLoad found such a checkpoint). For orthonormal columns disturbed by δ
// around the 1e-8 threshold, with shuffled pairs, the call on the shuffled pairs and
// the call on the same pairs sorted must both succeed or both fail.
func TestSetCheckIsOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const n, k = 12, 5
	differ := 0
	for trial := range 400 {
		delta := 2e-9 * float64(1+trial%40)
		full := synth.RandomOrthogonal(n, rng)
		for _, cols := range []int{n, k} {
			V := mat.DenseCopyOf(full.Slice(0, n, 0, cols))
			for i := range n {
				for j := range cols {
					V.Set(i, j, V.At(i, j)+delta*rng.NormFloat64())
				}
			}
			values := make([]float64, cols)
			for j := range values {
				values[j] = float64(j) + rng.Float64()/2 // ascending: V sorted
			}
			perm := rng.Perm(cols)
			shuffled, sv := mat.NewDense(n, cols, nil), make([]float64, cols)
			for p, j := range perm {
				sv[p] = values[j]
				for i := range n {
					shuffled.Set(i, p, V.At(i, j))
				}
			}
			var errSorted, errShuffled error
			if cols == n {
				var a, b Sym
				errSorted, errShuffled = a.SetEigen(values, V), b.SetEigen(sv, shuffled)
			} else {
				var a, b Thin
				errSorted, errShuffled = a.SetEigen(values, V), b.SetEigen(sv, shuffled)
			}
			for _, err := range []error{errSorted, errShuffled} {
				if err != nil && !errors.Is(err, ErrNotOrthogonal) {
					t.Fatal(err)
				}
			}
			if (errSorted == nil) != (errShuffled == nil) {
				t.Fatalf("δ = %.3g, %d columns in the order %v: sorted %v, shuffled %v", delta, cols, perm, errSorted, errShuffled)
			}
			if errSorted != nil {
				differ++
			}
		}
	}
	// The range of δ must straddle the threshold, or the test shows nothing.
	if differ == 0 || differ == 800 {
		t.Fatalf("%d of 800 refused: δ does not straddle the threshold", differ)
	}
}
