package nystrom_test

import (
	"fmt"
	"math"

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
	L, err := nystrom.Choose(k, X.Slice(0, 500, 0, d), nystrom.Options{Landmarks: 50, Seed: 1})
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

// Two shards of Yeast fitted with the same landmarks and merged give the model of one
// pass over all the points: the same eigenvalues, to rounding (the sums are
// compensated, so the order of the additions hardly matters).
func ExampleModel_Merge() {
	X := data.Yeast().X
	n, d := X.Dims()
	k := kernel.RBF{Sigma: 0.3}
	L, err := nystrom.Choose(k, X, nystrom.Options{Landmarks: 40, Seed: 2})
	if err != nil {
		panic(err)
	}

	// One pass over every point.
	one, err := nystrom.New(k, L, nystrom.Options{})
	if err != nil {
		panic(err)
	}
	if err := one.AddBatch(X); err != nil {
		panic(err)
	}

	// Two shards on the same landmarks — Empty shares the feature map — then merged.
	first := one.Empty()
	second := one.Empty()
	if err := first.AddBatch(X.Slice(0, n/3, 0, d)); err != nil {
		panic(err)
	}
	for i := n / 3; i < n; i++ { // the second shard point by point
		if err := second.Add(X.RawRowView(i)); err != nil {
			panic(err)
		}
	}
	if err := first.Merge(second); err != nil {
		panic(err)
	}

	want, got := one.Values(nil), first.Values(nil)
	var worst float64
	for j := range want {
		worst = math.Max(worst, math.Abs(got[j]-want[j])/want[0])
	}
	fmt.Printf("%d and %d points; %d eigenvalues each\n", one.Len(), first.Len(), len(got))
	fmt.Printf("leading eigenvalues %.3f %.3f %.3f\n", got[0], got[1], got[2])
	fmt.Printf("merged and one pass agree to 1e-12·λ₁: %v\n", worst < 1e-12)
	// Output:
	// 1484 and 1484 points; 40 eigenvalues each
	// leading eigenvalues 155.099 109.818 76.213
	// merged and one pass agree to 1e-12·λ₁: true
}

// The incremental Nyström approximation of the kernel matrix of 300 points, and its
// error as landmarks are added.
func ExampleApproximation() {
	x := mat.DenseCopyOf(data.Yeast().X.Slice(0, 300, 0, 8))
	sigma, err := kernel.MedianDistance(x, 1000)
	if err != nil {
		panic(err)
	}
	ap, err := nystrom.NewApproximation(kernel.RBF{Sigma: sigma}, x, nystrom.ApproximationOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	for _, m := range []int{10, 50, 150} {
		if err := ap.Grow(m); err != nil {
			panic(err)
		}
		e, err := ap.Errors()
		if err != nil {
			panic(err)
		}
		fmt.Printf("m = %3d: ‖K − K̃‖ Frobenius %.3f, spectral %.3f, trace %.3f\n", m, e.Frobenius, e.Spectral, e.Trace)
	}
	// Output:
	// m =  10: ‖K − K̃‖ Frobenius 12.951, spectral 9.045, trace 44.188
	// m =  50: ‖K − K̃‖ Frobenius 4.057, spectral 3.634, trace 10.811
	// m = 150: ‖K − K̃‖ Frobenius 1.072, spectral 0.878, trace 2.100
}
