package streaming

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/synth"
)

// DataSets are the data sets the kernel-approximation comparison knows: cpu_act (columns
// standardised), a9a (binary features, as they are) and magic (standardised).
var DataSets = []string{"cpu_act", "a9a", "magic"}

// load returns n training and test points of the data set, drawn without replacement
// in a seeded random order, the columns standardised by the training points' statistics
// where the data set needs it.
func load(name string, n, test int, seed uint64) (train, testX *mat.Dense, err error) {
	if !slices.Contains(DataSets, name) {
		return nil, nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, name, slices.Clone(DataSets))
	}
	ds, _ := data.ByName(name)
	X := ds.X
	rows, _ := X.Dims()
	if n < 2 || test < 1 || n > rows || test > rows-n { // no n+test: it could overflow
		return nil, nil, fmt.Errorf("%w: %d training and %d test points from %d rows", study.ErrOptions, n, test, rows)
	}
	perm := rand.New(rand.NewPCG(seed, 0x57)).Perm(rows)
	train, testX = synth.SelectRows(X, perm[:n]), synth.SelectRows(X, perm[n:n+test])
	if name != "a9a" { // binary features, as they are
		// Scale by the training points' statistics.
		synth.Standardise(train, testX)
	}
	return train, testX, nil
}
