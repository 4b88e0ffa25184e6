package lanczos

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// Top returns the k largest eigenvalues (descending) of the symmetric positive
// semi-definite n×n operator apply (dst = A·x) and their unit eigenvectors (n×k), by the
// Lanczos method with full reorthogonalisation (every new vector orthogonalised twice
// against all earlier ones, so that no ghost copies appear), from a seeded random start.
// It stops when every one of the k Ritz pairs has a residual ‖Av − θv‖ = β·|sₘᵢ| below
// tol·θ₁ — then each Ritz value is within that residual of an eigenvalue (and within its
// square over the gap to the rest), and each vector within the residual over the gap —
// or after maxSteps steps, or when the Krylov space is invariant. It is the exact
// reference of the studies (cmd/ikpca/internal/study/streaming and tracking) on data
// sets whose n×n eigendecomposition (O(n³), 2n² of LAPACK workspace) is too costly:
// O(n²) per step, a few dozen to a few hundred steps for the leading eigenpairs of a
// kernel matrix.
func Top(ctx context.Context, n, k int, apply func(dst, x []float64), tol float64, maxSteps int, seed uint64) ([]float64, *mat.Dense, error) {
	if k < 1 || k > n {
		return nil, nil, errors.New("lanczos: Top: k out of range")
	}
	maxSteps = min(maxSteps, n)
	rng := rand.New(rand.NewPCG(seed, 0x1a2c))
	Q := make([]float64, 0, n*min(maxSteps, 64)) // the Lanczos vectors, one per row
	q := make([]float64, n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	scale(q, 1/math.Sqrt(vec.Dot(q, q)))
	w := make([]float64, n)
	h := make([]float64, maxSteps)
	var alpha, beta []float64
	var vals []float64
	var S *mat.Dense
	for m := 1; ; m++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		Q = append(Q, q...)
		apply(w, q)
		a := vec.Dot(q, w)
		alpha = append(alpha, a)
		// Full reorthogonalisation, twice ("twice is enough", Parlett): w −= Q(Qᵀw).
		qm := blas64.General{Rows: m, Cols: n, Stride: n, Data: Q}
		for range 2 {
			native.Gemv(blas.NoTrans, 1, qm, blas64.Vector{N: n, Inc: 1, Data: w}, 0, blas64.Vector{N: m, Inc: 1, Data: h})
			native.Gemv(blas.Trans, -1, qm, blas64.Vector{N: m, Inc: 1, Data: h}, 1, blas64.Vector{N: n, Inc: 1, Data: w})
		}
		b := math.Sqrt(vec.Dot(w, w))
		done := m == maxSteps || b <= 1e-14*math.Abs(alpha[0])
		if m >= k && (m%5 == 0 || done) {
			var conv bool
			vals, S, conv = ritz(alpha, beta, b, k, tol)
			if conv || done {
				break
			}
		} else if done {
			return nil, nil, errors.New("lanczos: Top: the Krylov space closed before k Ritz pairs")
		}
		beta = append(beta, b)
		for i := range q {
			q[i] = w[i] / b
		}
	}
	// Ritz vectors V = Qᵀ·S (n×k).
	m := len(alpha)
	V := mat.NewDense(n, k, nil)
	native.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: m, Cols: n, Stride: n, Data: Q}, S.RawMatrix(), 0, V.RawMatrix())
	return vals, V, nil
}

// ritz returns the k largest eigenvalues of the Lanczos tridiagonal matrix (diagonal
// alpha, off-diagonal beta), descending, their eigenvectors (m×k), and whether each
// pair's residual b·|last entry of its vector| is below tol·θ₁.
func ritz(alpha, beta []float64, b float64, k int, tol float64) ([]float64, *mat.Dense, bool) {
	m := len(alpha)
	T := mat.NewSymDense(m, nil)
	for i, a := range alpha {
		T.SetSym(i, i, a)
		if i+1 < m {
			T.SetSym(i, i+1, beta[i])
		}
	}
	var W mat.Dense
	asc, err := native.EigenSym(nil, &W, T)
	if err != nil {
		panic("lanczos: the Lanczos matrix is not finite: " + err.Error())
	}
	vals := make([]float64, k)
	S := mat.NewDense(m, k, nil)
	conv := true
	for q := range k {
		j := m - 1 - q
		vals[q] = asc[j]
		for i := range m {
			S.Set(i, q, W.At(i, j))
		}
		if b*math.Abs(W.At(m-1, j)) > tol*math.Abs(asc[m-1]) {
			conv = false
		}
	}
	return vals, S, conv
}
