package native

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/vec"
)

// The top eigenpairs of a large symmetric matrix by block Krylov, accepted only when
// proved (docs/design.md, "The top of a batch by block Krylov"). dsyevr's reduction to
// tridiagonal form is half level-2 (a dsymv over the trailing matrix for every
// column), bound by memory at n in the thousands: at n = 3000 it took about 40 times a
// product of the matrix with 64 columns. The top r pairs of a kernel matrix come from a
// dozen such products. krylovTop builds the block Krylov basis of a random start, takes
// the Ritz pairs, and accepts them only when a Cholesky factorisation proves that no
// eigenvalue was missed; otherwise EigenSymTopInPlace goes on to dsyevr.

// krylovMin is the smallest order at which EigenSymTopInPlace tries krylovTop first. On
// RBF kernel matrices of MAGIC and a9a points (the top 51 pairs, OpenBLAS on two cores,
// both solvers calling LAPACK without LAPACKE's copies) krylovTop took 0.30–0.35 s
// (MAGIC) and 0.39 s (a9a) at n = 2000 against dsyevr's 0.33–0.35 s, at 2500 0.42–0.46 s
// and 0.56–0.57 s against 0.54–0.60 s, and at 3000 0.55–0.93 s against 0.95–1.08 s. A
// variable, for the tests.
var krylovMin = 2560

// krylovRanks bounds the pairs krylovTop is tried for: r ≤ n/krylovRanks. Its basis and
// Rayleigh–Ritz steps grow with r, dsyevr's reduction does not: on a centred RBF kernel
// of 3000 points krylovTop took 0.70–1.1 s against dsyevr's 1.3–1.4 s for r = 26 to 101,
// but 1.63 s against 1.49 s for r = 151 (n/20); at 4000 points, 2.6 s against 4.1 s for
// r = 151.
const krylovRanks = 24

// krylovMaxBlocks is the most blocks the basis grows to before krylovTop gives up.
// Kernel matrices of MAGIC and a9a (3000 points, the top 51 pairs, blocks of 63) reached
// residuals of 5e-15·λ₁ with 8 and 11.
const krylovMaxBlocks = 14

// krylovTop computes the r largest eigenvalues of the symmetric n×n matrix A, whose
// upper triangle a holds (stride lda), into w (ascending) and, when z is not nil, their
// eigenvectors into the columns of z (stride ldz), as EigenSymTopInPlace specifies, and
// reports whether it did. It writes the lower triangle of a and nothing else of it, so
// that on false A is intact for dsyevr; w and z are then unspecified. Arguments have been
// validated and A is finite.
func krylovTop(n, r int, a []float64, lda int, w, z []float64, ldz int) bool {
	p := r + max(8, r/4) // the block width: r and room for a cluster at the cut
	extra := max(4, r/8) // pairs beyond r among which a gap is sought
	blocks := min(krylovMaxBlocks, n/(2*p))
	if blocks < 4 {
		return false
	}
	frob := mirrorLower(n, a, lda) // ‖A‖_F; A is now whole in a
	K := blas64.General{Rows: n, Cols: n, Stride: lda, Data: a}
	kb := newKrylovBasis(n, p, blocks)
	var ritz ritzPairs
	for j := 0; ; j++ {
		invariant := kb.extend(K, j, frob)
		if (j+1 < 6 || (j+1)%2 == 1) && !invariant && j+1 < blocks {
			continue // the Rayleigh–Ritz step every other block from the sixth
		}
		var ok bool
		if ritz, ok = kb.ritz(j, r+extra); !ok {
			return false
		}
		// Converged when the estimates of the top r residuals are at rounding level:
		// 8·√n·ε of the largest |θ|, about what LAPACK's solvers leave.
		tol := 8 * math.Sqrt(float64(n)) * vec.Roundoff * ritz.scale
		if invariant || ritz.converged(r, tol) {
			break
		}
		if j+1 == blocks {
			return false
		}
	}
	U, theta := kb.vectors(ritz)
	q, ok := proveTop(K, a, lda, U, theta, r, frob)
	if !ok {
		return false
	}
	// w ascending: the top r of theta, which is descending.
	for c := range r {
		w[c] = theta[r-1-c]
	}
	if z != nil {
		for i := range n {
			row := U.Data[i*U.Stride : i*U.Stride+q]
			for c := range r {
				z[i*ldz+c] = row[r-1-c]
			}
		}
	}
	return true
}

