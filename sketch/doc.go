// Package sketch maintains Frequent Directions sketches (Liberty 2013; Ghashami, Liberty,
// Phillips & Woodruff 2016): for a stream of rows forming A (n×d), a matrix B of at most
// ℓ rows such that
//
//	‖AᵀA − BᵀB‖₂ ≤ Δ ≤ (‖A‖_F² − ‖B‖_F²)/(ℓ+1)
//
// where Δ, the total shrinkage, is tracked and reported (ErrorBound): a certificate for
// the stream actually seen, never worse than the guarantee ‖A‖_F²/(ℓ/2) usually quoted.
// Space is (ℓ + buffer)·d, independent of n; sketches of two shards merge into a sketch
// of their union with the same guarantee.
package sketch
