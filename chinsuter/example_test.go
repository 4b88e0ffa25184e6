package chinsuter_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/kernel"
)

// Fit a model of the first 50 points of a noisy parabola in one batch, add the other
// 150 in chunks of 10, and compare with the batch fit of all 200: the exact form's
// eigenvalues are batch kernel PCA's, to rounding.
func ExampleFit() {
	rng := rand.New(rand.NewPCG(3, 4))
	X := mat.NewDense(200, 2, nil)
	for i := range 200 {
		x := 2*rng.Float64() - 1
		X.Set(i, 0, x)
		X.Set(i, 1, x*x+0.2*rng.NormFloat64())
	}
	k := kernel.RBF{Sigma: 1}
	md, err := chinsuter.Fit(k, X.Slice(0, 50, 0, 2), chinsuter.Options{})
	if err != nil {
		panic(err)
	}
	for i := 50; i < 200; i += 10 {
		if err := md.AddBatch(X.Slice(i, i+10, 0, 2)); err != nil {
			panic(err)
		}
	}
	batch, err := chinsuter.Fit(k, X, chinsuter.Options{})
	if err != nil {
		panic(err)
	}
	got, want := md.Values(nil), batch.Values(nil)
	var worst float64
	for j := range 10 {
		worst = math.Max(worst, math.Abs(got[j]-want[j])/want[0])
	}
	fmt.Printf("%d points; leading eigenvalues %.3f %.3f %.3f\n", md.Len(), got[0], got[1], got[2])
	fmt.Printf("the top 10 agree with the batch fit's to 1e-10·λ₁: %v\n", worst < 1e-10)
	// Output:
	// 200 points; leading eigenvalues 36.400 20.621 3.735
	// the top 10 agree with the batch fit's to 1e-10·λ₁: true
}

// The compressed form keeps at most (r+1)·n′ pre-images, however long the stream.
func ExampleCompression() {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(2000, 2, nil)
	for i := range 2000 {
		x := 2*rng.Float64() - 1
		X.Set(i, 0, x)
		X.Set(i, 1, x*x+0.2*rng.NormFloat64())
	}
	md, err := chinsuter.Fit(kernel.RBF{Sigma: 1}, X.Slice(0, 50, 0, 2), chinsuter.Options{
		Components:  5,
		Compression: &chinsuter.Compression{PreImages: 10},
	})
	if err != nil {
		panic(err)
	}
	for i := 50; i < 2000; i += 50 {
		if err := md.AddBatch(X.Slice(i, i+50, 0, 2)); err != nil { // chunks of c = 50
			panic(err)
		}
	}
	st := md.Stats()
	fmt.Printf("%d points, %d components\n", md.Len(), md.Components())
	fmt.Printf("at most (r+1)·n′ = 60 pre-images: %v\n", md.Expansion() <= 60)
	fmt.Printf("axes orthonormal to 1e-12 after the last compression: %v\n", st.Orthogonality < 1e-12)
	// Output:
	// 2000 points, 5 components
	// at most (r+1)·n′ = 60 pre-images: true
	// axes orthonormal to 1e-12 after the last compression: true
}
