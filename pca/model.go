// Package pca is exact incremental linear PCA: the mean and the eigendecomposition of
// the scatter matrix S = Σᵢ wᵢ(xᵢ − μ)(xᵢ − μ)ᵀ of a stream of points, kept up to date
// as points come and go instead of recomputed.
//
//	model, err := pca.Fit(X, pca.Options{Components: 3}) // stat.PC, scikit-learn's PCA(3)
//	err = model.Add(x)                                    // one more point: one rank-one update
//	err = model.Remove(x)                                 // forget a point, exactly
//	vars := model.VarsTo(nil)                             // stat.PC's VarsTo
//	err = model.Transform(&scores, Xnew, 3)
//
// gonum's stat.PC computes a batch SVD, from scratch for every new batch; scikit-learn's
// IncrementalPCA is approximate whenever it keeps fewer components than dimensions; and
// kpca.New(kernel.Linear{}, …) is exact but solves an m×m problem where d×d suffices. A
// new point changes the mean-adjusted scatter matrix by one rank-one term,
// S' = S + (W·w/W')·(x − μ)(x − μ)ᵀ, and removing one by the same term with the opposite
// sign (docs/design.md, "Linear PCA"), each one rank-one update of the d×d
// decomposition by package update: O(d²) for the secular problem and one d×d×d matrix
// product, with no point stored. AddBatch of many points refactorises instead when that
// costs fewer flops.
//
// Options.Rank = r tracks only the top r eigenpairs in O(d·r) memory, each point a
// rank-one update of the thin decomposition truncated back to r pairs, and certifies
// what the truncations dropped (ErrorBound, ValueBounds). Options.Window keeps the last
// Window points and removes the oldest as each new one comes.
//
// Values are the eigenvalues of the scatter matrix — those of the centred linear kernel
// matrix, as every ikpca.Model reports them, not divided by the number of points — and
// VarsTo the variances S/(W − 1), gonum's stat.PC VarsTo and scikit-learn's
// explained_variance_. Each component's sign is fixed by its own entries: the entry of
// largest magnitude is positive (package sign; docs/design.md, "Signs" and "Linear
// PCA"), as scikit-learn's IncrementalPCA does, so that a batch fit, an incremental one
// and a restored model give the same scores.
//
// Model is an ikpca.Incremental and an ikpca.Persistent. It is not an
// ikpca.Decremental: it does not keep its points (but in a window), and its Remove takes
// the point to remove, not an index.
package pca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/update"
)

// Model is an ikpca.Incremental and an ikpca.Persistent.
var (
	_ ikpca.Incremental = (*Model)(nil)
	_ ikpca.Persistent  = (*Model)(nil)
)

// Model is an incremental linear PCA of its points: their weighted mean and the
// eigendecomposition of their scatter matrix. Create one with Fit or New, or decode one
// into a zero Model (UnmarshalBinary); a zero Model is not otherwise usable (its methods
// that return errors return ErrArgument). A Model must not be used by several goroutines
// at once; distinct Models may be used concurrently.
type Model struct {
	opts  Options
	d     int
	n     int       // the points summarised
	w     float64   // W = Σwᵢ, their total weight
	mean  []float64 // μ = Σwᵢxᵢ/W (zero without points)
	trace float64   // trace S, kept by the running updates (the rank-r form's total)

	exact update.Sym  // Rank 0: every eigenpair of S, ascending
	thin  update.Thin // Rank r: the top r pairs of S̃ ≈ S, ascending
	cert  certificate // Rank r: what the truncations dropped

	// The window's points and weights, a ring whose oldest point is at head once it
	// holds Window points (before, points are appended in order, head 0).
	win  []float64
	winW []float64
	head int

	saved snapshot // the state before the step in progress, to roll it back

	z      []float64    // scratch: x − μ
	zv     mat.VecDense // header over z passed to the update
	values []float64    // scratch: eigenvalues
	row    []float64    // scratch: a row of a batch
}

