// Package sign fixes the sign of eigenvectors as scikit-learn's svd_flip does, so that
// the same data give the same scores from every method, run and backend
// (docs/design.md, "Signs").
//
// An eigenvector is determined only up to its sign, and which sign a solver returns
// depends on its algorithm, the backend's kernels and the order the data came in. The
// rule: the entry of largest magnitude is made positive. Which vector the rule reads is
// each model's choice, stated in its documentation: for kernel models the coefficient
// vector in point coordinates (the column of the training scores), for random-feature
// models the direction in feature space.
//
// Exact ties are rare, but near-ties are not: a data set symmetric under x → −x gives
// eigenvectors whose two largest entries are equal and opposite, and rounding then
// decides which is larger — differently for a batch and an incremental fit. So entries
// within a relative Tie of the largest magnitude count as tied, and the first of them
// decides. Tie is far above the vectors' rounding error (about m·ε·λ₁/gap relative for
// the exact models, below 1e-10 on any well-separated component) and far below any
// difference that means something.
package sign

import "gonum.org/v1/gonum/mat"

// Tie is the relative difference below which two magnitudes count as tied.
const Tie = 1e-6

// Of returns +1 or −1: the factor that makes the first entry of v whose magnitude is
// within a relative Tie of the largest one positive. A zero vector gets +1.
func Of(v []float64) float64 {
	var big float64
	for _, x := range v {
		big = max(big, abs(x))
	}
	return pick(big, len(v), func(i int) float64 { return v[i] })
}

// OfColumn returns the sign factor (Of) of column j of a.
func OfColumn(a mat.Matrix, j int) float64 {
	r, _ := a.Dims()
	if raw, ok := a.(mat.RawMatrixer); ok {
		m := raw.RawMatrix()
		at := func(i int) float64 { return m.Data[i*m.Stride+j] }
		var big float64
		for i := range r {
			big = max(big, abs(at(i)))
		}
		return pick(big, r, at)
	}
	at := func(i int) float64 { return a.At(i, j) }
	var big float64
	for i := range r {
		big = max(big, abs(at(i)))
	}
	return pick(big, r, at)
}

// Flip multiplies each column of a by its sign factor (OfColumn).
func Flip(a *mat.Dense) {
	r, c := a.Dims()
	for j := range c {
		if OfColumn(a, j) < 0 {
			for i := range r {
				a.Set(i, j, -a.At(i, j))
			}
		}
	}
}

// pick returns the sign of the first of the n entries at(i) whose magnitude is at least
// (1 − Tie)·big.
func pick(big float64, n int, at func(int) float64) float64 {
	if !(big > 0) {
		return 1
	}
	lim := (1 - Tie) * big
	for i := range n {
		if x := at(i); abs(x) >= lim {
			if x < 0 {
				return -1
			}
			return 1
		}
	}
	return 1
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
