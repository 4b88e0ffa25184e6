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
// matrix, how accurate it is (docs/design.md, "Polishing" and "Certificates"). Inverse
// and PreImage map scores back to inputs (scikit-learn's inverse_transform) and denoise
// points (docs/design.md, "Pre-images").
//
// Model is an ikpca.Decremental and an ikpca.Persistent: MarshalBinary and
// UnmarshalBinary (and their streaming forms) save and restore it bit for bit. Each
// component's sign is fixed by its largest entry in point coordinates, as scikit-learn's
// svd_flip fixes it (docs/design.md, "Signs"), so that a batch fit, an incremental one
// and a restored model give the same scores.
package kpca

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/hugepage"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/vec"
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
	thin update.Thin
	// paper is the decomposition of the RankOneModel that wraps this Model (Hallgren and
	// Northrop's method, rankone_paper.go), nil in a Model: the one field, and the few
	// hooks that test it, by which the two types share the store and the read side
	// (docs/design.md, "Two types, one store").
	paper      *paperDecomposition
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
	md.setPaper()
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

// bordered reports whether the decomposition is the Thin: a Model, not the one a
// RankOneModel wraps.
func (md *Model) bordered() bool { return md.paper == nil }

// capacity is the number of points the buffers hold.
func (md *Model) capacity() int {
	if md.d == 0 {
		if md.precomputed() {
			return len(md.rowSum) // no coordinates: the row sums hold one number a point
		}
		return 0
	}
	return cap(md.x) / md.d
}

// Reserve makes room for n points, so that adding (and removing) points up to that
// number allocates nothing: the decomposition's buffers — two n×n matrices, or two
// n×(Rank+2) at rank r — are allocated here. The model grows by itself as points are
// added; Reserve only spares the reallocations and lets a caller allocate everything up
// front. A zero Model (no kernel, no dimension yet), a negative n, and an n whose
// buffers would hold more than 2³⁰ numbers (docs/design.md, "Sizes": an exact model
// beyond 2¹⁵ points, n·d coordinates, n·(Rank+2) at rank r) are ErrArgument errors, and
// leave the model as it was.
func (md *Model) Reserve(n int) error {
	if err := md.ready(); err != nil {
		return err
	}
	if n < 0 {
		return fmt.Errorf("%w: Reserve(%d): a negative number of points", ErrArgument, n)
	}
	if _, err := kinds.Floats("the points", n, md.d); err != nil {
		return err
	}
	if _, err := kinds.Floats("the decomposition", n+1, md.columns(n+1)); err != nil {
		return err
	}
	md.reserve(n)
	return nil
}

// reserve is Reserve of an n the data chose (ensure, fit), not the caller: the sizes
// grow with the points added and are not bounded (docs/design.md, "Sizes").
func (md *Model) reserve(n int) {
	if md.d == 0 && !md.precomputed() || n <= md.capacity() && len(md.rowSum) >= n && len(md.col) >= n+1 {
		return
	}
	// The points and row sums are kept where they are if they have room (a decoded
	// model's, taken by UnmarshalBinary), and the workspaces sized below in any case.
	if n > md.capacity() {
		x := hugepage.Floats(md.m*md.d, n*md.d)
		copy(x, md.x[:md.m*md.d])
		md.x = x
	}
	md.x = md.x[:n*md.d]
	if len(md.rowSum) < n {
		rowSum := make([]float64, n)
		copy(rowSum, md.rowSum)
		md.rowSum = rowSum
	}
	md.col = make([]float64, n+1)
	md.work = make([]float64, n+1)
	md.work2 = make([]float64, n+1)
	md.work3 = make([]float64, n+1)
	md.spare.reserve(n, md.d)
	if md.paper != nil {
		md.paper.sym.Reserve(n + 1)
	} else {
		md.thin.Reserve(n+1, md.columns(n+1))
	}
	md.setView()
}

// columns is the number of eigenpairs a decomposition of n points holds, with room for
// the two a Border adds before truncating.
func (md *Model) columns(n int) int {
	if md.rank > 0 {
		return min(md.rank+2, n)
	}
	return n
}

