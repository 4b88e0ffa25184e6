package kpca

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/update"
)

// All, as Options.Components, keeps and reports every eigenpair: the exact model.
const All = -1

// DefaultRank is the number of pairs a model of Components k tracks when Options.Rank is
// zero, if k is smaller: the top pairs of a tracked model are accurate only well inside
// its rank (see Options.Rank).
const DefaultRank = 50

// DefaultExactWindow is the largest Window that a model of Components k keeps exactly
// when Options.Rank is zero: every pair of the window's m×m centred kernel matrix, whose
// steps (one removal and one bordering, each one m×m×m product: 4m³ flops) agree with a
// batch decomposition of the window to rounding, and whose ErrorBound is zero. At 256
// points a step is 67 Mflop, a few milliseconds (the times are in docs/design.md,
// "Windows at rank r"), and the decomposition and its rollback copy take 1 MiB. A larger
// window is tracked at the rank and polishes itself (Options.WindowPolish): exactness
// there costs (Window/Rank)² times a tracked step, which grows without bound.
const DefaultExactWindow = 256

// DefaultBatchMax is the most points Fit decomposes at once when Options.BatchMax is
// zero: 4096 points, whose kernel matrix takes 128 MiB (and LAPACK's dsyevr, for the top
// pairs, about a second with OpenBLAS on two cores). Beyond it the n×n matrix grows past
// what a fit of the top pairs needs — 2.7 GiB for MAGIC's 19,020 points — and Fit tracks
// the top pairs instead.
const DefaultBatchMax = 4096

// trackedStart is the most points a tracked Fit decomposes at once before it adds the
// others in blocks (fewer if Options.BatchMax is smaller, more if 2·Rank+2 is more).
const trackedStart = 1000

// method is how a point is added: the type a caller builds, Model or RankOneModel, whose
// encodings share one format and name it in the header's "method" field (docs/design.md,
// "Two types, one store").
type method int

const (
	// methodBordered is Model's: one bordering update a point (update.Thin.Border).
	methodBordered method = iota
	// methodRankOne is RankOneModel's: Hallgren and Northrop's rank-one updates.
	methodRankOne
)

// String returns "bordered" or "rank-one", the names of the encoding's header.
func (m method) String() string {
	if m == methodRankOne {
		return "rank-one"
	}
	return "bordered"
}

