package synth

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Toy returns n points of the seed paper's 2-D toy, x ~ U[−1, 1] and
// y = x² + N(0, 0.2²), drawn from rng (x then the noise, point by point).
func Toy(n int, rng *rand.Rand) *mat.Dense {
	X := mat.NewDense(n, 2, nil)
	for i := range n {
		x := 2*rng.Float64() - 1
		X.Set(i, 0, x)
		X.Set(i, 1, x*x+0.2*rng.NormFloat64())
	}
	return X
}
