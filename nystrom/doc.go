// Package nystrom holds the module's two uses of the Nyström method, Nyström kernel PCA
// (Model) and the incremental Nyström approximation of a kernel matrix (Approximation).
//
//	L, err := nystrom.Choose(k, sample, nystrom.Options{Landmarks: 200, Seed: 1})
//	a, err := nystrom.New(k, L, nystrom.Options{}) // a model per shard: O(r²) numbers
//	err = a.AddBatch(shard)                         // however many points it sees
//	err = a.Merge(b)                                // b: another shard, same landmarks
//	err = a.Transform(&scores, Xnew, 10)
//
// Model is Nyström kernel PCA — the exact kernel PCA of the Nyström-approximated kernel matrix
// K_nL·K_LL⁺·K_Ln of any number of points, from r landmarks L, kept as sums that merge
// (Sterge, Sriperumbudur, Rosasco and Rudi, "Gain with no pain", AISTATS 2020;
// docs/design.md, "Nyström kernel PCA") — and Approximation, the incremental Nyström
// approximation of the kernel matrix of one fixed data set, its landmarks, rows of the
// data, added one at a time (Hallgren and Northrop, §4; docs/design.md, "Nyström").
// The difference: a Model is an ikpca.Model that learns from points as they come and
// keeps none of them (O(r² + r·d) numbers, however many points), its landmarks fixed at
// the start, and it can be saved, shipped and merged; an Approximation keeps its whole
// data set, grows its landmarks instead, and measures how well K̃ approximates K
// (Errors), which is what it is for: choosing the number of landmarks. It takes no
// points, and is not an ikpca.Model.
//
// # Nyström kernel PCA
//
// With K_LL = W·Σ·Wᵀ (the pairs above a tolerance), each point x has the feature vector
//
//	φ(x) = Σ^−½·Wᵀ·k(L, x) ∈ Rʳ',
//
// and φ(x)ᵀφ(y) is the Nyström approximation of k(x, y). A Model accumulates n, Σφ and
// Σφφᵀ — O(r²) numbers, however many points — and its kernel PCA is that of the centred
// covariance C = Σφφᵀ − n·φ̄φ̄ᵀ, an r'×r' eigenproblem solved when it is read; with
// Options.Uncentred, that of Σφφᵀ itself (the eigenvalues of K̃, the scores without the
// mean). Models built with the same landmarks on different shards of the data merge by
// adding their sums (Merge), with compensated summation, so that merging equals one
// pass to rounding.
//
// Choose picks the landmarks from a sample (uniformly, the first r of a stream, or
// greedily by the Nyström error); New builds an empty model from given landmarks, fed
// by Add and AddBatch; Fit does both and adds the sample (the batch fit). MarshalBinary
// and UnmarshalBinary (or MarshalBinaryTo and UnmarshalBinaryFrom, on streams) ship a
// model, fitted or partial, between processes: the encoding carries the feature map, so
// that every shard sums in the same basis. A shard's Sums (SumsTo) are its points
// without the map, about half the bytes, named by the map's digest: they merge with
// each other and add to a model of the same map (AddSums), as Merge would, and decode
// without the map's verification (docs/design.md, "Beyond one machine").
//
// Inverse fits scikit-learn's learned pre-image map (preimage.KRR) on training points
// the caller gives, since the model keeps none, and PreImage denoises points by the
// fixed-point pre-image of their projection, over the landmarks (docs/design.md,
// "Pre-images").
//
// Components are signed as scikit-learn's svd_flip signs them (docs/design.md, "Signs"):
// for a Model the vector signed is the feature-space direction vⱼ ∈ Rʳ', whose
// largest-magnitude entry is made positive; for an Approximation, each eigenvector over
// the data points.
//
// Model is an ikpca.Incremental and an ikpca.Persistent, and passes package modeltest's
// suite, centred and uncentred. Every error of the package wraps one of its sentinels
// (ErrArgument, …), each of which wraps the ikpca kind of the same name. The package is
// a sibling of package kpca rather than a part of it: a Model keeps no points and no
// eigen-update, only a fixed feature map and sums; the Approximation's eigen-update is
// package update's.
package nystrom
