package testmat

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// AddRows adds the rows from to to−1 of X to m, one Add at a time, failing the test on
// the first error.
func AddRows(tb testing.TB, m interface{ Add([]float64) error }, X *mat.Dense, from, to int) {
	tb.Helper()
	for i := from; i < to; i++ {
		if err := m.Add(X.RawRowView(i)); err != nil {
			tb.Fatal(err)
		}
	}
}
