package nystrom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// points returns n rows of a data set in a seeded random order: MAGIC and Yeast with
// their columns standardised (MAGIC's file is sorted by class, and its columns differ in
// scale by orders of magnitude), a9a's 123 binary columns as they are (densified by the
// loader). n = 0 means every row.
func points(t testing.TB, name string, n int, seed uint64) *mat.Dense {
	t.Helper()
	X := testmat.Dataset(t, name).X
	rows, _ := X.Dims()
	if n == 0 {
		n = rows
	}
	out := synth.SelectRows(X, rand.New(rand.NewPCG(seed, 99)).Perm(rows)[:n])
	if name != "a9a" {
		synth.Standardise(out)
	}
	return out
}

// rbfMedian is the Gaussian kernel with the median distance of the first 1000 rows.
var rbfMedian = testmat.MedianRBF

// rows returns rows [i, j) of X as a *mat.Dense view.
func rows(X *mat.Dense, i, j int) *mat.Dense {
	_, d := X.Dims()
	return X.Slice(i, j, 0, d).(*mat.Dense)
}

// fit returns a model of the rows of X with the landmarks L, all rows added by AddBatch.
func fit(t testing.TB, k kernel.Kernel, L, X *mat.Dense, opts Options) *Model {
	t.Helper()
	m, err := New(k, L, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	return m
}

// maxRelDiff returns max |a − b| / scale over the first len(a) entries.
func maxRelDiff(a, b []float64, scale float64) float64 {
	var worst float64
	for i := range a {
		worst = math.Max(worst, math.Abs(a[i]-b[i])/scale)
	}
	return worst
}

// sine returns the sine of the largest principal angle between the spans of the
// columns of A and B (n×k each): ‖(I − Q_B Q_Bᵀ)Q_A‖₂.
func sine(A, B mat.Matrix) float64 {
	qa, qb := orthonormal(A), orthonormal(B)
	var c, res mat.Dense
	c.Mul(qb.T(), qa)
	res.Mul(qb, &c)
	res.Sub(qa, &res)
	return mat.Norm(&res, 2)
}

func orthonormal(A mat.Matrix) *mat.Dense {
	r, k := A.Dims()
	var qr mat.QR
	qr.Factorize(A)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, r, 0, k))
}

// firstRows returns the first n rows of a data set as they are, the points of the
// Approximation's tests (as in package kpca, where they were measured first).
var firstRows = testmat.FirstRows