// snapshot is the state a failed step returns to.
type snapshot struct {
	n           int
	w, trace    float64
	mean        []float64
	exact       update.Sym
	thin        update.Thin
	cert        certificate
	head        int
	win, winW   []float64 // a batch's only: the ring before it
	windowSaved bool
}

// New returns an empty model of d-dimensional points, fed by Add, AddWeighted and
// AddBatch. Impossible options (see Options) and d < 1 are errors wrapping ErrArgument.
func New(d int, opts Options) (*Model, error) {
	if err := kinds.Dim(d); err != nil {
		return nil, err
	}
	if err := opts.validate(d); err != nil {
		return nil, err
	}
	md := &Model{opts: opts, d: d}
	md.setEmpty()
	return md, nil
}

// Fit returns the PCA of the rows of X (n points of dimension d): the batch fit, gonum's
// stat.PC PrincipalComponents(X, nil) and scikit-learn's PCA(n_components=k).fit(X), as
// one decomposition of the scatter matrix when the exact model's cost model prefers it
// (AddBatch). With a Window, Fit keeps the last Window rows of X, as adding them one at a
// time would. Impossible options (see Options) and a nil X are errors wrapping
// ErrArgument; an X without rows or columns wraps ErrEmpty, a non-finite entry
// ErrNonFinite.
func Fit(X mat.Matrix, opts Options) (*Model, error) {
	X, n, d, err := kinds.Data(X)
	if err != nil {
		return nil, err
	}
	md, err := New(d, opts)
	if err != nil {
		return nil, err
	}
	if w := opts.Window; w > 0 && n > w {
		X = rowsOf(X, n-w, n)
	}
	if err := md.AddBatch(X); err != nil {
		return nil, err
	}
	return md, nil
}

// rowsOf returns rows [lo, hi) of X.
func rowsOf(X mat.Matrix, lo, hi int) mat.Matrix {
	_, d := X.Dims()
	if s, ok := X.(interface {
		Slice(i, k, j, l int) mat.Matrix
	}); ok {
		return s.Slice(lo, hi, 0, d)
	}
	out := mat.NewDense(hi-lo, d, nil)
	for i := lo; i < hi; i++ {
		for j := range d {
			out.Set(i-lo, j, X.At(i, j))
		}
	}
	return out
}

// setEmpty makes md the model of no points: a zero mean and the zero scatter matrix.
func (md *Model) setEmpty() {
	d := md.d
	md.n, md.w, md.trace, md.head, md.cert = 0, 0, 0, 0, certificate{}
	if len(md.mean) != d {
		md.mean = make([]float64, d)
		md.z = make([]float64, d)
		md.values = make([]float64, d)
		md.row = make([]float64, d)
	}
	clear(md.mean)
	md.win, md.winW = md.win[:0], md.winW[:0]
	if md.opts.Rank > 0 {
		md.thin.Reset(d)
		md.thin.SetTruncation(update.Truncation{Rank: md.opts.Rank})
		md.thin.Reserve(d, md.opts.Rank+1)
		return
	}
	// The zero matrix, whose eigenvectors are any orthonormal basis: the identity. The
	// first rank-one update deflates every direction orthogonal to its vector.
	eye := mat.NewDense(d, d, nil)
	for i := range d {
		eye.Set(i, i, 1)
	}
	if err := md.exact.SetEigen(make([]float64, d), eye); err != nil {
		panic(err) // the identity is orthonormal and finite
	}
	md.exact.Reserve(d)
}

// ready reports a zero Model, which has no dimension: only decoding makes it a model.
func (md *Model) ready() error {
	if md.d == 0 {
		return fmt.Errorf("%w: a zero Model: build one with Fit or New, or decode one into it (UnmarshalBinary)", ErrArgument)
	}
	return nil
}

