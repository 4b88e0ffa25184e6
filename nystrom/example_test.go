package nystrom_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
)

// Fit Nyström kernel PCA on two shards of Yeast with the same landmarks — one shipped
// to the other's process as bytes — merge them, and project a point.
func Example() {
	X := data.Yeast().X
	n, d := X.Dims()
	k := kernel.RBF{Sigma: 0.3}

	// Landmarks from a sample (here the first 500 rows), then an empty model.
	L, err := nystrom.Choose(k, X.Slice(0, 500, 0, d), nystrom.Options{Rank: 50, Seed: 1})
	if err != nil {
		panic(err)
	}
	proto, err := nystrom.New(k, L, nystrom.Options{})
	if err != nil {
		panic(err)
	}

	// Two shards: one here, one "elsewhere", started from the prototype's bytes.
	a := proto.Empty()
	if err := a.AddBatch(X.Slice(0, n/2, 0, d)); err != nil {
		panic(err)
	}
	wire, err := proto.MarshalBinary()
	if err != nil {
		panic(err)
	}
	var b nystrom.Model
	if err := b.UnmarshalBinary(wire); err != nil {
		panic(err)
	}
	if err := b.AddBatch(X.Slice(n/2, n, 0, d)); err != nil {
		panic(err)
	}
	if err := a.Merge(&b); err != nil {
		panic(err)
	}

	var scores mat.Dense
	if err := a.Transform(&scores, X.Slice(0, 1, 0, d), 2); err != nil {
		panic(err)
	}
	ev := a.ExplainedVariance(nil)
	fmt.Printf("%d points, %d features; the first two components explain %.0f%%\n", a.Len(), a.Features(), 100*(ev[0]+ev[1]))
	// Output:
	// 1484 points, 50 features; the first two components explain 41%
}
