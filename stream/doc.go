// Package stream holds approximate kernel PCA methods for streams longer than an exact
// m×m eigendecomposition can hold.
//
//	s, err := stream.NewSKPCA(kernel.RBF{Gamma: 0.5}, d, stream.SKPCAOptions{Features: 1000, Sketch: 20})
//	err = s.AddBatch(X)                 // or Add(x): O(d·D + D·ℓ) a point, memory O(ℓ·D)
//	values := s.Values(nil)             // the top ℓ eigenvalues of the centred kernel matrix,
//	bound := s.ErrorBound()             // each within this certified bound
//	err = s.Transform(&scores, Xnew, 5) // scores of new points
//
// Each is on the same footing as package kpca's exact incremental model (eigenvalues of
// the kernel matrix, Transform of new points, memory reported):
//
//   - SKPCA (Ghashami, Perry & Phillips, AISTATS 2016): random Fourier features
//     sketched by Frequent Directions; space O(ℓ·D), independent of the stream length;
//     shards merge.
//   - RNCA (Lopez-Paz et al. 2014): random Fourier features and the exact
//     eigendecomposition of their D×D covariance.
//   - KRQA: online kernel PCA by the Rayleigh-quotient fixed point, over the samples.
//   - KHA (Kim, Franz & Schölkopf 2005): the kernel Hebbian algorithm, its iterative
//     baseline.
//
// Every constructor takes the kernel first, then the points' dimension and the options:
// NewSKPCA(k, d, opts), NewRNCA(k, d, opts), NewKRQA(k, d, opts), NewKHA(k, d, opts).
// SKPCA and RNCA approximate the Gaussian kernel by random Fourier features and take a
// kernel.RBF (given by σ or by scikit-learn's γ); KRQA and KHA take any kernel.
//
// Every model centres in feature space by default, as kernel PCA proper does: its
// eigenvalues are those of the centred kernel matrix HKH (H = I − 11ᵀ/n), or its
// estimate of them, and a score is measured from the mean of the points seen. The
// option Uncentred, in every model's Options, decomposes K itself instead (the
// paper's model, for SKPCA). Eigenvalues follow package kpca's convention: those of the
// kernel matrix (not divided by n), so that the methods and the exact model compare
// directly; a score is the coordinate along a unit principal direction in feature
// space.
//
// Every model is an ikpca.Incremental (Add, and AddBatch, all or nothing) and an
// ikpca.Persistent (MarshalBinary, UnmarshalBinary, MarshalBinaryTo,
// UnmarshalBinaryFrom: a versioned, checksummed encoding from which a model continues
// exactly as the saved one would, its kernel rebuilt by kernel.New), with VectorsTo for
// its components, and passes package modeltest's suite. Components are signed as
// scikit-learn's svd_flip signs them (docs/design.md, "Signs"): the feature-space
// direction's largest entry positive for SKPCA and RNCA, the samples' scores' largest
// entry for KRQA and KHA. Every error wraps one of the package's sentinels, each of
// which wraps ikpca's kind of the same name.
package stream
