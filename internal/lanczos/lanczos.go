// Package lanczos computes the spectral norm ‖A‖₂ = max|λ(A)| of a symmetric matrix or
// operator by the Lanczos method with full reorthogonalisation: O(n²) per step for a
// dense matrix (one product), a few dozen steps, instead of the O(n³) of a full
// eigendecomposition. It serves the error measurements of packages kpca and the
// experiments, where the matrix is often a difference G − Z·Zᵀ best applied without
// forming it. Top also takes the leading eigenpairs of such an operator, the exact
// reference of the studies.
package lanczos

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// SymNorm returns ‖A‖₂ of a symmetric matrix (see Norm).
func SymNorm(a *mat.SymDense) float64 {
	n := a.SymmetricDim()
	raw := a.RawSymmetric()
	return Norm(n, func(dst, x []float64) {
		native.Symv(1, raw, blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: n, Inc: 1, Data: dst})
	})
}

// Norm returns ‖A‖₂ = max|λ(A)| of the symmetric n×n operator apply (dst = A·x; dst and
// x do not overlap). The extreme Ritz values converge first; the iteration stops when the
// one of larger magnitude has a residual below 1e-14 of its size, when the Krylov space
// is invariant, or after min(n, 150) steps. The start vector is a fixed pseudo-random
// one, so the result is deterministic.
func Norm(n int, apply func(dst, x []float64)) float64 {
	if n == 0 {
		return 0
	}
	if n == 1 {
		x, y := []float64{1}, []float64{0}
		apply(y, x)
		return math.Abs(y[0])
	}
	maxSteps := min(n, 150)
	q := make([][]float64, 0, maxSteps+1)
	v := make([]float64, n)
	state := uint64(0x2545F4914F6CDD1D)
	for i := range v {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		v[i] = float64(state>>11)/(1<<53) - 0.5
	}
	scale(v, 1/nrm(v))
	q = append(q, v)
	alpha := make([]float64, 0, maxSteps)
	beta := make([]float64, 0, maxSteps)
	w := make([]float64, n)
	var best float64
	for j := 0; j < maxSteps; j++ {
		apply(w, q[j])
		aj := vec.Dot(q[j], w)
		alpha = append(alpha, aj)
		// Full reorthogonalisation, twice ("twice is enough").
		for pass := 0; pass < 2; pass++ {
			for _, qi := range q {
				c := vec.Dot(qi, w)
				axpy(-c, qi, w)
			}
		}
		bj := nrm(w)
		beta = append(beta, bj)
		if j%5 == 4 || j == maxSteps-1 || bj <= 1e-15*math.Abs(aj) {
			theta, resid := extremeRitz(alpha, beta)
			best = theta
			if bj <= 1e-15*math.Max(math.Abs(aj), math.Abs(theta)) || resid <= 1e-14*math.Abs(theta) {
				return math.Abs(theta)
			}
		}
		next := make([]float64, n)
		copy(next, w)
		scale(next, 1/bj)
		q = append(q, next)
	}
	return math.Abs(best)
}

// extremeRitz returns the Ritz value of largest magnitude of the tridiagonal matrix with
// diagonal alpha and off-diagonal beta[:len(alpha)−1], and its residual bound
// |β_last·s_last|.
func extremeRitz(alpha, beta []float64) (theta, resid float64) {
	k := len(alpha)
	t := mat.NewSymDense(k, nil)
	for i := range k {
		t.SetSym(i, i, alpha[i])
		if i+1 < k {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var vecs mat.Dense
	vals, err := native.EigenSym(nil, &vecs, t) // ascending, like mat.EigenSym
	if err != nil {
		return 0, math.Inf(1)
	}
	idx := 0
	if math.Abs(vals[k-1]) >= math.Abs(vals[0]) {
		idx = k - 1
	}
	return vals[idx], math.Abs(beta[k-1] * vecs.At(k-1, idx))
}

// The vector operations use gonum's floats package (its own kernels, not the blas64
// registry): O(n) work next to the O(n²) product of each step.

// axpy sets y += a·x.
func axpy(a float64, x, y []float64) { floats.AddScaled(y, a, x) }

func nrm(x []float64) float64 { return floats.Norm(x, 2) }

func scale(x []float64, a float64) { floats.Scale(a, x) }
