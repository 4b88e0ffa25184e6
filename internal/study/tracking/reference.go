package tracking

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// reference holds the exact top pairs of the kernel matrix of n points, centred
// (K′ = CKC) and uncentred (K): the yardstick every model of the comparison is measured
// against.
type reference struct {
	// values are the top eigenvalues of K′, descending, and vectors (n×len(values))
	// their unit eigenvectors; uvalues and uvectors those of K (nil if not asked for).
	values, uvalues   []float64
	vectors, uvectors *mat.Dense
	// residual is the largest ‖K′u − λu‖/λ₁ (and ‖Ku − λu‖/λ₁) of the pairs, measured
	// by one more product each after the Lanczos iteration.
	residual float64
}

// referenceTol is the residual, relative to λ₁, to which the Lanczos iteration takes the
// reference pairs: each eigenvalue is then within 1e-12·λ₁ (within its square over the
// gap, in fact) and each eigenvector within 1e-12·λ₁/gap, far below the errors measured
// (1e-9 and more for eigenvalues, 1e-6 and more for subspaces).
const referenceTol = 1e-12

// kernelMatrix is the n×n kernel matrix of the points, formed once (19,020² doubles are
// 2.9 GB), with the products the measurements need.
type kernelMatrix struct {
	n   int
	raw blas64.Symmetric
	tmp []float64
}

func newKernelMatrix(k kernel.Kernel, X *mat.Dense) *kernelMatrix {
	K := kernel.Matrix(k, X)
	n := K.SymmetricDim()
	return &kernelMatrix{n: n, raw: K.RawSymmetric(), tmp: make([]float64, n)}
}

// uncentred sets dst = K·x.
func (m *kernelMatrix) uncentred(dst, x []float64) {
	native.Symv(1, m.raw, blas64.Vector{N: m.n, Inc: 1, Data: x}, 0, blas64.Vector{N: m.n, Inc: 1, Data: dst})
}

// centred sets dst = CKC·x, C = I − 11ᵀ/n.
func (m *kernelMatrix) centred(dst, x []float64) {
	copy(m.tmp, x)
	centre(m.tmp)
	m.uncentred(dst, m.tmp)
	centre(dst)
}

// references computes the top k pairs of K′ and, if uncentredToo, of K.
func (m *kernelMatrix) references(ctx context.Context, k int, uncentredToo bool, seed uint64) (*reference, error) {
	ref := &reference{}
	var err error
	if ref.values, ref.vectors, err = topPairs(ctx, m.n, k, m.centred, referenceTol, seed); err != nil {
		return nil, err
	}
	ref.residual = m.residual(m.centred, ref.values, ref.vectors)
	if uncentredToo {
		if ref.uvalues, ref.uvectors, err = topPairs(ctx, m.n, k, m.uncentred, referenceTol, seed+1); err != nil {
			return nil, err
		}
		ref.residual = math.Max(ref.residual, m.residual(m.uncentred, ref.uvalues, ref.uvectors))
	}
	return ref, nil
}

// residual returns max over the pairs of ‖A·u − λu‖/λ₁.
func (m *kernelMatrix) residual(apply func(dst, x []float64), vals []float64, V *mat.Dense) float64 {
	u := make([]float64, m.n)
	au := make([]float64, m.n)
	var worst float64
	for j, l := range vals {
		for i := range u {
			u[i] = V.At(i, j)
		}
		apply(au, u)
		var s float64
		for i := range au {
			d := au[i] - l*u[i]
			s += d * d
		}
		worst = math.Max(worst, math.Sqrt(s)/vals[0])
	}
	return worst
}

// truncationNorm returns ‖K′ − V·diag(λ)·Vᵀ‖₂ (centred) or ‖K − V·diag(λ)·Vᵀ‖₂, the
// true error of a rank-r model's matrix, by the Lanczos method of internal/lanczos
// (residual 1e-14 of the norm).
func (m *kernelMatrix) truncationNorm(centred bool, vals []float64, V *mat.Dense) float64 {
	apply := m.uncentred
	if centred {
		apply = m.centred
	}
	r := len(vals)
	c := make([]float64, r)
	vr := V.RawMatrix()
	return lanczos.Norm(m.n, func(dst, x []float64) {
		apply(dst, x)
		native.Gemv(blas.Trans, 1, vr, blas64.Vector{N: m.n, Inc: 1, Data: x}, 0, blas64.Vector{N: r, Inc: 1, Data: c})
		for j := range c {
			c[j] *= vals[j]
		}
		native.Gemv(blas.NoTrans, -1, vr, blas64.Vector{N: r, Inc: 1, Data: c}, 1, blas64.Vector{N: m.n, Inc: 1, Data: dst})
	})
}

// centre subtracts the mean from x.
func centre(x []float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	s /= float64(len(x))
	for i := range x {
		x[i] -= s
	}
}

// topPairs returns the k largest eigenvalues (descending) of the symmetric positive
// semi-definite n×n operator apply and their unit eigenvectors (n×k), by the Lanczos
// method with full reorthogonalisation (each new vector orthogonalised twice against all
// earlier ones, so that no ghost copies appear), from a seeded random start — the method
// of the Nyström study's reference (internal/study/streaming). It stops when every one of
// the k Ritz pairs has a residual ‖Av − θv‖ = β·|sₘᵢ| below tol·θ₁, or when the Krylov
// space is invariant, after at most n steps. O(n²) a step with a formed matrix, a few
// dozen to a few hundred steps for the leading pairs of a kernel matrix.
func topPairs(ctx context.Context, n, k int, apply func(dst, x []float64), tol float64, seed uint64) ([]float64, *mat.Dense, error) {
	if k < 1 || k > n {
		return nil, nil, errors.New("tracking: topPairs: k out of range")
	}
	maxSteps := n
	rng := rand.New(rand.NewPCG(seed, 0x1a2c))
	Q := make([]float64, 0, n*min(maxSteps, 64)) // the Lanczos vectors, one per row
	q := make([]float64, n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	scaleTo(q, 1/math.Sqrt(dot(q, q)))
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
		a := dot(q, w)
		alpha = append(alpha, a)
		// Full reorthogonalisation, twice ("twice is enough", Parlett): w −= Q(Qᵀw).
		qm := blas64.General{Rows: m, Cols: n, Stride: n, Data: Q}
		for range 2 {
			native.Gemv(blas.NoTrans, 1, qm, blas64.Vector{N: n, Inc: 1, Data: w}, 0, blas64.Vector{N: m, Inc: 1, Data: h})
			native.Gemv(blas.Trans, -1, qm, blas64.Vector{N: m, Inc: 1, Data: h}, 1, blas64.Vector{N: n, Inc: 1, Data: w})
		}
		b := math.Sqrt(dot(w, w))
		done := m == maxSteps || b <= 1e-14*math.Abs(alpha[0])
		if m >= k && (m%5 == 0 || done) {
			var conv bool
			vals, S, conv = ritz(alpha, beta, b, k, tol)
			if conv || done {
				break
			}
		} else if done {
			return nil, nil, errors.New("tracking: topPairs: the Krylov space closed before k Ritz pairs")
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
		panic("tracking: the Lanczos matrix is not finite: " + err.Error())
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

func dot(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func scaleTo(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}
