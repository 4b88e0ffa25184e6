package stream

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// centring is the decomposition of a centred SKPCA (docs/design.md, "Centred SKPCA"):
// the top eigenpairs of C̃ = BᵀB − n·z̄z̄ᵀ, D×D, computed in the (ℓ+1)-dimensional
// space span(Bᵀ, z̄) outside which C̃ is zero. With the sketch B = Σ·Vᵀ (k ≤ ℓ rows,
// V orthonormal, D×k) and an orthonormal basis Q = [V, q] of span(V, z̄),
//
//	C̃ = Q·M·Qᵀ,   M = diag(σ₁², …, σₖ², 0) − n·ĉĉᵀ,   ĉ = Qᵀz̄ = [Vᵀz̄; ‖z̄ − VVᵀz̄‖],
//
// so M = U·Λ·Uᵀ (m×m, m ≤ ℓ+1, LAPACK dsyevd) gives C̃'s eigenvectors Q·U and
// eigenvalues Λ: O(D·ℓ) for ĉ, O(ℓ³) for M's eigenproblem and O(D·ℓ²) for Q·U, as much
// as the sketch's own SVD and never a D×D matrix. Its arrays are allocated with the
// model, so that reading it allocates nothing of size D.
type centring struct {
	d, ell int
	mean   []float64 // z̄, D: Transform subtracts it
	r      []float64 // z̄ − VVᵀz̄, D
	q      []float64 // Q = [V, q], D×(ℓ+1) row-major
	c      []float64 // ĉ = Qᵀz̄, and the second pass's correction, 2(ℓ+1)
	m      []float64 // M, (ℓ+1)², then its eigenvectors
	w      []float64 // M's eigenvalues, ascending, ℓ+1
	u      []float64 // the eigenvectors kept, (ℓ+1)×ℓ row-major
}

func newCentring(d, ell int) *centring {
	m := ell + 1
	return &centring{d: d, ell: ell, mean: make([]float64, d), r: make([]float64, d), q: make([]float64, d*m),
		c: make([]float64, 2*m), m: make([]float64, m*m), w: make([]float64, m), u: make([]float64, m*ell)}
}

// bytes returns the memory of the arrays.
func (c *centring) bytes() int {
	return 8 * (len(c.mean) + len(c.r) + len(c.q) + len(c.c) + len(c.m) + len(c.w) + len(c.u))
}

// decompose takes the sketch's squared singular values vals (k ≤ ℓ, descending) and its
// unit right singular vectors V in the first k columns of w (D×ℓ), the features' sum
// and their number n, and writes to the first p columns of w the unit eigenvectors of
// C̃ = BᵀB − n·z̄z̄ᵀ whose eigenvalues are above rounding, returning those eigenvalues,
// descending, in vals' storage (p ≤ k). scale is max(buffer, D), the larger size of
// the sketch's SVD, for the rank tolerance below.
func (c *centring) decompose(w *mat.Dense, vals, sum []float64, n, scale int) []float64 {
	k, D, ell := len(vals), c.d, c.ell
	if n == 0 {
		clear(c.mean)
		return vals[:0]
	}
	var mean2 float64
	for j, s := range sum {
		c.mean[j] = s / float64(n)
		mean2 += c.mean[j] * c.mean[j]
	}
	V := blas64.General{Rows: D, Cols: k, Stride: ell, Data: w.RawMatrix().Data}

	nr := c.meanResidual(V, math.Sqrt(mean2))
	m := k
	if nr > 0 {
		m = k + 1
		c.c[k] = nr
	}

	M := c.assemble(V, vals, n, m, nr)
	ld := ell + 1
	fn := float64(n)
	if err := native.EigenSymInPlace(m, M, m, c.w[:m], true); err != nil {
		// dsyevd (gonum's Dsyev in pure Go) converges on every finite symmetric
		// matrix, and M is finite: σ² are the sketch's, ĉ a projection of the mean.
		panic(fmt.Sprintf("stream: internal error: the centred sketch's eigenproblem failed on a finite matrix: %v", err))
	}

	// Eigenvalues above rounding, descending. M's entries carry an error of about
	// ε·(σ₁² + n·‖z̄‖²) from the sketch's SVD and the products — more where the
	// sketch's rows and the mean cancel — and the SVD a backward error growing with its
	// larger size: so eigenvalues at or below τ = max(buffer, D)·2⁻⁵²·(σ₁² + n·‖z̄‖²)
	// are indistinguishable from zero (the rank rule of LAPACK's dgelss and numpy's
	// matrix_rank, for the squares), and a component along one would be noise. At
	// most ℓ are kept; by interlacing (C̃ is BᵀB less a positive semi-definite rank
	// one) at most k are positive in exact arithmetic.
	top := 0.0
	if k > 0 {
		top = vals[0]
	}
	tau := float64(scale) * 0x1p-52 * (top + fn*mean2)
	p := 0
	for j := m - 1; j >= 0 && p < min(k, ell); j-- {
		if !(c.w[j] > tau) {
			break
		}
		for i := range m {
			c.u[i*ell+p] = M[i*m+j]
		}
		vals = append(vals[:p], c.w[j])
		p++
	}
	vals = vals[:p]
	if p > 0 {
		// W = Q·U_p: the unit eigenvectors of C̃ (Q and U orthonormal).
		Q := blas64.General{Rows: D, Cols: m, Stride: ld, Data: c.q}
		U := blas64.General{Rows: m, Cols: p, Stride: ell, Data: c.u}
		W := blas64.General{Rows: D, Cols: p, Stride: ell, Data: w.RawMatrix().Data}
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, Q, U, 0, W)
	}
	return vals
}