// ensure makes room for n points, growing by a factor of 1.25 at least so that points
// added one by one reallocate only now and then (amortised O(m²) copying per point,
// negligible next to an O(m³) update).
func (md *Model) ensure(n int) {
	switch {
	case n > md.capacity() || len(md.rowSum) < n:
		md.reserve(max(n, md.capacity()+md.capacity()/4, 16))
	case len(md.col) < n+1: // points with room but no workspaces (UnmarshalBinary)
		md.reserve(md.capacity())
	}
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
	if md.d != src.d {
		md.x, md.rowSum = nil, nil // the point buffer's layout changes
		md.d = src.d
	}
	md.kern, md.opts, md.rank = src.kern, src.opts, src.rank
	md.setOptions()
	md.m = 0
	md.ensure(src.m)
	md.m = src.m
	copy(md.x, src.x[:src.m*src.d])
	copy(md.rowSum, src.rowSum[:src.m])
	md.total, md.self, md.cert = src.total, src.self, src.cert
	if src.paper != nil {
		md.paper.sym.CopyFrom(&src.paper.sym) // setOptions made md.paper
	} else {
		md.thin.CopyFrom(&src.thin)
	}
	md.since, md.sincePolish, md.stats = src.since, src.sincePolish, src.stats
	md.updates = append(md.updates[:0], src.updates...)
	md.setView()
	return nil
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
// decomposition with its update workspaces (update.Thin.Bytes, update.Sym.Bytes), the
// copies a call keeps to roll itself back (txn), and O(m)
// vectors: O(m²) for the exact model, O(m·(Rank+d)) at rank r. It follows the capacity
// (Reserve), which grows by a quarter at a time as points are added.
func (md *Model) Bytes() int {
	vecs := cap(md.x) + cap(md.rowSum) + cap(md.col) + cap(md.work) + cap(md.work2) +
		cap(md.work3) + cap(md.probe) + cap(md.probe2) + cap(md.probeMV) + cap(md.blockA) + cap(md.blockB)
	return 8*vecs + md.spare.bytes() + md.thin.Bytes() + md.paper.bytes()
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

// Add adds the point x (of dimension Dim()) and updates the decomposition; in a full
// window it first removes the oldest point. A point of another dimension is an error
// wrapping ErrDimension, a NaN or infinite coordinate or kernel value ErrNonFinite, a
// solver that does not converge ErrNotConverged. On error the model is unchanged. To a
// model of kernel.Precomputed, x is the point's kernel column followed by its
// self-kernel, Len()+1 values: Add(x) is AddColumn(x[:Len()], x[Len()]).
func (md *Model) Add(x []float64) error {
	if err := md.ready(); err != nil {
		return err
	}
	if md.precomputed() {
		if len(x) != md.m+1 {
			return fmt.Errorf("%w: a point of a model of kernel.Precomputed is its %d kernel values and its self-kernel, not %d values", ErrDimension, md.m, len(x))
		}
		return md.AddColumn(x[:md.m], x[md.m])
	}
	if err := kinds.Point(x, md.d); err != nil {
		return err
	}
	return md.transact(md.addScope(), func() error { return md.add(x) })
}

// add adds a validated point, sliding a full window, and records the step; the caller's
// txn, of addScope, rolls it back on error.
func (md *Model) add(x []float64) error {
	md.pending = md.pending[:0]
	var err error
	if w := md.opts.Window; w > 0 && md.m >= w {
		err = md.slide(x)
	} else {
		err = md.addPoint(x)
	}
	if err != nil {
		return err
	}
	md.endStep()
	md.maybeRefresh()
	md.maybePolish(1)
	return nil
}

// endStep makes the updates of the step in progress the last step's.
func (md *Model) endStep() {
	md.stats.Points = md.m
	md.updates, md.pending = md.pending, md.updates
	if len(md.updates) > 0 {
		md.stats.Last = md.updates[len(md.updates)-1]
	}
	md.stats.Deflated = 0
	for _, st := range md.updates {
		md.stats.Deflated += st.Deflated
	}
}

// addPoint adds a validated point to the decomposition, the points and the sums.
func (md *Model) addPoint(x []float64) error {
	m := md.m
	md.ensure(m + 1)
	a := md.col[:m]
	if m > 0 {
		kernel.Column(a, md.kern, &md.view, x)
	}
	return md.addColumn(a, md.kern.Eval(x, x), x)
}

// addColumn adds the point x — nil for a model of kernel columns — of kernel column a
// against the points (md.col[:m], which ensure(m+1) sized) and self-kernel c to the
// decomposition, the points and the sums.
func (md *Model) addColumn(a []float64, c float64, x []float64) error {
	m := md.m
	var sa float64
	for i, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: kernel value with point %d is %g", ErrNonFinite, i, v)
		}
		sa += v
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("%w: kernel value k(x, x) = %g", ErrNonFinite, c)
	}

	var err error
	var scale float64 // the scale of the bordered matrix, for the certificate's rounding
	switch {
	case md.paper != nil:
		err = md.paperStep(a, c, sa)
	case md.opts.Uncentred:
		if err = md.thin.Border(vector(&md.vecA, a), nil, 1, c); err == nil {
			md.tally(md.thin.Stats())
			scale = math.Max(vec.Norm(a), math.Abs(c))
		}
	case m == 0:
		md.thin.Grow() // one centred point has no component
		md.tally(md.thin.Stats())
	default:
		scale, err = md.centredBorder(a, c, sa)
		if err == nil {
			md.tally(md.thin.Stats())
		}
	}
	if err != nil {
		return kinds.Wrap(err, "adding point %d", m)
	}

	// Commit: the point, the row sums and the total.
	copy(md.x[m*md.d:(m+1)*md.d], x)
	for i, v := range a {
		md.rowSum[i] += v
	}
	md.rowSum[m] = sa + c
	md.total += 2*sa + c
	md.self += c
	md.m = m + 1
	md.setView()
	if md.paper == nil {
		stepCertificate(&md.cert, md.thin.Stats(), scale, md.self, md.total, md.m, md.rank > 0)
	}
	return nil
}

