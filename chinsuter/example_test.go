package chinsuter_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/kernel"
)

// The compressed form keeps at most (r+1)·n′ pre-images, however long the stream.
func ExampleCompression() {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(2000, 2, nil)
	for i := range 2000 {
		x := 2*rng.Float64() - 1
		X.Set(i, 0, x)
		X.Set(i, 1, x*x+0.2*rng.NormFloat64())
	}
	md, err := chinsuter.New(kernel.RBF{Sigma: 1}, X.Slice(0, 50, 0, 2), chinsuter.Options{
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