// mirrorLower copies the upper triangle of the n×n matrix in a (stride lda) into its
// lower triangle, in tiles so that the column reads stay in cache, and returns ‖A‖_F.
func mirrorLower(n int, a []float64, lda int) float64 {
	const tile = 64
	var diag, off float64
	for i := range n {
		v := a[i*lda+i]
		diag += v * v
	}
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := 0; j0 <= i0; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := j0; j < min(j0+tile, i); j++ {
					v := a[j*lda+i]
					a[i*lda+j] = v
					off += v * v
				}
			}
		}
	}
	return math.Sqrt(diag + 2*off)
}

// krylovBasis is the orthonormal block Krylov basis Q = [Q₀ Q₁ …] of a random start,
// n×(blocks·p) with stride blocks·p, and T = QᵀAQ, filled a block column at a time.
type krylovBasis struct {
	n, p, blocks int
	Q            blas64.General
	T            []float64 // (blocks·p)², stride blocks·p
	W            blas64.General
	gram         []float64 // p×p: the last block's rest W′ᵀW′, for the residual estimates
	sv           []float64
}

func newKrylovBasis(n, p, blocks int) *krylovBasis {
	ld := blocks * p
	kb := &krylovBasis{n: n, p: p, blocks: blocks,
		Q:    blas64.General{Rows: n, Cols: ld, Stride: ld, Data: make([]float64, n*ld)},
		T:    make([]float64, ld*ld),
		W:    blas64.General{Rows: n, Cols: p, Stride: p, Data: make([]float64, n*p)},
		gram: make([]float64, p*p),
		sv:   make([]float64, p),
	}
	// A Gaussian start, seeded by the size: the same matrix gives the same pairs.
	rng := rand.New(rand.NewPCG(uint64(n), uint64(p)))
	for i := range kb.W.Data {
		kb.W.Data[i] = rng.NormFloat64()
	}
	kb.orthonormal(0, 0)
	return kb
}

// block returns Qⱼ.
func (kb *krylovBasis) block(j int) blas64.General {
	return blas64.General{Rows: kb.n, Cols: kb.p, Stride: kb.Q.Stride, Data: kb.Q.Data[j*kb.p:]}
}

// upTo returns the first j+1 blocks, [Q₀ … Qⱼ].
func (kb *krylovBasis) upTo(j int) blas64.General {
	return blas64.General{Rows: kb.n, Cols: (j + 1) * kb.p, Stride: kb.Q.Stride, Data: kb.Q.Data}
}

// orthonormal sets block j of Q to an orthonormal basis of W (its left singular
// vectors), destroying W, and reports whether all of W is below floor (its largest
// singular value): the basis before block j is then invariant to that level.
func (kb *krylovBasis) orthonormal(j int, floor float64) (invariantBefore bool) {
	Qj := kb.block(j)
	if err := SVDLeft(kb.n, kb.p, kb.W.Data, kb.W.Stride, kb.sv, Qj.Data, Qj.Stride); err != nil {
		return true
	}
	if kb.sv[0] <= floor {
		return true // all of the rest is rounding
	}
	if j == 0 || kb.sv[kb.p-1] > 1e-3*kb.sv[0] {
		return false
	}
	// A rest of numerically lower rank: its singular vectors of the small values are
	// rounding, not orthogonal to Q₀…ⱼ₋₁. One more pass of Gram–Schmidt against them and
	// a second orthonormalisation make them directions of their own, as good as random
	// ones for the basis.
	for i := range kb.n {
		copy(kb.W.Data[i*kb.p:i*kb.p+kb.p], Qj.Data[i*Qj.Stride:i*Qj.Stride+kb.p])
	}
	kb.projectOff(kb.upTo(j - 1))
	return SVDLeft(kb.n, kb.p, kb.W.Data, kb.W.Stride, kb.sv, Qj.Data, Qj.Stride) != nil
}

// extend computes W = A·Qⱼ, the block column j of T (Q₀…ⱼᵀW), and, if there is room,
// Qⱼ₊₁: W with its part in span(Q₀…ⱼ) removed (classical Gram–Schmidt, twice) and
// orthonormalised, keeping the rest's Gram matrix for the residual estimates. It reports
// whether the rest is rounding (span(Q₀…ⱼ) invariant under A, to that level): its
// smallest singular value below n·ε·‖A‖_F.
func (kb *krylovBasis) extend(A blas64.General, j int, frob float64) (invariant bool) {
	p, ld := kb.p, kb.blocks*kb.p
	Gemm(blas.NoTrans, blas.NoTrans, 1, A, kb.block(j), 0, kb.W)
	Qj := kb.upTo(j)
	m := (j + 1) * p
	col := blas64.General{Rows: m, Cols: p, Stride: ld, Data: kb.T[j*p:]}
	Gemm(blas.Trans, blas.NoTrans, 1, Qj, kb.W, 0, col)
	for i := range m { // T is symmetric: its lower blocks are the upper ones' transposes
		for c := range p {
			kb.T[(j*p+c)*ld+i] = col.Data[i*ld+c]
		}
	}
	// The rest, for the residual estimates: A·Q₀…ⱼ = Q₀…ⱼ·T + W′·Eⱼᵀ, so that a Ritz
	// vector Q·s has the residual W′·sⱼ, of norm √(sⱼᵀ·W′ᵀW′·sⱼ).
	Gemm(blas.NoTrans, blas.NoTrans, -1, Qj, col, 1, kb.W)
	kb.projectOff(Qj)
	Syrk(blas.Trans, 1, kb.W, 0, blas64.Symmetric{N: p, Stride: p, Data: kb.gram, Uplo: blas.Upper})
	for i := range p {
		for k := i + 1; k < p; k++ {
			kb.gram[k*p+i] = kb.gram[i*p+k]
		}
	}
	if j+1 == kb.blocks {
		return false
	}
	return kb.orthonormal(j+1, float64(kb.n)*vec.Roundoff*frob)
}

