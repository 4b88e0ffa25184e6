package synth

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// SelectRows returns a new matrix of the rows idx[0], idx[1], … of X, in that order:
// with idx a prefix of rng.Perm(rows), a sample of the points without replacement, in a
// random order.
func SelectRows(X *mat.Dense, idx []int) *mat.Dense {
	_, d := X.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for i, r := range idx {
		out.SetRow(i, X.RawRowView(r))
	}
	return out
}

// Standardise scales the columns of train to zero mean and unit standard deviation (n
// in the denominator), and those of others by the same statistics, train's: test points
// are scaled as the training points were. A constant column is only centred.
func Standardise(train *mat.Dense, others ...*mat.Dense) {
	n, d := train.Dims()
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
		for _, m := range append([]*mat.Dense{train}, others...) {
			r, _ := m.Dims()
			for i := range r {
				m.Set(i, j, (m.At(i, j)-mean)/sd)
			}
		}
	}
}
