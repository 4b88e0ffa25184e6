package kernel_test

import (
	"errors"
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
)

// A kernel column k(X_i, x) of an RBF kernel for the rows of X.
func ExampleColumn() {
	X := mat.NewDense(4, 2, []float64{
		0, 0,
		1, 0,
		0, 2,
		3, 4,
	})
	k := kernel.RBF{Sigma: 1}
	if err := kernel.Validate(k); err != nil {
		log.Fatal(err)
	}
	col := make([]float64, 4)
	kernel.Column(col, k, X, []float64{0, 0})
	fmt.Println(k)
	for i, v := range col {
		fmt.Printf("k(X_%d, x) = %.6g\n", i, v)
	}
	// Output:
	// rbf(σ=1)
	// k(X_0, x) = 1
	// k(X_1, x) = 0.606531
	// k(X_2, x) = 0.135335
	// k(X_3, x) = 3.72665e-06
}

// The median heuristic for the bandwidth of an RBF kernel. The six pairwise
// distances of the four points are 1, 2, √5, √13, √20 and 5; the median is
// the mean of the middle two, (√5 + √13)/2.
func ExampleMedianDistance() {
	X := mat.NewDense(4, 2, []float64{
		0, 0,
		1, 0,
		0, 2,
		3, 4,
	})
	sigma, err := kernel.MedianDistance(X, 1000)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("σ = %.6f\n", sigma)

	// Only the first three rows: distances 1, 2, √5, median 2.
	sigma3, err := kernel.MedianDistance(X, 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("σ (first 3 rows) =", sigma3)
	fmt.Println(kernel.RBF{Sigma: sigma3})
	// Output:
	// σ = 2.920810
	// σ (first 3 rows) = 2
	// rbf(σ=2)
}

// A kernel is saved as a Spec and rebuilt with New, exactly as it was given.
func ExampleNew() {
	saved := kernel.Polynomial{Degree: 3, Gamma: 0.5, Coef0: 1}.Spec()
	fmt.Printf("%+v\n", saved)

	k, err := kernel.New(saved)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(k, k.Eval([]float64{1, 2, 3}, []float64{4, 0, 3}))

	// A Func is saved by name only, and rebuilt once registered (see Register).
	f := kernel.Func{Name: "first-min", F: func(x, y []float64) float64 { return min(x[0], y[0]) }}
	_, err = kernel.New(f.Spec())
	fmt.Println(errors.Is(err, ikpca.ErrArgument))
	// Output:
	// {Name:polynomial Sigma:0 Gamma:0.5 Degree:3 Coef0:1}
	// polynomial(d=3, γ=0.5, c=1) 421.875
	// true
}

// An RBF kernel given by scikit-learn's gamma or by its bandwidth σ, γ = 1/(2σ²): the
// same kernel, which keeps the parameter given. Exactly one of the two is set.
func ExampleRBF() {
	x, y := []float64{0, 0}, []float64{1, 1}
	byGamma := kernel.RBF{Gamma: 0.5} // sklearn.metrics.pairwise.rbf_kernel(X, Y, gamma=0.5)
	bySigma := kernel.RBF{Sigma: 1}
	fmt.Println(byGamma, byGamma.Eval(x, y))
	fmt.Println(bySigma, bySigma.Eval(x, y))
	fmt.Printf("%+v\n", byGamma.Spec())

	err := kernel.Validate(kernel.RBF{Sigma: 1, Gamma: 0.5})
	fmt.Println(errors.Is(err, ikpca.ErrArgument))
	fmt.Println(err)
	// Output:
	// rbf(γ=0.5) 0.36787944117144233
	// rbf(σ=1) 0.36787944117144233
	// {Name:rbf Sigma:0 Gamma:0.5 Degree:0 Coef0:0}
	// true
	// kernel: invalid argument: rbf: set Sigma (σ = 1) or Gamma (γ = 0.5), not both: γ = 1/(2σ²)
}

// A user kernel registered by name is rebuilt from its Spec, as a model's decoder
// rebuilds the kernel of an encoding.
func ExampleRegister() {
	intersection := kernel.Func{Name: "histogram-intersection", F: func(x, y []float64) float64 {
		s := 0.0
		for i := range x {
			s += min(x[i], y[i])
		}
		return s
	}}
	if err := kernel.Register(intersection); err != nil {
		log.Fatal(err)
	}
	k, err := kernel.New(intersection.Spec())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(k, k.Eval([]float64{1, 5, 2}, []float64{3, 2, 2}))

	err = kernel.Register(kernel.Func{Name: "RBF", F: intersection.F})
	fmt.Println(errors.Is(err, ikpca.ErrArgument))
	// Output:
	// histogram-intersection 5
	// true
}

// Kernel blocks of new points against fixed points: a Cross prepares the fixed points
// once, and BlockTo fills a block of rows at a time into a caller's matrix, reusing its
// scratch (no allocation once it has grown), as a model's Transform does.
func ExampleCross() {
	landmarks := mat.NewDense(3, 2, []float64{
		0, 0,
		1, 0,
		0, 2,
	})
	c := kernel.NewCross(kernel.RBF{Sigma: 1}, landmarks)
	var work kernel.BlockWork
	points := mat.NewDense(2, 2, []float64{
		0, 0,
		1, 1,
	})
	block := mat.NewDense(2, 3, nil)
	c.BlockTo(block, points, &work)
	fmt.Printf("%.6f\n", mat.Formatted(block))
	// Output:
	// ⎡1.000000  0.606531  0.135335⎤
	// ⎣0.367879  0.606531  0.367879⎦
}
