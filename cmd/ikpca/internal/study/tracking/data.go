package tracking

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/data"
)

// DataSets are the data sets of the rank-r comparison: MAGIC (10 columns, as in
// data/magic04.data, not standardised) and a9a (123 binary columns).
var DataSets = []string{"magic", "a9a"}

// orderStream is the PCG stream of classStream's seeded order (with the seed as the
// other half of the state).
const orderStream = 0x7ad

// Points returns the first n points of a seeded random order of the rows of a data set
// ("magic" or "a9a"), as package data holds them (MAGIC's columns not standardised, as
// the command fit and scikit-learn read data/magic04.data): data.Dataset.Shuffled, the
// order bench/points writes for the command fit's comparison with scikit-learn.
// n ≤ 0 or more than the data set has: all of them. An unknown name is an error
// wrapping study.ErrOptions.
func Points(name string, n int, seed uint64) (*mat.Dense, error) {
	if dataset(name) == nil {
		return nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, name, DataSets)
	}
	ds, _ := data.ByName(name)
	return ds.Shuffled(n, seed), nil
}

// classSizes returns the number of rows of MAGIC's classes "g" and "h".
func classSizes() (g, h int) {
	for _, l := range data.Magic().Labels {
		switch l {
		case "g":
			g++
		case "h":
			h++
		}
	}
	return g, h
}

// rows returns the number of points Points returns for the data set (0 for an unknown
// one).
func rows(name string, n int) int {
	X := dataset(name)
	if X == nil {
		return 0
	}
	r, _ := X.Dims()
	if n <= 0 || n > r {
		return r
	}
	return n
}

// classStream returns MAGIC's two classes one after the other: perClass rows of class
// "g" (gamma) drawn at random, then perClass of class "h" (hadron), each class in a
// seeded random order — a stream whose distribution changes once, at row perClass.
func classStream(perClass int, seed uint64) (*mat.Dense, error) {
	ds := data.Magic()
	rows, d := ds.X.Dims()
	var byClass [2][]int
	for i, l := range ds.Labels {
		switch l {
		case "g":
			byClass[0] = append(byClass[0], i)
		case "h":
			byClass[1] = append(byClass[1], i)
		}
	}
	if perClass < 1 || perClass > min(len(byClass[0]), len(byClass[1])) {
		return nil, fmt.Errorf("%w: %d points of each MAGIC class (it has %d and %d of %d rows)", study.ErrOptions, perClass,
			len(byClass[0]), len(byClass[1]), rows)
	}
	rng := rand.New(rand.NewPCG(seed, orderStream))
	out := mat.NewDense(2*perClass, d, nil)
	for c, idx := range byClass {
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for i := range perClass {
			out.SetRow(c*perClass+i, ds.X.RawRowView(idx[i]))
		}
	}
	return out, nil
}

// dataset returns the points of the data set of the comparison ("magic" or "a9a"), or
// nil for an unknown name.
func dataset(name string) *mat.Dense {
	switch name {
	case "magic":
		return data.Magic().X
	case "a9a":
		return data.A9A().X
	}
	return nil
}
