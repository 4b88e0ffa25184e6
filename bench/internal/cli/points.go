package cli

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
)

// Points returns the points a measurement of the certified models runs on: MAGIC in
// the seeded random order of bench/points (seed 1; all 19,020 for n = 0), or the first
// n images of Fashion-MNIST (train, then test).
func Points(dataset string, n int) (*mat.Dense, error) {
	if dataset == "fashion-mnist" {
		ds, err := data.FashionMNIST("", n)
		if err != nil {
			return nil, err
		}
		return ds.X, nil
	}
	ds, _ := data.ByName("magic")
	return ds.Shuffled(n, 1), nil
}
