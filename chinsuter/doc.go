// Package chinsuter implements Chin and Suter's incremental kernel PCA ("Incremental
// Kernel Principal Component Analysis", IEEE Transactions on Image Processing 16(6),
// 2007), the peer the seed paper compares its cost against and the method a user with
// bounded memory would otherwise reach for.
//
// It kernelises the sequential Karhunen–Loève algorithm of Levy and Lindenbaum with the
// shifting mean of Lim, Ross, Lin and Yang: the principal axes in feature space are
// expansions U = φ(A)α over a set of points A, the mean is μ = φ(A)ν, and each chunk of
// c ≥ 1 new points updates the thin SVD of the centred data through a small
// (r+q)×(r+c+1) matrix F (see Model.AddBatch for the formulas). Two forms:
//
//   - Exact (Options.Compression nil, Options.Components 0): A is every point seen and
//     every component whose eigenvalue is above the numerical-zero level is kept. The
//     eigenvalues and subspaces equal batch kernel PCA's to rounding, at a cost of about
//     16m³ flops a point (an m×m×r product, the SVD of F, the new coefficients) where the
//     bordered update of package kpca needs one m×m×m product (2m³).
//   - Compressed (Options.Compression set, Gaussian kernel): after an update whose
//     expansion exceeds (r+1)·n′ points, the r axes and the mean are re-expressed on at
//     most (r+1)·n′ shared pre-images found by fixed-point iteration, re-fitted in a
//     second pass, re-orthogonalised with the kernel trick, and given singular values
//     from the projection of the old axes. Memory is then constant in the number of
//     points, and the result an approximation whose error the Stats report.
//
// Two numerical measures go beyond the paper's description and are documented where
// they act: the new directions H are projected against the axes twice (classical
// Gram–Schmidt with one re-orthogonalisation; without it orthogonality was lost
// geometrically on kernels whose spectrum runs into rounding), and components and
// directions below the numerical-zero level m·ε·max(λmax, tr K) are dropped, the rule
// package kpca uses.
//
// Fit starts a model from a batch of points (a batch kernel PCA); New starts an empty
// one, since the update needs no points to start from: with no axes and no mean, the
// first chunk's update is the batch kernel PCA of the chunk (a first Add, a chunk of
// one, gives the model of one point, without components). Add and AddBatch then update
// it a chunk at a time.
//
// The model always centres: the shifting mean is part of the algorithm, and there is
// no uncentred form (Options has no Uncentred; Centred reports true).
//
// Values reports Σ², the eigenvalues of the centred kernel matrix (not divided by the
// number of points), and Transform the projections ⟨v_j, φ(x) − μ⟩ onto the unit axes,
// the same quantities as kpca.Model's Values and Transform. Model is an
// ikpca.Incremental and an ikpca.Persistent: MarshalBinary and UnmarshalBinary (or
// MarshalBinaryTo and UnmarshalBinaryFrom, on streams) save and restore it, exact or
// compressed, bit for bit, so that a restored model continues as the saved one would
// have (docs/design.md, "Chin–Suter encoding"). Every error of the package wraps one of
// its sentinels (ErrArgument, …), each of which wraps the ikpca kind of the same name.
// Each axis is signed so that its scores on the expansion points — in the exact form,
// the training scores — have their largest-magnitude entry positive, the rule of
// kpca.Model, so the exact form's scores equal kpca's, sign included
// (docs/design.md, "Signs").
//
// Its products and eigensolvers go through package native: a build with -tags openblas
// runs them on OpenBLAS by itself, with nothing to call first (native.Use only registers
// OpenBLAS for the rest of a program's gonum code; docs/design.md, "Backend routing").
package chinsuter
