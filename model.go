// Package ikpca holds what every kernel PCA model of this module has in common: the
// [Model] interface and the kinds of error its methods return. It sits at the bottom of
// the module's layering: it imports nothing of the module, and the model packages (kpca,
// chinsuter, stream) satisfy its interface and wrap its errors. See docs/design.md,
// "Layout".
//
// The models themselves live in their own packages:
//
//   - kpca.Model: exact incremental kernel PCA (every eigenpair, or the top r);
//   - nystrom.Model: Nyström kernel PCA as sums over the points, mergeable across
//     shards;
//   - chinsuter.Model: Chin and Suter's incremental kernel PCA, exact or compressed;
//   - stream.SKPCA, stream.RNCA: random Fourier features with a sketch or an exact
//     covariance;
//   - stream.KRQA, stream.KHA: online kernel PCA by fixed-point and Hebbian iterations.
//
// Package modeltest checks that a model keeps the promises made here.
package ikpca

import "gonum.org/v1/gonum/mat"

// Model is a kernel PCA model of the points it has seen: a set of principal components
// in a kernel's feature space, with their eigenvalues, and the projection of new points
// onto them.
//
// The eigenvalues are those of the kernel matrix of the points the model summarises —
// centred (K' = CKC, C = I − 11ᵀ/n) when the model centres, as kernel PCA proper does,
// and uncentred otherwise — or the model's estimate of them. They are not divided by the
// number of points.
type Model interface {
	// Values returns the model's eigenvalues in descending order. If dst has room for
	// them (len(dst) ≥ n) they are written to dst[:n], and dst[:n] is returned;
	// otherwise a new slice is allocated. n may be zero (a model that has not seen
	// enough points to have a component). Values cannot fail: a model that computes
	// its decomposition lazily makes that computation infallible, or computes it when
	// points are added and returns its errors there.
	Values(dst []float64) []float64

	// Transform writes the projections of the rows of X onto the top k principal
	// components, the scores, to dst (rows of X by k). An empty dst is resized; a
	// non-empty dst must be r×k. The scores of a point x are ⟨vⱼ, φ(x) − μ⟩ for a
	// centring model (μ the feature-space mean of the points seen) and ⟨vⱼ, φ(x)⟩
	// otherwise, with unit components vⱼ in the order of Values. Each component's sign
	// is fixed as scikit-learn's svd_flip fixes it (docs/design.md, "Signs"), so scores
	// are reproducible.
	//
	// k must be in [1, len(Values)]. On error dst is left unchanged, and the error wraps
	// one kind:
	//
	//   - [ErrArgument]: X or dst is nil, or k is out of range;
	//   - [ErrEmpty]: X has no rows, or the model has no components yet;
	//   - [ErrDimension]: X's columns are not Dim(), or a non-empty dst is not r×k;
	//   - [ErrNonFinite]: an entry of X is NaN or infinite, or a kernel value is not
	//     finite.
	Transform(dst *mat.Dense, X mat.Matrix, k int) error

	// Len returns the number of points the model summarises (in a sliding window,
	// the number in the window).
	Len() int

	// Dim returns the dimension of the points.
	Dim() int

	// Bytes returns the memory the model's state holds, in bytes: its arrays, not
	// Go's per-object overhead.
	Bytes() int
}
