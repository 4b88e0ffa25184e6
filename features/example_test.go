package features_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kernel"
)

// Random Fourier features approximate the Gaussian kernel by an inner product.
func ExampleRFF() {
	rff, err := features.NewRFF(kernel.RBF{Sigma: 1}, 2, features.RFFOptions{Dim: 4096, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, y := []float64{0.2, -0.4}, []float64{0.9, 0.3}
	zx, zy := make([]float64, 4096), make([]float64, 4096)
	_ = rff.Map(zx, x)
	_ = rff.Map(zy, y)
	dot := floats.Dot(zx, zy)
	exact := rff.Kernel().Eval(x, y)
	fmt.Printf("exact %.3f, approximate %.3f, |error| < 2/√D: %v\n", exact, dot, math.Abs(dot-exact) < 2/math.Sqrt(4096))
	// Output: exact 0.613, approximate 0.601, |error| < 2/√D: true
}
