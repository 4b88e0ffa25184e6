package features

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
)

// TestTransformParallel checks that RFF.Transform gives the same features, bit for bit,
// whether its sines and cosines run on one goroutine or several, for any GOMAXPROCS,
// and the same as Map point by point to 1e-15: Map's gemv and Transform's dgemm sum ωᵀx
// in different orders, which moves it by about d·ε·|ω|ᵀ|x| (< 1e-14 here), and the
// features are that times at most √(2/D) = 0.18.
func TestTransformParallel(t *testing.T) {
	saved := parallelFeatures
	t.Cleanup(func() { parallelFeatures = saved })
	rng := rand.New(rand.NewPCG(6, 6))
	X := synth.Normal(37, 5, rng)
	for _, form := range []Form{CosSin, RandomPhase} {
		r, err := NewRFF(kernel.RBF{Sigma: 1.5}, 5, RFFOptions{Dim: 64, Form: form, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		parallelFeatures = 1 << 62
		var ref mat.Dense
		if err := r.Transform(&ref, X); err != nil {
			t.Fatal(err)
		}
		parallelFeatures = 1
		for _, p := range []int{1, 2, 3, 8} {
			old := runtime.GOMAXPROCS(p)
			var got mat.Dense
			err := r.Transform(&got, X)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(&got, &ref) {
				t.Fatalf("%v: GOMAXPROCS=%d changes the features", form, p)
			}
		}
		z := make([]float64, 64)
		for i := range 37 {
			if err := r.Map(z, X.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
			for j, v := range z {
				if d := v - ref.At(i, j); d > 1e-15 || d < -1e-15 {
					t.Fatalf("%v: row %d feature %d: Transform %v, Map %v", form, i, j, ref.At(i, j), v)
				}
			}
		}
	}
}
