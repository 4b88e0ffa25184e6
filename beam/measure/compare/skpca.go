package main

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/stream"
)

// compareSKPCA fits stream.SKPCA with the pipeline's options to the points one at a
// time and checks the eigenvalues against the certified bounds.
func compareSKPCA(pipe *ikpcabeam.SKPCA, files []string) error {
	single, err := stream.NewSKPCA(pipe.Kernel(), pipe.Dim(), pipe.Options())
	if err != nil {
		return err
	}
	start := time.Now()
	err = readPoints(files, pipe.Dim(), func(X *mat.Dense) error {
		n, _ := X.Dims()
		for i := range n {
			if err := single.Add(X.RawRowView(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	a, c := pipe.Values(nil), single.Values(nil)
	elapsed := time.Since(start)
	slack := pipe.ErrorBound() + single.ErrorBound()
	var worst float64
	for i := range min(len(a), len(c)) {
		worst = math.Max(worst, math.Abs(a[i]-c[i]))
	}
	fmt.Printf("SKPCA: points: pipeline %d, single process %d\n", pipe.Len(), single.Len())
	fmt.Printf("certified bounds: pipeline Δ = %.6g, single process Δ' = %.6g\n", pipe.ErrorBound(), single.ErrorBound())
	fmt.Printf("largest eigenvalue difference %.6g = %.3g·(Δ + Δ'), λ₁ = %.6g\n", worst, worst/slack, c[0])
	fmt.Printf("single-process fit (reading included): %v\n", elapsed.Round(time.Millisecond))
	if worst > slack*(1+1e-9) || pipe.Len() != single.Len() {
		return fmt.Errorf("the models differ beyond their bounds")
	}
	return nil
}
