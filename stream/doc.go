// Package stream holds approximate kernel PCA methods for streams longer than an exact
// m×m eigendecomposition can hold, each on the same footing as package kpca's exact
// incremental model (eigenvalues of the kernel matrix, Transform of new points,
// memory reported):
//
//   - SKPCA (Ghashami, Perry & Phillips, AISTATS 2016): random Fourier features
//     sketched by Frequent Directions; space O(ℓ·D), independent of the stream length.
//   - RNCA (Lopez-Paz et al. 2014): random Fourier features and the exact
//     eigendecomposition of their D×D second-moment (or covariance) matrix.
//
// Eigenvalues follow package kpca's convention: those of the kernel matrix K itself
// (not K/n), so that the methods and the exact model compare directly; a score is the
// coordinate along a unit principal direction in feature space, zᵀv, which for the
// exact model is uⱼᵀkₓ/√λⱼ.
//
// Every model here is an ikpca.Model (descending Values, Transform, Len, Dim, Bytes)
// with VectorsTo for its components, and passes package modeltest's suite. Components
// are signed as scikit-learn's svd_flip signs them (docs/design.md, "Signs"): the
// feature-space direction's largest entry positive for SKPCA and RNCA, the samples'
// scores' largest entry for KRQA and KHA. Errors wrap the package's sentinels, which
// wrap ikpca's kinds.
package stream