// projectOff removes from W its part in the span of the orthonormal columns of prev:
// W ← W − prev·(prevᵀW), one pass of classical Gram–Schmidt.
func (kb *krylovBasis) projectOff(prev blas64.General) {
	C := blas64.General{Rows: prev.Cols, Cols: kb.p, Stride: kb.p, Data: make([]float64, prev.Cols*kb.p)}
	Gemm(blas.Trans, blas.NoTrans, 1, prev, kb.W, 0, C)
	Gemm(blas.NoTrans, blas.NoTrans, -1, prev, C, 1, kb.W)
}

// ritzPairs are the Ritz pairs of the basis's first blocks: values descending, the
// coefficients S (m×want, column c that of value c), and the estimates of their
// residuals.
type ritzPairs struct {
	m, want int
	values  []float64
	S       []float64 // m×want, stride want
	est     []float64
	scale   float64 // the largest |θ|
}

// ritz computes the top want Ritz pairs of span(Q₀…ⱼ) from T (LAPACK dsyevd of order
// (j+1)·p) and their residual estimates from the rest's Gram matrix.
func (kb *krylovBasis) ritz(j, want int) (ritzPairs, bool) {
	p, ld := kb.p, kb.blocks*kb.p
	m := (j + 1) * p
	if want > m {
		return ritzPairs{}, false
	}
	t := make([]float64, m*m)
	for i := range m {
		copy(t[i*m:i*m+m], kb.T[i*ld:i*ld+m])
	}
	all := make([]float64, m)
	if err := EigenSymInPlace(m, t, m, all, true); err != nil {
		return ritzPairs{}, false
	}
	rp := ritzPairs{m: m, want: want, values: make([]float64, want), S: make([]float64, m*want), est: make([]float64, want)}
	for c := range want {
		src := m - 1 - c // ascending → descending
		rp.values[c] = all[src]
		for i := range m {
			rp.S[i*want+c] = t[i*m+src]
		}
	}
	rp.scale = math.Max(math.Abs(all[0]), math.Abs(all[m-1]))
	// est_c² = s_lastᵀ·G·s_last, s_last the coefficients of column c in block j.
	last := rp.S[j*p*want:]
	for c := range want {
		var e float64
		for i := range p {
			var gi float64
			for k := range p {
				gi += kb.gram[i*p+k] * last[k*want+c]
			}
			e += last[i*want+c] * gi
		}
		rp.est[c] = math.Sqrt(math.Max(e, 0))
	}
	return rp, true
}

// converged reports whether the top r estimates are at most tol.
func (rp ritzPairs) converged(r int, tol float64) bool {
	for c := range r {
		if !(rp.est[c] <= tol) {
			return false
		}
	}
	return true
}

// vectors returns the Ritz vectors U = Q₀…ⱼ·S (n×want) and their values, descending.
func (kb *krylovBasis) vectors(rp ritzPairs) (blas64.General, []float64) {
	j := rp.m/kb.p - 1
	U := blas64.General{Rows: kb.n, Cols: rp.want, Stride: rp.want, Data: make([]float64, kb.n*rp.want)}
	Gemm(blas.NoTrans, blas.NoTrans, 1, kb.upTo(j), blas64.General{Rows: rp.m, Cols: rp.want, Stride: rp.want, Data: rp.S}, 0, U)
	return U, rp.values
}

