package kpca_test

import (
	"fmt"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// Hallgren and Northrop's algorithms (RankOneModel) and the bordered method (Model)
// fitted on 20 Yeast points and fed 20 more: the same eigenvalues to rounding, at five
// updates a centred point, four of them m×m×m products, instead of one (UpdateStats).
func ExampleFitRankOne() {
	X := data.Yeast().X
	k := kernel.RBF{Gamma: 4}
	opts := kpca.Options{Components: kpca.All}
	paper, err := kpca.FitRankOne(k, X.Slice(0, 20, 0, 8), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	bordered, err := kpca.Fit(k, X.Slice(0, 20, 0, 8), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 20; i < 40; i++ {
		if err := paper.Add(X.RawRowView(i)); err != nil {
			fmt.Println(err)
			return
		}
		if err := bordered.Add(X.RawRowView(i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("rank-one: %.6f\n", paper.Values(nil)[:3])
	fmt.Printf("bordered: %.6f\n", bordered.Values(nil)[:3])
	fmt.Println("updates of the last point:", len(paper.UpdateStats(nil)), "and", len(bordered.UpdateStats(nil)))
	// Output:
	// rank-one: [4.564838 3.478120 1.428963]
	// bordered: [4.564838 3.478120 1.428963]
	// updates of the last point: 5 and 1
}
