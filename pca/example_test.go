package pca_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/pca"
)

// ExampleModel replaces gonum's stat.PC in a stream: a PCA of 1000 MAGIC points, then
// 500 more added one at a time — one rank-one update each, no refit — agrees with
// stat.PC of all 1500.
func ExampleModel() {
	X := data.Magic().X
	model, err := pca.Fit(X.Slice(0, 1000, 0, 10), pca.Options{Components: 3})
	if err != nil {
		panic(err)
	}
	for i := 1000; i < 1500; i++ {
		if err := model.Add(X.RawRowView(i)); err != nil {
			panic(err)
		}
	}

	var pc stat.PC
	pc.PrincipalComponents(X.Slice(0, 1500, 0, 10), nil)
	want := pc.VarsTo(nil)
	got := model.VarsTo(nil)
	var worst float64
	for j, v := range got {
		worst = math.Max(worst, math.Abs(v-want[j])/want[0])
	}
	fmt.Printf("points: %d\n", model.Len())
	fmt.Printf("variances: %.1f\n", got)
	fmt.Printf("explained: %.3f\n", model.ExplainedVariance(nil))
	fmt.Printf("stat.PC agrees to 1e-12: %v\n", worst < 1e-12)

	var scores mat.Dense
	if err := model.Transform(&scores, X.Slice(0, 2, 0, 10), 2); err != nil {
		panic(err)
	}
	fmt.Printf("scores of the first point: %.2f\n", scores.RawRowView(0))
	// Output:
	// points: 1500
	// variances: [5451.2 1717.1 965.8]
	// explained: [0.607 0.191 0.108]
	// stat.PC agrees to 1e-12: true
	// scores of the first point: [-110.55 22.04]
}