// proveTop proves that the top q ≥ r Ritz values theta (descending, of the n×len(theta)
// Ritz vectors U) are the q largest eigenvalues of A, each to within
// (‖A·U − U·Θ‖_F + its rounding)/σmin(U), and returns q; false if it cannot. a is A's
// storage (stride lda), whose lower triangle it overwrites and whose upper triangle and
// diagonal it leaves as they were (docs/design.md, "The top of a batch by block Krylov"):
//
//   - Kahan's theorem: for U of full column rank and Θ symmetric there are q
//     eigenvalues of A, distinct, within ‖AU − UΘ‖₂/σmin(U) of θ₁ … θ_q;
//   - a Cholesky factorisation of M = σI − A + α·UUᵀ, for σ in the gap between θ_q and
//     θ_{q+1} and α = (θ₁ − σ) + (θ_q − σ): if it completes, M + F + E is positive
//     semi-definite, F the rounding of forming M and E the factorisation's backward
//     error, |E| ≤ γₙ₊₁·|L||Lᵀ| (Higham 2002, Theorem 10.3), so that A ⪯ (σ + ‖F‖ +
//     ‖E‖)·I + α·UUᵀ and by Weyl λ_{q+1}(A) ≤ σ⁺ = σ + ‖F‖ + ‖E‖, UUᵀ being of rank q;
//   - so when θ_q minus the bound exceeds σ⁺, the q eigenvalues of the first point are
//     above every other: they are λ₁ … λ_q, each within the bound of its θ.
func proveTop(A blas64.General, a []float64, lda int, U blas64.General, theta []float64, r int, frob float64) (int, bool) {
	n, want := U.Rows, U.Cols
	// R = A·U − U·Θ: its columns' squared norms, and the rounding of forming it,
	// ‖fl(AU) − AU‖_F ≤ γₙ·‖A‖_F·‖U‖_F plus ε of each term of the difference.
	R := blas64.General{Rows: n, Cols: want, Stride: want, Data: make([]float64, n*want)}
	Gemm(blas.NoTrans, blas.NoTrans, 1, A, U, 0, R)
	rho2 := make([]float64, want)
	for i := range n {
		row, u := R.Data[i*want:i*want+want], U.Data[i*want:i*want+want]
		for c := range want {
			v := row[c] - u[c]*theta[c]
			rho2[c] += v * v
		}
	}
	// σmin(U)² ≥ 1 − ‖UᵀU − I‖_F.
	g := make([]float64, want*want)
	Syrk(blas.Trans, 1, U, 0, blas64.Symmetric{N: want, Stride: want, Data: g, Uplo: blas.Upper})
	var eta float64
	for i := range want {
		for k := i; k < want; k++ {
			v := g[i*want+k]
			if k == i {
				v--
			}
			if k > i {
				v *= math.Sqrt2 // the lower triangle's twin
			}
			eta += v * v
		}
	}
	eta = math.Sqrt(eta)
	if !(eta <= 1e-8) {
		return 0, false
	}
	scale := math.Max(math.Abs(theta[0]), math.Abs(theta[want-1]))
	// The cut: the largest gap θ_q − θ_{q+1} for q in [r, want−1].
	q := r
	for c := r + 1; c < want; c++ {
		if theta[c-1]-theta[c] > theta[q-1]-theta[q] {
			q = c
		}
	}
	var res2 float64
	for c := range q {
		res2 += rho2[c]
	}
	root := math.Sqrt(float64(q))
	rounding := vec.Gamma(n)*frob*root + 2*vec.Roundoff*(frob+scale)*root
	bound := (math.Sqrt(res2) + rounding) / math.Sqrt(1-eta)
	sigma := (theta[q-1] + theta[q]) / 2
	if !(theta[q-1]-bound > sigma) {
		return 0, false
	}
	alpha := (theta[0] - sigma) + (theta[q-1] - sigma)
	diag := make([]float64, n)
	for i := range n {
		diag[i] = a[i*lda+i]
	}
	defer func() { // the diagonal is A's again, for dsyevr
		for i := range n {
			a[i*lda+i] = diag[i]
		}
	}()
	// M's lower triangle: α·UUᵀ − A, then σ on the diagonal.
	Uq := blas64.General{Rows: n, Cols: q, Stride: want, Data: U.Data}
	Syrk(blas.NoTrans, alpha, Uq, -1, blas64.Symmetric{N: n, Stride: lda, Data: a, Uplo: blas.Lower})
	for i := range n {
		a[i*lda+i] += sigma
	}
	formed := vec.Gamma(q+2) * (alpha*float64(q) + frob + math.Abs(sigma)*math.Sqrt(float64(n)))
	if !choleskyLower(n, a, lda) {
		return 0, false
	}
	var l2 float64
	for i := range n {
		for _, v := range a[i*lda : i*lda+i+1] {
			l2 += v * v
		}
	}
	sigmaPlus := sigma + formed + vec.Gamma(n+1)*l2
	return q, theta[q-1]-bound > sigmaPlus
}
