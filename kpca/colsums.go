package kpca

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
)

// The column sums of the blocks a pass takes and returns (docs/design.md, "Passes over
// the points"): each column's mean, which centring removes — K′Q = C·(K·Q) for the
// columns of Q orthogonal to 1 — and the largest sum of squares, a block's norm.

// centreColumns subtracts from each column of A its mean: A ← C·A.
func centreColumns(A *mat.Dense) {
	_, c := A.Dims()
	centreColumnsWith(A, make([]float64, c))
}

// centreColumnsWith is centreColumns with the scratch mean, of A's number of columns.
func centreColumnsWith(A *mat.Dense, mean []float64) {
	raw := A.RawMatrix()
	vec.CentreColumns(raw.Data, raw.Rows, raw.Cols, raw.Stride, mean)
}

// centreColumnsSum2 is centreColumnsWith with each column's sum compensated (Sum2, Ogita,
// Rump and Oishi 2005: within ε·|s| + γ²ₘ·Σ|aᵢⱼ| of the exact sum, where the plain sum's
// bound is γₘ·Σ|aᵢⱼ|), for a certificate (passer.own). mean must have A's number of
// columns; the compensations take a second scratch of that length, allocated.
func centreColumnsSum2(A *mat.Dense, mean []float64) {
	r, c := A.Dims()
	comp := make([]float64, c)
	clear(mean)
	for i := range r {
		for j, v := range A.RawRowView(i) {
			s := mean[j]
			t := s + v
			z := t - s
			comp[j] += (s - (t - z)) + (v - z)
			mean[j] = t
		}
	}
	for j := range mean {
		mean[j] = (mean[j] + comp[j]) / float64(r)
	}
	for i := range r {
		row := A.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
}

// maxColumnNorm returns the largest Euclidean norm of a column of A: ‖A‖₂ within a
// factor √c. It sums the squares a row at a time rather than calling BLAS's dnrm2 on each
// column (mat.Norm), which reaches gonum's blas64 registry instead of package native — and
// a window's self-polish runs in Add's path (TestBackendRoute). The products it measures
// are finite and far from overflow.
func maxColumnNorm(A *mat.Dense) float64 {
	r, c := A.Dims()
	sums := make([]float64, c)
	for i := range r {
		for j, v := range A.RawRowView(i) {
			sums[j] += v * v
		}
	}
	var best float64
	for _, s := range sums {
		best = math.Max(best, s)
	}
	return math.Sqrt(best)
}
