// Package secular solves the small eigenproblems at the heart of eigendecomposition
// updates: a diagonal matrix plus a rank-one term,
//
//	D + ρ·z·zᵀ,                      roots of f(λ) = 1 + ρ Σ zⱼ²/(dⱼ − λ),
//
// a diagonal matrix bordered by one row and column (an arrowhead matrix),
//
//	[[D, w], [wᵀ, c]],               roots of g(λ) = c − λ − Σ wⱼ²/(dⱼ − λ),
//
// and a diagonal matrix restricted to the hyperplane orthogonal to z, which is what
// deleting a row and column of U·D·Uᵀ leaves (z the deleted row of U),
//
//	P·D·P on z⊥,                     roots of h(μ) = Σ zⱼ²/(dⱼ − μ).
//
// It is pure Go, uses no BLAS and does O(k²) work for a problem of size k. The caller
// (package update) owns the O(n³) product with the outer eigenvector matrix.
//
// # Pipeline
//
// A call to [Solver.RankOne], [Solver.Arrow] or [Solver.Restrict] runs, in order:
//
//  1. Scaling by a power of two so that the largest of |d|, |ρ|‖z‖² (or |d|, |c|, ‖w‖;
//     or |d|, with z normalised, for a restriction) lies in [½, 1): exact, and it keeps
//     every intermediate quantity far from overflow.
//  2. Deflation with LAPACK's rules (dlaed2/dlaed8): a negligible update, negligible
//     weights, and pairs of close poles removed by Givens rotations. Deflated components
//     are eigenpairs of the updated matrix as they stand; the rotations are reported in
//     [Result.Rotations] so that the caller can apply them to its own vectors.
//  3. Roots of the reduced secular equation by Ren-Cang Li's method as in LAPACK's
//     dlaed4 and dlaed6: each root is computed as an offset τ from its nearest pole, and
//     the differences δⱼ = dⱼ − λ are formed as (dⱼ − d_origin) − τ from the exact pole
//     gaps, never from λ itself (docs/design.md, "The root finder"). Roots are independent and are solved by several goroutines for
//     large problems.
//  4. Eigenvectors by Gu and Eisenstat's method: the weights are recomputed from the
//     computed roots (Löwner's formula), so that the computed roots are exact
//     eigenvalues of a nearby problem and the vectors are orthogonal to working
//     precision whatever the gaps between roots.
//
// # Deflation tolerance
//
// LAPACK's dlaed2 deflates with TOL = 8·ε·max(|d|max, |z|max), and dlaed8 with
// TOL = 8·ε·|d|max, on a matrix its driver dstedc has scaled to unit norm beforehand, in
// every LAPACK release to date (3.12.1 and earlier). LAPACK's development branch raised
// both factors to 64 in 2026 and reverted the change two months later (pull requests
// #1317 and #1372); the bidiagonal SVD merges dlasd7 and dlasd2 use 64·ε. This package
// makes the scale explicit and uses dlasd7's factor: TOL = 64·ε·σ with ε = 2⁻⁵³ and
// σ = max(|d|max, |ρ|‖z‖²) for rank-one problems, σ = max(|d|max, |c|, ‖w‖) for
// arrowheads, σ = |d|max for restrictions (whose weights are compared with 64·ε·‖z‖;
// see [Solver.Restrict] for the derivation). Every neglected quantity is at most TOL, a
// backward error of order ε relative to the norm of the problem, and the decisions do not
// change when the whole problem is multiplied by a constant. See docs/design.md,
// "Deflation" and "Departures from LAPACK".
//
// References: J. R. Bunch, C. P. Nielsen and D. C. Sorensen, Rank-one modification of
// the symmetric eigenproblem (1978); R.-C. Li, Solving secular equations stably and
// efficiently (LAPACK Working Note 89, 1993); M. Gu and S. C. Eisenstat, A stable and
// efficient algorithm for the rank-one modification of the symmetric eigenproblem (1994)
// and A divide-and-conquer algorithm for the symmetric tridiagonal eigenproblem (1995).
package secular