// tally records the statistics of an eigen-update of the step in progress.
func (md *Model) tally(st update.Stats) { md.pending = append(md.pending, st) }

// UpdateStats appends to dst the statistics of each eigen-update of the last step, in
// order, and returns it: for method Bordered one update, or two in a full window (the
// removal of the oldest point, then the addition); for a RankOneModel three uncentred and five
// centred, the expansion included (in which every old component deflates and no
// product is needed). With Stats.Deflated it shows where a step's time goes: each
// update's product costs about 2·m·K² flops, K its secular size (Stats.Secular).
func (md *Model) UpdateStats(dst []update.Stats) []update.Stats {
	return append(dst, md.updates...)
}

// centredBorder adds a point to the centred decomposition, whose vectors are in point
// coordinates and orthogonal to 1 (docs/design.md, "Removing a point"): in the basis of
// 1⊥ that the old vectors extend by the Helmert column u = (α·1, −α·m), α = 1/√(m(m+1)),
// the new point borders the matrix with
//
//	b = α·(K·1 − m·a),   γ = α²·(1ᵀK1 − 2m·Σa + m²c)
//
// (docs/design.md, "Helmert coordinates"), for its kernel column a, self-kernel c and
// Σa = sa. It returns the scale of the border, max(‖b‖, |γ|).
func (md *Model) centredBorder(a []float64, c, sa float64) (float64, error) {
	m := len(a)
	fm := float64(m)
	alpha := helmertAlphaOf(m)
	b, e := md.work[:m], md.work2[:m]
	for i := range m {
		b[i] = alpha * (md.rowSum[i] - fm*a[i])
		e[i] = alpha
	}
	gamma := alpha * alpha * (md.total - 2*fm*sa + fm*fm*c)
	if err := md.thin.Border(vector(&md.vecA, b), vector(&md.vecB, e), -alpha*fm, gamma); err != nil {
		return 0, err
	}
	return math.Max(vec.Norm(b), math.Abs(gamma)), nil
}

// Centred reports whether the model decomposes the centred kernel matrix K' = CKC (the
// default) rather than K (Options.Uncentred).
func (md *Model) Centred() bool { return !md.opts.Uncentred }