// meanResidual sets c.r = z̄ − V·(Vᵀz̄) for the mean z̄ (c.mean, of norm nz) and c.c[:k]
// = Vᵀz̄, and returns ‖r‖: zero where z̄ lies in span(V) to working accuracy.
func (c *centring) meanResidual(V blas64.General, nz float64) float64 {
	k, ell := V.Cols, c.ell
	cv, corr := c.c[:k], c.c[ell+1:ell+1+k]
	// r = z̄ − V·(Vᵀz̄), classical Gram–Schmidt twice where once loses orthogonality:
	// the Kahan–Parlett "twice is enough" rule (Parlett, The Symmetric Eigenvalue
	// Problem, §6-9; the DGKS test with κ = √2). A second pass is made when ‖r₁‖ <
	// ‖z̄‖/√2, and if then ‖r₂‖ < ‖r₁‖/√2 z̄ lies in span(V) to working accuracy and
	// q is left out.
	copy(c.r, c.mean)
	nr := nz
	if k > 0 {
		native.Gemv(blas.Trans, 1, V, bvec(c.mean), 0, bvec(cv))
		native.Gemv(blas.NoTrans, -1, V, bvec(cv), 1, bvec(c.r))
		nr = norm(c.r)
		if nr < nz/math.Sqrt2 {
			native.Gemv(blas.Trans, 1, V, bvec(c.r), 0, bvec(corr))
			native.Gemv(blas.NoTrans, -1, V, bvec(corr), 1, bvec(c.r))
			for i, v := range corr {
				cv[i] += v
			}
			r2 := norm(c.r)
			if r2 < nr/math.Sqrt2 {
				r2 = 0
			}
			nr = r2
		}
	}
	return nr
}

// assemble writes Q = [V, r/‖r‖] (D×m, stride ℓ+1: V alone when m = k) into c.q and
// returns the upper triangle of M = diag(σ², 0) − n·ĉĉᵀ (m×m, in c.m), ĉ = Qᵀz̄ in
// c.c[:m] (docs/design.md, "Centred SKPCA").
func (c *centring) assemble(V blas64.General, vals []float64, n, m int, nr float64) []float64 {
	// Q = [V, r/‖r‖], D×m with stride ℓ+1.
	D, ell, k := c.d, c.ell, V.Cols
	ld := ell + 1
	for i := range D {
		row := c.q[i*ld : i*ld+m]
		copy(row[:k], V.Data[i*ell:i*ell+k])
		if m > k {
			row[k] = c.r[i] / nr
		}
	}
	// M = diag(σ², 0) − n·ĉĉᵀ, upper triangle (docs/design.md, "Centred SKPCA").
	M := c.m[:m*m]
	fn := float64(n)
	for i := range m {
		for j := i; j < m; j++ {
			v := -fn * c.c[i] * c.c[j]
			if i == j && i < k {
				v += vals[i]
			}
			M[i*m+j] = v
		}
	}
	return M
}

// bvec returns x as a unit-stride BLAS vector.
func bvec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

// norm returns ‖x‖₂ (plain: the vectors here are O(1)).
func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}