// Options configure a Model. Components is required; the zero value of every other field
// is its default: centred, rank max(Components, DefaultRank) (every pair in a
// Window of at most DefaultExactWindow points), no window, no automatic refresh, a
// tracked window's self-polish every Window steps.
type Options struct {
	// Components is k, the number of top eigenpairs the model keeps and reports — what
	// Values, VectorsTo, ExplainedVariance, ValueBounds, Scores and the k of Transform
	// give (fewer while the model has fewer pairs) — or All, every eigenpair. It is
	// required: zero is an error, for the two choices differ by orders of magnitude in
	// cost.
	//
	//   - k: the model tracks the top Rank ≥ k pairs, in O(m·(Rank+d)) memory and
	//     O(m·Rank² + m·d) work a point. Fit computes only the top Rank pairs of at
	//     most BatchMax points (LAPACK dsyevr with an index range), and tracks the
	//     others; ErrorBound and ValueBounds certify what the truncations lose
	//     (docs/design.md, "Rank-r tracking").
	//   - All: every eigenpair of the m×m matrix, O(m²) memory, a batch fit O(m³)
	//     (all of the matrix's eigenvectors), and a point one m×m×m product: the
	//     exact model, which agrees with a batch kernel PCA to rounding.
	Components int

	// Rank is the number of top eigenpairs the model tracks as points are added (the
	// rank of the matrix K̃ = V·Λ·Vᵀ it holds), of which it reports the top Components.
	// Zero means max(Components, DefaultRank) — or, with a Window of at most
	// DefaultExactWindow points, every pair: the exact window (Rank resolves to
	// max(Components, DefaultRank, Window), and Model.Rank() reports 0). Otherwise it is
	// at least Components, and a Window of more than Rank points is tracked at Rank. It
	// must be zero with Components All. (pca.Options.Rank's zero means the exact model:
	// a linear model's exact state is d×d whatever the number of points, a kernel
	// model's m×m grows with every point, so here exact is what the caller asks for,
	// with Components All or a small Window.)
	//
	// The top pairs of a tracked model are accurate only well inside its rank: each
	// truncation drops a pair that later points would have raised. Streaming all 19,020
	// points of MAGIC (Gaussian kernel, centred; docs/design.md, "Rank-r tracking"), the
	// top 10 eigenvalues came within 0.085 of a batch decomposition's, relative, at rank
	// 10; 3e-5 at rank 20; 3.3e-7 at rank 50; 1.2e-8 at rank 100. Hence the default of
	// 50, and Rank = Components only when the spectrum beyond k is known to be small.
	//
	// A model is exact while it has at most Rank pairs: until it holds more than Rank+1
	// points (centred; Rank uncentred) it grows keeping every pair of positive
	// eigenvalue, as a batch decomposition of its points would, and ErrorBound is
	// rounding; so New starts any model empty, and Fit of few points is one batch
	// decomposition. (Remove at rank r deletes the point from the tracked matrix, and
	// drops the pairs it leaves below 2⁻²⁰·λ₁, which ErrorBound counts: docs/design.md,
	// "Rank-r tracking".) With a Window of at most Rank points the model never holds
	// more than Rank pairs, and tracks every pair: the exact model, with its exact
	// Remove (Model.Rank() reports 0).
	Rank int

	// Uncentred makes the model decompose the kernel matrix K itself. By default the
	// model decomposes the mean-adjusted K' = CKC, C = I − 11ᵀ/m: kernel PCA proper,
	// whose trivial eigenvector 1/√m (eigenvalue 0) is not reported.
	Uncentred bool

	// Window, if positive, makes the model a sliding window over the last Window
	// points: an Add beyond Window points first removes the oldest (as Remove(0) would),
	// so that indices shift down by one, and Fit of more rows keeps the last Window of
	// them. At least 2. Model only (a RankOneModel has no window).
	//
	// A window is exact (Model.Rank() = 0: it agrees with a batch kernel PCA of its
	// points to rounding, and ErrorBound is zero) with Components All, with Rank zero and
	// at most DefaultExactWindow points, or with at most Rank points. A larger window is
	// tracked at Rank, and since it stores its points it polishes itself from them
	// (WindowPolish), which restarts ErrorBound from what the polish certifies: the bound
	// then stays within a constant of the true error however long the stream
	// (docs/design.md, "Windows at rank r").
	Window int

	// WindowPolish configures the self-polish of a window tracked at Rank; the zero
	// value is the default, a Polish of DefaultWindowPolishPasses passes every Window
	// steps. Other models ignore it.
	WindowPolish WindowPolish

	// Block is the number of rows AddBatch adds in one step at rank r (update.Thin.
	// BorderBlock: the kernel block, the Gram–Schmidt and the product at dgemm speed,
	// and one truncation a block instead of one a row; docs/design.md, "Rank-r tracking
	// in blocks"); zero means DefaultBlock, 1 adds the rows one at a time as Add does.
	// The rank-r decomposition then depends on the blocks, within the certificate
	// either way. A window takes blocks only while it fills. Negative is an error.
	Block int

	// RefreshTolerance, if positive, turns on drift control: every CheckEvery points the
	// model probes its accuracy (Drift) and recomputes the decomposition from the points
	// (Refresh) when the orthogonality or the residual exceeds the tolerance. Negative,
	// NaN or infinite (a probe whose verdict is always "fine") is an error.
	RefreshTolerance float64

	// CheckEvery is the number of points between drift probes; zero means 100.
	CheckEvery int

	// Update tunes the eigen-update solver (goroutines, iteration cap); negative values
	// are an error.
	Update update.Options

	// BatchMax is the most points Fit decomposes at once when Components is k: a larger
	// input is fitted by a batch decomposition of its first min(BatchMax, 1000) points
	// (at least 2·Rank+2: BatchStart), then the others added in blocks of Block rows, at
	// rank Rank, never forming its n×n kernel matrix. Zero means DefaultBatchMax;
	// negative is an error. With Components All, Fit decomposes every point at once
	// whatever BatchMax.
	BatchMax int

	// PassMemory is how many bytes of kernel values a Polish or a Certify may keep from
	// its first pass over the points for its later passes, which then read them instead
	// of computing them again (docs/design.md, "Passes over the points"): the first
	// tiles of the upper triangle of K, as many as fit, if they are at least a quarter
	// of all of them — otherwise none — and only where a value is dear to compute: a
	// kernel evaluated entry by entry, or one of products (RBF, polynomial, linear,
	// sigmoid, cosine) on points of 64 coordinates or more. At 10,000 Fashion-MNIST
	// images the triangle is 400 MB, and a pass that reads it takes a tenth of one that
	// computes it. The memory is mapped for the Polish or Certify and given back when it
	// returns. Zero means DefaultPassMemory (2 GiB); a value below the size of one tile
	// (512 KiB), such as 1, keeps none; negative is an error. The values read are the
	// values computed, bit for bit: PassMemory changes the time and the memory, never
	// the result. It is not saved with the model. It also bounds what KeepKernel keeps
	// for the block steps of a tracked fit and the Polish after them.
	PassMemory int
}

