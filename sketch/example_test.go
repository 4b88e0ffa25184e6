package sketch_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/sketch"
)

// Two shards of a stream are sketched separately and merged; the certified bound Δ on
// ‖AᵀA − BᵀB‖₂ stays below ‖A‖_F²/(ℓ+1).
func ExampleFD() {
	rng := rand.New(rand.NewPCG(1, 2))
	a, _ := sketch.New(10, 50, sketch.Options{})
	b, _ := sketch.New(10, 50, sketch.Options{})
	row := make([]float64, 50)
	for i := range 2000 {
		for j := range row {
			row[j] = rng.NormFloat64() * float64(50-j) / 50 // decaying spectrum
		}
		shard := a
		if i%2 == 1 {
			shard = b
		}
		if err := shard.Update(row); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := a.Merge(b); err != nil {
		fmt.Println(err)
		return
	}
	var B mat.Dense
	if err := a.Sketch(&B); err != nil {
		fmt.Println(err)
		return
	}
	r, c := B.Dims()
	fmt.Printf("%d rows seen, sketch %d×%d, Δ/‖A‖_F² = %.3f ≤ 1/(ℓ+1) = %.3f\n",
		a.Count(), r, c, a.ErrorBound()/a.Frobenius2(), 1.0/11)
	// Output: 2000 rows seen, sketch 10×50, Δ/‖A‖_F² = 0.068 ≤ 1/(ℓ+1) = 0.091
}
