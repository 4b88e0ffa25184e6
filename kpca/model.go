package kpca

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// Model is an ikpca.Decremental and an ikpca.Persistent.
var (
	_ ikpca.Decremental = (*Model)(nil)
	_ ikpca.Persistent  = (*Model)(nil)
)

// Model is an incremental kernel PCA of its points. Create one with Fit or New, or
// decode one into a zero Model (UnmarshalBinary); a zero Model is not otherwise usable
// (its methods that return errors return ErrArgument). A Model must not be used by
// several goroutines at once; distinct Models may be used concurrently.
type Model struct {
	kern kernel.Kernel
	opts Options // validated, Rank resolved
	rank int     // the rank tracked (Options.tracked): 0 for every pair
	d, m int
	x    []float64 // the points, m×d row-major, oldest first (capacity grows)
	view mat.Dense // header over x[:m*d], set without allocating

	// thin holds the decomposition of method Bordered: the eigenvectors of K' (centred,
	// columns orthogonal to 1, m−1 of them) or of K (uncentred, m of them), or the top
	// rank of either, in point coordinates.
	thin       update.Thin
	rowSum     []float64   // K·1, maintained in O(m) per point
	total      float64     // 1ᵀK1
	self       float64     // Σ k(xᵢ, xᵢ), the trace of K
	cert       certificate // what the truncations to the rank dropped
	col        []float64   // scratch: kernel column of a point
	blockA     []float64   // scratch of a block step: its kernel block (m×b)
	blockB     []float64   // and, centred, its border
	blockWork  *kernel.BlockWork
	blocks     *blockScratch // the rest of a block step's scratch (addBlocks)
	kept       *keptKernel   // kernel values kept for block steps and a Polish (KeepKernel)
	work       []float64     // scratch vectors
	work2      []float64
	work3      []float64
	vecA, vecB mat.VecDense // headers that pass scratch vectors to update (vector)
	since      int          // points since the last drift probe
	// sincePolish counts the points added to a window tracked at a rank since its last
	// polish or batch decomposition (Options.WindowPolish).
	sincePolish int
	stats       Stats
	probe       []float64
	probe2      []float64
	probeMV     []float64
	updates     []update.Stats // of the last step's eigen-updates
	pending     []update.Stats // of the step in progress
	// spare holds the buffers a call's rollback records into, lent to its txn and
	// reused by every call (txn.go): a caller adding a long input a block at a time (the
	// command's fit) otherwise left m numbers of garbage a block, and in a window m·d.
	spare txnBuffers
}

// Stats describes the state of a Model and its last addition.
type Stats struct {
	// Points is the number of points.
	Points int
	// Last is the statistics of the last eigen-update (for a RankOneModel: the last of the
	// step's updates).
	Last update.Stats
	// Deflated is the number of components deflated in the last step, over all its
	// updates (see UpdateStats for each).
	Deflated int
	// Refreshes counts the recomputations from scratch (Refresh, manual or automatic).
	Refreshes int
	// LastDrift is the result of the last drift probe (zero if none has run).
	LastDrift Drift
	// RefreshErr is the error of the last automatic refresh, if it failed; the point
	// was added nonetheless and the model kept its incremental decomposition.
	RefreshErr error
	// Polishes counts the self-polishes of a window tracked at a rank
	// (Options.WindowPolish) that succeeded.
	Polishes int
	// PolishErr is the error of the last self-polish, if it failed; the point was
	// added nonetheless and the model kept its tracked pairs and its certificate.
	PolishErr error
}

// setOptions gives the decompositions the solver options and the truncation.
func (md *Model) setOptions() {
	md.thin.SetOptions(md.opts.Update)
	md.thin.SetTruncation(md.truncation())
}

// truncation is what the Thin keeps: every pair (the exact model), or at most rank of
// them, of positive eigenvalue (docs/design.md, "Rank-r tracking").
func (md *Model) truncation() update.Truncation {
	return update.Truncation{Rank: md.rank}
}

// ready reports a zero Model, which has no kernel: only decoding makes it a model.
func (md *Model) ready() error {
	if md.kern == nil {
		return fmt.Errorf("%w: a zero Model: build one with Fit or New, or decode one into it (UnmarshalBinary)", ErrArgument)
	}
	return nil
}