// validate reports options that cannot be honoured, whatever the points, and returns
// them with Rank resolved: max(Components, DefaultRank) when zero.
func (o Options) validate() (Options, error) {
	switch {
	case o.Components == 0:
		return o, fmt.Errorf("%w: Options.Components is zero: choose k, the top k eigenpairs (cheap: O(m·Rank) memory, "+
			"a batch fit of only the top pairs, then tracking), or kpca.All, every pair (O(m²) memory, an O(m³) fit)", ErrArgument)
	case o.Components < All:
		return o, fmt.Errorf("%w: Options.Components %d: want k ≥ 1 or kpca.All", ErrArgument, o.Components)
	case o.Components == All && o.Rank != 0:
		return o, fmt.Errorf("%w: Options.Rank %d with Components All: every pair is kept, there is no rank to track", ErrArgument, o.Rank)
	case o.Rank < 0 || o.Rank > 0 && o.Rank < o.Components:
		return o, fmt.Errorf("%w: Options.Rank %d: want 0 (the default, max(Components, %d)) or at least Components %d",
			ErrArgument, o.Rank, DefaultRank, o.Components)
	case o.Window < 0 || o.Window == 1:
		return o, fmt.Errorf("%w: window %d (a window holds at least 2 points)", ErrArgument, o.Window)
	case o.WindowPolish.Passes < 0 || o.WindowPolish.Passes > MaxPolishPasses:
		return o, fmt.Errorf("%w: Options.WindowPolish.Passes %d (0 for the default, or 1 to %d)", ErrArgument, o.WindowPolish.Passes, MaxPolishPasses)
	case o.Block < 0:
		return o, fmt.Errorf("%w: block %d", ErrArgument, o.Block)
	case o.BatchMax < 0:
		return o, fmt.Errorf("%w: batch max %d", ErrArgument, o.BatchMax)
	case o.PassMemory < 0:
		return o, fmt.Errorf("%w: pass memory %d bytes", ErrArgument, o.PassMemory)
	case o.RefreshTolerance < 0 || math.IsNaN(o.RefreshTolerance) || math.IsInf(o.RefreshTolerance, 1) || o.CheckEvery < 0:
		return o, fmt.Errorf("%w: refresh tolerance %g, check every %d", ErrArgument, o.RefreshTolerance, o.CheckEvery)
	}
	if err := o.Update.Validate(); err != nil {
		return o, kinds.Wrap(err, "update options")
	}
	o = o.resolveRank()
	// A model of rank r holds m×(r+2) eigenvector entries; a rank beyond check.MaxFloats
	// could never be reached, and is a typo — Components included, which Rank defaults
	// to (a Components of math.MaxInt made r+1 overflow).
	if o.Rank > check.MaxFloats-2 {
		return o, fmt.Errorf("%w: rank %d (Options.Rank, or Components when Rank is zero): the eigenvectors of m points at rank r hold m×(r+2) numbers, and r+2 may not exceed %d",
			ErrArgument, o.Rank, check.MaxFloats)
	}
	return o, nil
}

// resolveRank returns o with a zero Rank of Components k resolved: max(k, DefaultRank),
// or, in a Window of at most DefaultExactWindow points, at least Window, which makes the
// window exact (tracked).
func (o Options) resolveRank() Options {
	if o.Components != All && o.Rank == 0 {
		o.Rank = max(o.Components, DefaultRank)
		if o.Window > 0 && o.Window <= DefaultExactWindow {
			o.Rank = max(o.Rank, o.Window)
		}
	}
	return o
}

// tracked returns the rank the model of the resolved options o tracks: Rank, or 0 when
// it keeps every pair — Components All, or a Window of at most Rank points, which never
// holds more than Rank pairs.
func (o Options) tracked() int {
	if o.Components == All || o.Window > 0 && o.Window <= o.Rank {
		return 0
	}
	return o.Rank
}

// BatchStart returns how many of n rows Fit decomposes at once with these options (the
// rows a Window keeps, if it keeps fewer than n, counting as n): all of them, or for a
// model that tracks a rank (Components k, and no Window of at most Rank points) and
// n > BatchMax the start of a tracked fit, max(min(BatchMax, 1000), 2·Rank+2) rows (at
// most n), Rank resolved as Fit resolves it. Fit adds the other rows as AddBatch does,
// Block rows a step. A caller that must report progress on a long fit or stop it
// part-way does the same — Fit of the first BatchStart(n) rows, then AddBatch of the
// others Block at a time — and gets Fit's model, bit for bit.
func (o Options) BatchStart(n int) int {
	o = o.resolveRank()
	b := o.BatchMax
	if b <= 0 {
		b = DefaultBatchMax
	}
	r := o.tracked()
	if r == 0 || n <= b {
		return n
	}
	if r > (n-2)/2 {
		return n // 2·Rank+2 > n, found without overflow
	}
	return min(max(min(b, trackedStart), 2*r+2), n)
}
