// Package kpca is exact incremental kernel PCA: the eigendecomposition of the kernel
// matrix of a set of points, kept up to date as points are added and removed instead of
// recomputed.
//
//	model, err := kpca.Fit(kernel.RBF{Gamma: 4}, X, kpca.Options{Components: 3})
//	err = model.Transform(&scores, Xnew, 3)   // scores of new points
//	shares := model.ExplainedVariance(nil)    // each component's share of the variance
//	err = model.Add(x)                        // one more point, no refit
//	err = model.Remove(0)                     // forget the oldest point, exactly
//
// Fit(k, X, opts) fits a model to the rows of X (a *mat.Dense, or any mat.Matrix) for
// the kernel k — scikit-learn's KernelPCA(n_components=k).fit(X) — and New(k, d, opts)
// returns an empty model fed point by point (Add, AddBatch, AddRows). Transform scores
// new points and Scores the training points (fit_transform). Options.Components is
// required, for it sets the cost:
//
//   - Options{Components: k}: the top k eigenpairs, cheap. The model tracks the top
//     Rank pairs (by default max(k, DefaultRank = 50)) in O(m·(Rank+d)) memory and
//     O(m·Rank² + m·d) work a point, and certifies what the truncations lose
//     (ErrorBound, ValueBounds; docs/design.md, "Rank-r tracking"). Fit computes only
//     the top pairs of at most BatchMax = 4096 points (LAPACK dsyevr with an index
//     range), and tracks the points beyond, never forming their n×n kernel matrix.
//   - Options{Components: kpca.All}: every eigenpair, the exact model, at a price:
//     O(m²) memory, an O(m³) batch fit, and each point one bordering update of package
//     update — an O(m²) secular problem and one m×m×m matrix product — where a batch
//     recomputation costs several times more.
//
// A Model decomposes the mean-adjusted kernel matrix K' = CKC, C = I − 11ᵀ/m (centred,
// the default), or K itself (Options.Uncentred), with the eigenvectors in point
// coordinates. In centred mode a new point borders the matrix in a basis of 1⊥ whose new
// column is that of the Helmert basis (docs/design.md, "Helmert coordinates"), so that a
// centred step costs the same single update as an uncentred one. Removing a point
// (Remove) is one restriction update of the same cost (docs/design.md, "Removing a
// point"), and a sliding window (Options.Window) removes the oldest point as each new one
// arrives: exactly when it holds at most DefaultExactWindow points (by default), tracked
// at the rank and polished from its points every Window steps when larger
// (Options.WindowPolish). The algorithms of Hallgren and Northrop ("Incremental kernel
// PCA and the Nyström method", 2018) are available for comparison as a type of their
// own, RankOneModel (FitRankOne, NewRankOne).
//
// The exact model agrees with a batch kernel PCA of the same points to rounding (≈1e-13
// relative after thousands of points), and no point is ever dropped but by Remove or a
// window: duplicates and rank-deficient kernel matrices are handled by deflation. A
// model tracked at a rank is as accurate as its tracking; Polish brings it back to batch
// accuracy by a few passes over the points, and Certify says, from the true kernel
// matrix, how accurate it is (docs/design.md, "Polishing" and "Certificates"). FitFrom
// fits a model at a rank by such passes alone, from a starting subspace — a Nyström
// model's, random vectors — without tracking the points (docs/design.md, "Starting
// subspaces"). Inverse and PreImage map scores back to inputs (scikit-learn's
// inverse_transform) and denoise points (docs/design.md, "Pre-images").
//
// Model is an ikpca.Decremental and an ikpca.Persistent: MarshalBinary and
// UnmarshalBinary (and their streaming forms) save and restore it bit for bit. Each
// component's sign is fixed by its largest entry in point coordinates, as scikit-learn's
// svd_flip fixes it (docs/design.md, "Signs"), so that a batch fit, an incremental one
// and a restored model give the same scores.
package kpca