// save records the state before a step (allocating nothing once the copies have the
// model's size); withWindow saves the window's ring too, for a batch that slides it.
func (md *Model) save(withWindow bool) {
	s := &md.saved
	s.n, s.w, s.trace, s.cert, s.head = md.n, md.w, md.trace, md.cert, md.head
	s.mean = append(s.mean[:0], md.mean...)
	if md.opts.Rank > 0 {
		s.thin.CopyFrom(&md.thin)
	} else {
		s.exact.CopyFrom(&md.exact)
	}
	s.windowSaved = withWindow
	if withWindow {
		s.win = append(s.win[:0], md.win...)
		s.winW = append(s.winW[:0], md.winW...)
	}
}

// restore returns to the state save recorded.
func (md *Model) restore() {
	s := &md.saved
	md.n, md.w, md.trace, md.cert, md.head = s.n, s.w, s.trace, s.cert, s.head
	copy(md.mean, s.mean)
	if md.opts.Rank > 0 {
		md.thin.CopyFrom(&s.thin)
	} else {
		md.exact.CopyFrom(&s.exact)
	}
	if s.windowSaved {
		md.win = append(md.win[:0], s.win...)
		md.winW = append(md.winW[:0], s.winW...)
	}
}

// Len returns the number of points the model summarises (in a window, the number in
// the window).
func (md *Model) Len() int { return md.n }

// Dim returns the dimension of the points.
func (md *Model) Dim() int { return md.d }

// Weight returns W, the total weight of the points: Len() unless points were added with
// weights (AddWeighted).
func (md *Model) Weight() float64 { return md.w }

// Centred reports true: PCA subtracts the mean, and the model decomposes the scatter
// matrix about it, the centred linear kernel matrix's nonzero spectrum.
func (md *Model) Centred() bool { return true }

// Options returns the model's options.
func (md *Model) Options() Options { return md.opts }

// Rank returns the number of eigenpairs the model tracks (Options.Rank), or 0 for the
// exact model, which keeps all d.
func (md *Model) Rank() int { return md.opts.Rank }

// Bytes returns the memory the model holds in its arrays, in bytes: the decomposition
// with its update workspaces (update.Sym.Bytes, update.Thin.Bytes), the copy kept to
// roll a step back, the window's points and O(d) vectors: O(d²) for the exact model,
// O(d·Rank) at rank r, plus Window·d in a window.
func (md *Model) Bytes() int {
	s := &md.saved
	vecs := cap(md.mean) + cap(md.z) + cap(md.values) + cap(md.row) + cap(md.win) + cap(md.winW) +
		cap(s.mean) + cap(s.win) + cap(s.winW)
	return 8*vecs + md.exact.Bytes() + md.thin.Bytes() + s.exact.Bytes() + s.thin.Bytes()
}

// Mean returns μ, the weighted mean of the points (zero without points). dst follows the
// rule of Values: written in place when len(dst) ≥ Dim(), allocated otherwise.
func (md *Model) Mean(dst []float64) []float64 {
	if len(dst) < md.d {
		dst = make([]float64, md.d)
	}
	dst = dst[:md.d]
	copy(dst, md.mean)
	return dst
}

// Points copies the window's points into the rows of dst, oldest first: a Len()×Dim()
// dst is written in place, an empty one resized, and one of another shape replaced by a
// new matrix (the rule of VectorsTo). A model without a Window keeps no points: it
// leaves dst as it is and returns false, and so does a nil dst.
func (md *Model) Points(dst *mat.Dense) bool {
	if md.opts.Window == 0 || md.n == 0 || !check.Vectors(dst, md.n, md.d) {
		return false
	}
	for i := range md.n {
		dst.SetRow(i, md.point(i))
	}
	return true
}

// slot returns the ring index of the window's point i (oldest first).
func (md *Model) slot(i int) int {
	slots := len(md.winW)
	return (md.head + i) % slots
}

// point returns the window's point i, oldest first (shared storage).
func (md *Model) point(i int) []float64 {
	s := md.slot(i)
	return md.win[s*md.d : (s+1)*md.d]
}

// isFinite reports whether v is neither NaN nor infinite.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
