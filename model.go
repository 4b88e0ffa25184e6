// Package ikpca is exact incremental kernel PCA in Go: the eigendecomposition of a
// kernel matrix kept up to date as points come and go, instead of recomputed.
//
//	model, err := kpca.Fit(kernel.RBF{Gamma: 4}, X, kpca.Options{Components: 3})
//	err = model.Transform(&scores, Xnew, 3) // scikit-learn's KernelPCA(n_components=3, gamma=4)
//	shares := model.ExplainedVariance(nil)
//	err = model.Add(x)                      // one more point: one eigen-update, not a refit
//
// This root package holds what every model of the module has in common: the interfaces by which any model is read
// ([Model]), fed ([Incremental], [Decremental]) and saved ([Persistent]), and the kinds
// of error every function returns. It imports nothing of the module; the model packages
// satisfy its interfaces and wrap its errors (docs/design.md, "Layout").
//
// The models live in their own packages:
//
//   - kpca.Model: exact incremental kernel PCA — every eigenpair, or the top k tracked
//     with a certificate — with exact removal and sliding windows; kpca.RankOneModel:
//     Hallgren and Northrop's algorithms, kept for comparison;
//   - nystrom.Model: Nyström kernel PCA as sums over the points, mergeable across
//     shards; nystrom.Approximation: the incremental Nyström approximation of a
//     kernel matrix;
//   - chinsuter.Model: Chin and Suter's incremental kernel PCA, exact or compressed;
//   - stream.SKPCA, stream.RNCA: random Fourier features with a sketch or an exact
//     covariance;
//   - stream.KRQA, stream.KHA: online kernel PCA by fixed-point and Hebbian iterations;
//   - pca.Model: exact incremental linear PCA of the d×d scatter matrix, gonum's
//     stat.PC kept up to date, with exact removal, weights and sliding windows.
//
// # Destinations
//
// Every model writes its results to destinations the caller gives, by one rule:
//
//   - A slice (Values, ExplainedVariance, ValueBounds, Mean): if len(dst) ≥ n the result
//     is written to dst[:n] and dst[:n] returned; otherwise a new slice is allocated and
//     dst left untouched. A nil dst allocates.
//   - A matrix, for a method that returns an error (Transform, Scores): an empty dst is
//     resized; a non-empty dst must have the result's shape, and one of another shape
//     is an error wrapping [ErrDimension], with dst unchanged, as gonum reports a
//     mismatch but without a panic. A nil dst is an [ErrArgument].
//   - A matrix, for a method that cannot fail (VectorsTo, Points, Landmarks): a dst of
//     the result's shape is written in place, an empty one resized, and one of another
//     shape replaced by a new matrix, as a slice without room is, its old storage (and
//     any matrix it was a view of) left untouched. A nil dst is left alone.
//
// No method panics on a destination. Package update, the engine, follows gonum's rule
// instead (nil allocates, a wrong size panics): its callers are programs that size their
// own buffers, not users. Package modeltest checks the rule (its Values, Destinations
// and BadTransform checks).
//
// Every model centres the points in feature space by default (kernel PCA proper); a
// model that can also decompose the uncentred kernel matrix names that option
// Uncentred. Package update is the
// eigen-update engine underneath, usable by any Go code; package modeltest checks that a
// model keeps the promises made here.
package ikpca

import (
	"encoding"
	"io"

	"gonum.org/v1/gonum/mat"
)

// Model is a kernel PCA model of the points it has seen: a set of principal components
// in a kernel's feature space, with their eigenvalues, and the projection of new points
// onto them. It is the read side that every model shares.
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
	//   - [ErrArgument]: the model is a zero value (never built, nor decoded), X or dst
	//     is nil, X lies about its size, or k is out of range;
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

	// Centred reports whether the model centres the points in feature space, so that
	// its eigenvalues are those of K' = CKC (the default of every model) rather than of
	// K (Options.Uncentred).
	Centred() bool

	// Bytes returns the memory the model's state holds, in bytes: its arrays, not
	// Go's per-object overhead.
	Bytes() int
}

// Incremental is a model that learns from points as they come: the write side that
// every model shares. On any error the model is left exactly as it was.
type Incremental interface {
	Model

	// Add adds the point x, of dimension Dim(). A point of the wrong length is an
	// error wrapping ErrDimension, one with a NaN or infinite coordinate ErrNonFinite.
	Add(x []float64) error

	// AddBatch adds the rows of X in order, all or nothing: a bad row anywhere in X is
	// an error, and then none of the rows is added. It may be faster than as many
	// calls of Add (a block update, or one refactorisation). A nil X is an error
	// wrapping ErrArgument, one without rows ErrEmpty.
	AddBatch(X mat.Matrix) error
}

// Decremental is an incremental model that can also forget a point exactly, as if it
// had never been added.
type Decremental interface {
	Incremental

	// Remove removes the point with index i, the i-th of the points the model holds,
	// oldest first; the later points' indices fall by one. An index out of range is
	// an error wrapping ErrArgument.
	Remove(i int) error
}

// Persistent is a model that can be saved and restored: the one persistence form of
// every model, in gonum's idiom (mat.Dense has the same four methods). The encoding is
// versioned and ends with a SHA-256 checksum of everything before it; it stores the
// floating-point state bit for bit, so that a restored model continues exactly as the
// saved one would have.
//
// A model is restored into a zero value of its type (var m kpca.Model;
// m.UnmarshalBinary(b)) or over an existing model, which it then replaces entirely.
// Bytes that are not an encoding of the type, of an unknown version, truncated,
// corrupted, or describing a model that cannot exist give an error wrapping
// ErrEncoding, and leave the receiver as it was. A model whose kernel is a
// kernel.Func is restored only if that kernel was registered by name
// (kernel.Register).
type Persistent interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler

	// MarshalBinaryTo writes the encoding MarshalBinary returns to w as it is
	// produced, 64 KiB at a time, without holding it all in memory, and returns the
	// number of bytes written. A nil w, or a model MarshalBinary refuses, is an error
	// wrapping ErrArgument; an error of w is returned as it is.
	MarshalBinaryTo(w io.Writer) (int, error)

	// UnmarshalBinaryFrom reads one encoding from r — exactly its bytes, the length its
	// frame states, so that several encodings can follow one another in a stream — and
	// restores the model from it, as UnmarshalBinary does. It returns the number of
	// bytes read. A nil r is an error wrapping ErrArgument; a stream that ends within
	// the encoding wraps ErrEncoding (and io.ErrUnexpectedEOF); another error of r is
	// returned as it is. On error the model is unchanged.
	UnmarshalBinaryFrom(r io.Reader) (int, error)
}