// CopyFrom makes md a copy of src: its kernel, options, points, decomposition and
// statistics. It allocates only if md lacks the capacity for src's points, so that a
// model can be restored to a saved state repeatedly without garbage (a what-if
// analysis, or a benchmark that times the same step again and again). The kernel value
// is shared, not copied: kernels are immutable values. md may be a zero Model; a nil src
// or a zero one (nothing to copy) is an ErrArgument, and leaves md as it was.
func (md *Model) CopyFrom(src *Model) error {
	if src == nil {
		return fmt.Errorf("%w: CopyFrom(nil)", ErrArgument)
	}
	if err := src.ready(); err != nil {
		return fmt.Errorf("%w: CopyFrom of a zero Model", ErrArgument)
	}
	if md == src {
		return nil
	}
	md.copyStore(src, md.ensure)
	md.thin.CopyFrom(&src.thin)
	return nil
}

// copyStore is CopyFrom of all but the decomposition, with ensure the room of the
// type that holds md (Model.ensure, or a RankOneModel's, which holds no update.Thin).
func (md *Model) copyStore(src *Model, ensure func(n int)) {
	if md.d != src.d {
		md.x, md.rowSum = nil, nil // the point buffer's layout changes
		md.d = src.d
	}
	md.kern, md.opts, md.rank = src.kern, src.opts, src.rank
	md.setOptions()
	md.m = 0
	ensure(src.m)
	md.m = src.m
	copy(md.x, src.x[:src.m*src.d])
	copy(md.rowSum, src.rowSum[:src.m])
	md.total, md.self, md.cert = src.total, src.self, src.cert
	md.since, md.sincePolish, md.stats = src.since, src.sincePolish, src.stats
	md.updates = append(md.updates[:0], src.updates...)
	md.setView()
}

// setView points the header md.view at the first m points.
func (md *Model) setView() {
	if md.kept != nil && md.m != md.kept.expect {
		md.dropKept() // the points changed otherwise than by a kept block step
	}
	if md.m == 0 || md.d == 0 {
		md.view = mat.Dense{}
		return
	}
	md.view.SetRawMatrix(blas64.General{Rows: md.m, Cols: md.d, Stride: md.d, Data: md.x[:md.m*md.d]})
}

// point returns point i (shared storage).
func (md *Model) point(i int) []float64 { return md.x[i*md.d : (i+1)*md.d] }

// Len returns the number of points (in a window, the number in the window).
func (md *Model) Len() int { return md.m }

// Dim returns the dimension of the points: 0 for a model of kernel.Precomputed, whose
// points are given by their kernel values.
func (md *Model) Dim() int { return md.d }

// Bytes returns the memory the model holds in its arrays, in bytes: the points, the
// decomposition with its update workspaces (update.Thin.Bytes), the
// copies a call keeps to roll itself back (txn), and O(m)
// vectors: O(m²) for the exact model, O(m·(Rank+d)) at rank r. It follows the capacity
// (Reserve), which grows by a quarter at a time as points are added.
func (md *Model) Bytes() int {
	vecs := cap(md.x) + cap(md.rowSum) + cap(md.col) + cap(md.work) + cap(md.work2) +
		cap(md.work3) + cap(md.probe) + cap(md.probe2) + cap(md.probeMV) + cap(md.blockA) + cap(md.blockB)
	return 8*vecs + md.spare.bytes() + md.thin.Bytes()
}

// Kernel returns the model's kernel.
func (md *Model) Kernel() kernel.Kernel { return md.kern }

// Options returns the model's options, with Rank resolved: max(Components, DefaultRank)
// if it was given as zero with Components k — at least the Window for a Window of at
// most DefaultExactWindow points, which makes the window exact.
func (md *Model) Options() Options { return md.opts }

// Rank returns the number of eigenpairs the model tracks, the rank of the matrix
// K̃ = V·Λ·Vᵀ it holds (docs/design.md, "Rank-r tracking"), or 0 when it tracks every
// pair: with Components All, or in a Window of at most Options.Rank points, which never
// holds more pairs — every Window of at most DefaultExactWindow points when Options.Rank
// is zero.
func (md *Model) Rank() int { return md.rank }

// Stats returns statistics of the model and its last step.
func (md *Model) Stats() Stats { return md.stats }

// Points copies the points into the rows of dst, oldest first (the order of Remove's
// indices): a Len()×Dim() dst is written in place, an empty one resized, and one of
// another shape replaced by a new matrix (the rule of VectorsTo). A model without
// points leaves dst empty (or as it is, if it was), and so does a model of
// kernel.Precomputed, which has no coordinates (Dim() is 0); a nil dst is left alone.
func (md *Model) Points(dst *mat.Dense) {
	if md.d == 0 || !check.Vectors(dst, md.m, md.d) {
		return
	}
	dst.Copy(&md.view)
}

// Centred reports whether the model decomposes the centred kernel matrix K' = CKC (the
// default) rather than K (Options.Uncentred).
func (md *Model) Centred() bool { return !md.opts.Uncentred }
