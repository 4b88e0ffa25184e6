package streaming

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/study"
)

// DataSets are the data sets the kernel-approximation comparison knows: cpu_act (columns
// standardised), a9a (binary features, as they are) and magic (standardised).
var DataSets = []string{"cpu_act", "a9a", "magic"}

// load returns n training and test points of the data set, drawn without replacement
// in a seeded random order, the columns standardised by the training points' statistics
// where the data set needs it.
func load(name string, n, test int, seed uint64) (train, testX *mat.Dense, err error) {
	var X *mat.Dense
	standardise := true
	switch name {
	case "cpu_act":
		X = data.CPUAct().X
	case "a9a":
		X = data.A9A().X
		standardise = false
	case "magic":
		X = data.Magic().X
	default:
		return nil, nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, name, slices.Clone(DataSets))
	}
	rows, d := X.Dims()
	if n < 2 || test < 1 || n+test > rows {
		return nil, nil, fmt.Errorf("%w: %d training and %d test points from %d rows", study.ErrOptions, n, test, rows)
	}
	perm := rand.New(rand.NewPCG(seed, 0x57)).Perm(rows)
	train, testX = mat.NewDense(n, d, nil), mat.NewDense(test, d, nil)
	for i := range n {
		train.SetRow(i, X.RawRowView(perm[i]))
	}
	for i := range test {
		testX.SetRow(i, X.RawRowView(perm[n+i]))
	}
	if standardise {
		// Scale by the training points' statistics (constant columns left alone).
		for j := range d {
			var mean, ss float64
			for i := range n {
				mean += train.At(i, j)
			}
			mean /= float64(n)
			for i := range n {
				v := train.At(i, j) - mean
				ss += v * v
			}
			sd := math.Sqrt(ss / float64(n))
			if sd == 0 {
				sd = 1
			}
			for _, m := range []*mat.Dense{train, testX} {
				r, _ := m.Dims()
				for i := range r {
					m.Set(i, j, (m.At(i, j)-mean)/sd)
				}
			}
		}
	}
	return train, testX, nil
}
