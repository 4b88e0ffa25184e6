// Package update keeps the eigendecomposition A = U·diag(λ)·Uᵀ of a real symmetric
// matrix up to date under low-rank changes, without recomputing it. It works beside
// gonum: a decomposition comes in from a *mat.EigenSym or from eigenpairs, vectors go in
// as mat.Vector, and Values(dst) and VectorsTo(dst) read it out as gonum's EigenSym does.
//
// Sym holds every eigenpair of an n×n matrix; Thin holds k ≤ n of them, A = V·diag(λ)·Vᵀ
// with V of n rows and k orthonormal columns, and may truncate to the top pairs after
// each change (a Truncation). They name the same acts alike:
//
//	NewSym, NewThin, SetEigen:   start from eigenvalues and orthonormal eigenvectors
//	NewSymFromEigen:             start from a factorized *mat.EigenSym (with vectors)
//	Sym.Factorize:               start from a symmetric matrix (a batch eigensolver)
//	RankOne(ρ, v):               A ← A + ρ·v·vᵀ                (ρ of either sign)
//	Border(a, c):                A ← [[A, a], [aᵀ, c]]         (one more row and column)
//	Remove(i):                   A ← A without row and column i, exactly
//
// (a Thin's Border(b, e, f, c) also takes the unit direction (e, f) of the new row in an
// extended basis; e = nil, f = 1 is the plain bordering), and Thin adds the acts of a
// truncated decomposition: BorderBlock (b rows and columns at once), RemoveKeepRank
// (delete row and column i of the rank-k matrix V·diag(λ)·Vᵀ and keep k pairs, where
// Remove would restrict to one pair fewer) and Grow (a zero row and column).
//
// A rank-one update of a gonum eigendecomposition:
//
//	var e mat.EigenSym
//	e.Factorize(a, true)
//	s, err := update.NewSymFromEigen(&e)
//	...
//	err = s.RankOne(0.5, v) // v a *mat.VecDense, or any mat.Vector
//	values := s.Values(nil)
//
// Each update costs O(n²) for the small eigenproblem (package secular: deflation, a
// secular equation, Gu–Eisenstat vectors) plus one matrix product U·Ũ on the part that
// did not deflate, done by BLAS dgemm through package native. A build with -tags
// openblas runs every update on OpenBLAS by itself, with nothing to call first
// (native.Use only registers OpenBLAS for the rest of a program's gonum code, such as
// mat.EigenSym). There an update costs close to one n×n×n dgemm (1.16 dgemms at n = 2000,
// 1.09 at n = 4000, measured on 2 cores); a batch recompute with LAPACK dsyevd costs
// about five to eight times more.
//
// Every update is transactional: on error (bad input, non-convergence) the decomposition
// is exactly as it was. Errors wrap the kinds of package ikpca (ErrDimension,
// ErrNonFinite, ErrArgument, ErrNotConverged). Once the capacity suffices (Reserve), a
// sequence of updates allocates nothing: vectors are read from a *mat.VecDense's storage
// or copied into the decomposition's scratch, whatever their increment. A vector or
// matrix of the caller's own type is copied once, guarded: one that lies about its size
// or panics is an ErrArgument error (docs/design.md, "Hostile input").
//
// The package is independent of kernel PCA: any Go code that maintains a symmetric
// eigendecomposition under low-rank changes can use it (docs/design.md, "Bordering",
// "Rank-one updates", "Removing a point", "Rank-r tracking").
package update
