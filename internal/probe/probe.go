// Package probe holds the random probe that checks a matrix for orthonormal columns in
// O(n·k) instead of forming VᵀV: update.Sym.SetEigen and update.Thin.SetEigen refuse
// vectors that fail it, and kpca's Drift reports it as the loss of orthogonality of the
// stored eigenvectors.
package probe

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
)

// Seed is the seed of update's probes: a fixed x, so that a check gives the same verdict
// every time.
const Seed uint64 = 0x9E3779B97F4A7C15

// Fill sets x to a fixed pseudo-random vector, entries uniform in [−½, ½) from an
// xorshift64 sequence started at seed (non-zero), and returns ‖x‖².
func Fill(x []float64, seed uint64) float64 {
	state := seed
	var xx float64
	for i := range x {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		x[i] = float64(state>>11)/(1<<53) - 0.5
		xx += x[i] * x[i]
	}
	return xx
}

// Orthogonality returns ‖VᵀV·x − x‖/‖x‖ for the n×k matrix v and x of length k with
// ‖x‖² = xx (Fill): zero for orthonormal columns, and almost surely large otherwise. It
// leaves V·x in y (length n) and VᵀV·x in r (length k); x is unchanged. Two gemvs
// through package native, O(n·k). An empty v (n = 0) has no orthonormal column: 1.
func Orthogonality(v blas64.General, x []float64, xx float64, y, r []float64) float64 {
	n, k := v.Rows, v.Cols
	if n == 0 {
		return 1
	}
	native.Gemv(blas.NoTrans, 1, v, blas64.Vector{N: k, Data: x, Inc: 1}, 0, blas64.Vector{N: n, Data: y, Inc: 1})
	native.Gemv(blas.Trans, 1, v, blas64.Vector{N: n, Data: y, Inc: 1}, 0, blas64.Vector{N: k, Data: r, Inc: 1})
	var rr float64
	for i := range k {
		e := r[i] - x[i]
		rr += e * e
	}
	return math.Sqrt(rr / xx)
}
