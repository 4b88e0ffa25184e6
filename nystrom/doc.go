// Package nystrom is Nyström kernel PCA: the exact kernel PCA of the Nyström-approximated
// kernel matrix K_nL·K_LL⁺·K_Ln of any number of points, from r landmarks L, as a sum
// that merges (Sterge, Sriperumbudur, Rosasco and Rudi, "Gain with no pain", AISTATS
// 2020; docs/design.md, "Nyström kernel PCA").
//
// With K_LL = W·Σ·Wᵀ (the pairs above a tolerance), each point x has the feature vector
//
//	φ(x) = Σ^−½·Wᵀ·k(L, x) ∈ Rʳ',
//
// and φ(x)ᵀφ(y) is the Nyström approximation of k(x, y). A Model accumulates n, Σφ and
// Σφφᵀ — O(r²) numbers, however many points — and its kernel PCA is that of the centred
// covariance C = Σφφᵀ − n·φ̄φ̄ᵀ, an r'×r' eigenproblem solved when it is read. Models
// built with the same landmarks on different shards of the data merge by adding their
// sums (Merge), with compensated summation, so that merging equals one pass to rounding.
//
// Choose picks the landmarks from a sample (uniformly, the first r of a stream, or
// greedily by the Nyström error); New builds a model from given landmarks; Fit does
// both and adds the sample. MarshalBinary and UnmarshalBinary ship a model, fitted or
// partial, between processes.
//
// Components are signed as scikit-learn's svd_flip signs them (docs/design.md, "Signs"):
// for this model the vector signed is the feature-space direction vⱼ ∈ Rʳ', whose
// largest-magnitude entry is made positive.
//
// Model is an ikpca.Model and passes package modeltest's suite. It is a sibling of
// package kpca rather than a part of it: it keeps no points and no eigen-update, only a
// fixed feature map and sums, and needs of the module only kernel and native.
package nystrom
