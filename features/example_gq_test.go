package features_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kernel"
)

// Taylor-series features of degree 4 for 7-dimensional points: C(7+4, 4) = 330
// monomials, deterministic, and accurate while the points are within about σ of the
// origin.
func ExampleTaylor() {
	t, err := features.NewTaylor(kernel.RBF{Sigma: 2}, 7, features.TaylorOptions{Degree: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := []float64{0.3, -0.5, 0.1, 0.8, -0.2, 0.4, 0}
	y := []float64{0.1, -0.2, 0.6, 0.5, 0.3, -0.1, 0.2}
	zx, zy := make([]float64, t.OutDim()), make([]float64, t.OutDim())
	_ = t.Map(zx, x)
	_ = t.Map(zy, y)
	dot := floats.Dot(zx, zy)
	exact := t.Kernel().Eval(x, y)
	fmt.Printf("D = %d, exact %.6f, approximate %.6f, |error| < 1e-5: %v\n", t.OutDim(), exact, dot, math.Abs(dot-exact) < 1e-5)
	// Output: D = 330, exact 0.881394, approximate 0.881394, |error| < 1e-5: true
}

// Gaussian-quadrature features: the 5-point Gauss–Hermite tensor rule, subsampled to
// D/2 = 165 frequencies.
func ExampleQuadrature() {
	q, err := features.NewQuadrature(kernel.RBF{Sigma: 2}, 7, features.QuadratureOptions{Dim: 330, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := []float64{0.3, -0.5, 0.1, 0.8, -0.2, 0.4, 0}
	y := []float64{0.1, -0.2, 0.6, 0.5, 0.3, -0.1, 0.2}
	zx, zy := make([]float64, 330), make([]float64, 330)
	_ = q.Map(zx, x)
	_ = q.Map(zy, y)
	dot, norm := floats.Dot(zx, zy), floats.Dot(zx, zx)
	fmt.Printf("exact %.3f, approximate %.3f, ‖z(x)‖² = %.3f\n", q.Kernel().Eval(x, y), dot, norm)
	// Output: exact 0.881, approximate 0.847, ‖z(x)‖² = 1.000
}

// The full tensor rule, feasible in low dimension, reproduces the kernel of nearby
// points almost exactly with no randomness.
func ExampleQuadrature_fullRule() {
	q, err := features.NewQuadrature(kernel.RBF{Sigma: 1}, 2, features.QuadratureOptions{Points: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, y := []float64{0.2, -0.4}, []float64{0.9, 0.3}
	zx, zy := make([]float64, q.OutDim()), make([]float64, q.OutDim())
	_ = q.Map(zx, x)
	_ = q.Map(zy, y)
	dot := floats.Dot(zx, zy)
	fmt.Printf("D = %d, exact %.8f, approximate %.8f\n", q.OutDim(), q.Kernel().Eval(x, y), dot)
	// Output: D = 64, exact 0.61262639, approximate 0.61262639
}
