package kpca_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// Mean-adjusted kernel PCA of the Yeast data, built one point at a time and used to
// project new points.
func ExampleModel() {
	// No set-up: a build with -tags openblas runs the updates on OpenBLAS.
	x := data.Yeast().X
	sigma, err := kernel.MedianDistance(x, 1000) // the paper's bandwidth heuristic
	if err != nil {
		fmt.Println(err)
		return
	}
	k := kernel.RBF{Sigma: sigma}

	// Start from 10 points, then add 290 more one at a time.
	model, err := kpca.New(k, x.Slice(0, 10, 0, 8), kpca.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 10; i < 300; i++ {
		if err := model.Add(x.RawRowView(i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	values := model.Values(nil)
	ev := model.ExplainedVariance(nil)
	fmt.Printf("%d points, leading eigenvalues %.4f %.4f %.4f\n", model.Len(), values[0], values[1], values[2])
	fmt.Printf("explained variance of the first two: %.3f\n", ev[0]+ev[1])

	// Project two new points onto the first two components (each component's sign is
	// fixed by its largest entry, so scores are reproducible).
	var scores mat.Dense
	if err := model.Transform(&scores, x.Slice(300, 302, 0, 8), 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("scores %.4f %.4f\n", scores.At(0, 0), scores.At(1, 1))
	// Output:
	// 300 points, leading eigenvalues 32.3382 24.1332 12.0309
	// explained variance of the first two: 0.443
	// scores 0.1667 -0.4850
}
