// Package kpca is exact incremental kernel PCA: the eigendecomposition of the kernel
// matrix of a growing set of points, kept up to date one point at a time instead of
// recomputed, and the incremental Nyström approximation built on the same machinery.
//
// A Model holds the points seen so far and the eigendecomposition of their kernel
// matrix K (uncentred) or of the mean-adjusted K' = CKC, C = I − 11ᵀ/m (centred, the
// default). Adding a point costs one bordering update of package update — an O(m²)
// secular problem and one m×m×m matrix product — where a batch recomputation costs
// several times more. In centred mode the model works in Helmert coordinates
// (docs/design.md, "Helmert coordinates"), where the centred matrix of m+1 points is
// that of m points bordered by one row and column, so that a centred step costs the
// same single update as an uncentred one. The algorithms of Hallgren and Northrop
// ("Incremental kernel PCA and the Nyström method", 2018) are available for comparison
// (Method RankOne).
//
// Results agree with a batch kernel PCA of the same points to rounding (≈1e-13
// relative after thousands of points), and no point is ever dropped: duplicates and
// rank-deficient kernel matrices are handled by deflation.
//
// Model is an ikpca.Model. Each component's sign is fixed by its largest entry in point
// coordinates, as scikit-learn's svd_flip fixes it (docs/design.md, "Signs"), so that a
// batch fit, an incremental one and a reloaded checkpoint give the same scores.
package kpca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// Errors returned by the package; test with errors.Is. Each wraps the ikpca error of
// the same name, so that errors.Is(err, ikpca.ErrDimension) holds as well.
var (
	// ErrDimension reports a point or matrix of the wrong dimension.
	ErrDimension = fmt.Errorf("kpca: %w", ikpca.ErrDimension)
	// ErrNonFinite reports a NaN or infinite input, or a kernel value that is not finite.
	ErrNonFinite = fmt.Errorf("kpca: %w", ikpca.ErrNonFinite)
	// ErrEmpty reports an empty set of points.
	ErrEmpty = fmt.Errorf("kpca: %w", ikpca.ErrEmpty)
	// ErrArgument reports any other invalid argument.
	ErrArgument = fmt.Errorf("kpca: %w", ikpca.ErrArgument)
)

// errs reports bad arguments through the package's errors.
var errs = check.Kinds{Dimension: ErrDimension, NonFinite: ErrNonFinite, Empty: ErrEmpty, Argument: ErrArgument}

// Model is an ikpca.Model.
var _ ikpca.Model = (*Model)(nil)

// Mode selects what is decomposed.
type Mode int

const (
	// Centred decomposes the mean-adjusted kernel matrix K' = CKC, C = I − 11ᵀ/m: kernel
	// PCA proper. Its trivial eigenvector 1/√m (eigenvalue 0) is not reported.
	Centred Mode = iota
	// Uncentred decomposes the kernel matrix K itself.
	Uncentred
)

// String returns "centred" or "uncentred".
func (m Mode) String() string {
	if m == Uncentred {
		return "uncentred"
	}
	return "centred"
}

// Method selects how a point is added.
type Method int

const (
	// Bordered adds a point with one bordering update (update.Sym.Border): the kernel
	// matrix (uncentred), or the centred matrix in Helmert coordinates (centred), grows
	// by one row and column. One m×m×m product per point.
	Bordered Method = iota
	// RankOne follows Hallgren and Northrop: uncentred, expand the decomposition by one
	// eigenpair and apply two rank-one updates (their Algorithm 1); centred, two
	// rank-one updates re-centre the old points, then expand and two more (Algorithm 2).
	// Two or four m×m×m products per point. The rank-two terms are split into rank-one
	// terms of balanced size instead of the paper's ρ = 4/k (which is unbounded for a
	// point near the feature-space mean and makes the authors' code reject it), with the
	// same cost and structure.
	RankOne
)

// String returns "bordered" or "rank-one".
func (m Method) String() string {
	if m == RankOne {
		return "rank-one"
	}
	return "bordered"
}

// Options configure a Model. The zero value is the default: centred, bordered, no
// automatic refresh.
type Options struct {
	Mode   Mode
	Method Method
	// RefreshTolerance, if positive, turns on drift control: every CheckEvery points the
	// model probes its accuracy (Drift) and recomputes the decomposition from the points
	// (Refresh) when the orthogonality or the residual exceeds the tolerance.
	RefreshTolerance float64
	// CheckEvery is the number of points between drift probes; zero means 100.
	CheckEvery int
	// Update tunes the eigen-update solver (goroutines, iteration cap); negative values
	// are an error.
	Update update.Options
}

// Model is an incremental kernel PCA of the points added so far. Create one with New.
// A Model must not be used by several goroutines at once; distinct Models may be used
// concurrently.
type Model struct {
	kern kernel.Kernel
	opts Options
	d, m int
	x    []float64 // the points, m×d row-major (capacity grows)
	view mat.Dense // header over x[:m*d], set without allocating

	// sym decomposes M = QᵀKQ (centred, bordered), K (uncentred) or K' = CKC (centred,
	// rank-one).
	sym     update.Sym
	backup  update.Sym // state before a batch
	step    update.Sym // state before a multi-update step (method RankOne)
	rowSum  []float64  // K·1, maintained in O(m) per point
	total   float64    // 1ᵀK1
	alpha   []float64  // Helmert αⱼ
	col     []float64  // scratch: kernel column of a new point
	work    []float64  // scratch vectors
	work2   []float64
	work3   []float64
	since   int // points since the last drift probe
	stats   Stats
	probe   []float64
	probe2  []float64
	probeMV []float64
	updates []update.Stats // of the last step's eigen-updates
	pending []update.Stats // of the step in progress
}

// Stats describes the state of a Model and its last addition.
type Stats struct {
	// Points is the number of points.
	Points int
	// Last is the statistics of the last eigen-update (for RankOne: the last of the
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
}

// New starts a model from the rows of x0 (m0 ≥ 1 points of dimension d ≥ 1) with a batch
// eigendecomposition, for the kernel k. Later points are added with Add, AddBatch and
// AddRows. A nil k (or a nil pointer) or impossible options (negative Update options
// among them) and a nil x0 (or a nil *mat.Dense) are errors wrapping ErrArgument; x0
// without rows wraps ErrEmpty, a non-finite coordinate ErrNonFinite.
func New(k kernel.Kernel, x0 mat.Matrix, opts Options) (*Model, error) {
	if isNil(k) {
		return nil, fmt.Errorf("%w: nil kernel", ErrArgument)
	}
	if err := kernel.Validate(k); err != nil {
		return nil, fmt.Errorf("kpca: %w", err)
	}
	if opts.Mode != Centred && opts.Mode != Uncentred {
		return nil, fmt.Errorf("%w: mode %d", ErrArgument, opts.Mode)
	}
	if opts.Method != Bordered && opts.Method != RankOne {
		return nil, fmt.Errorf("%w: method %d", ErrArgument, opts.Method)
	}
	if opts.RefreshTolerance < 0 || math.IsNaN(opts.RefreshTolerance) || opts.CheckEvery < 0 {
		return nil, fmt.Errorf("%w: refresh tolerance %g, check every %d", ErrArgument, opts.RefreshTolerance, opts.CheckEvery)
	}
	if err := opts.Update.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrArgument, err)
	}
	m0, d, err := errs.Data(x0)
	if err != nil {
		return nil, err
	}
	md := &Model{kern: k, opts: opts, d: d}
	md.sym.SetOptions(opts.Update)
	md.backup.SetOptions(opts.Update)
	md.step.SetOptions(opts.Update)
	md.ensure(m0)
	for i := range m0 {
		for j := range d {
			md.x[i*d+j] = x0.At(i, j)
		}
	}
	md.m = m0
	md.setView()
	if err := md.decompose(); err != nil {
		return nil, err
	}
	md.stats = Stats{Points: m0}
	return md, nil
}

// decompose computes the decomposition of the current points from scratch: the kernel
// matrix, its row sums and total, and a batch eigendecomposition of the matrix the mode
// and method keep. It changes md only if it succeeds.
func (md *Model) decompose() error {
	m := md.m
	K := kernel.Matrix(md.kern, &md.view)
	raw := K.RawSymmetric()
	rowSum := make([]float64, m)
	var total float64
	for i := range m {
		var s float64
		for j := range m {
			v := K.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: kernel value k(x%d, x%d) = %g", ErrNonFinite, i, j, v)
			}
			s += v
		}
		rowSum[i] = s
		total += s
	}
	alpha := helmertAlpha(nil, m+1)
	var a *mat.SymDense
	switch {
	case md.opts.Mode == Uncentred:
		a = K
	case md.opts.Method == Bordered:
		// M = QᵀKQ, applying Qᵀ to the rows and then to the columns: O(m²).
		if m < 2 {
			a = nil
			break
		}
		t := make([]float64, m*(m-1)) // KQ, m×(m−1)
		for i := range m {
			helmertT(t[i*(m-1):(i+1)*(m-1)], rowOf(raw, i, m, K), alpha)
		}
		a = mat.NewSymDense(m-1, nil)
		col := make([]float64, m)
		out := make([]float64, m-1)
		for j := range m - 1 {
			for i := range m {
				col[i] = t[i*(m-1)+j]
			}
			helmertT(out, col, alpha)
			for i := j; i < m-1; i++ {
				a.SetSym(j, i, out[i])
			}
		}
	default:
		// K' = CKC entrywise.
		a = mat.NewSymDense(m, nil)
		fm := float64(m)
		for i := range m {
			for j := i; j < m; j++ {
				a.SetSym(i, j, K.At(i, j)-rowSum[i]/fm-rowSum[j]/fm+total/(fm*fm))
			}
		}
	}
	var fresh update.Sym
	fresh.SetOptions(md.opts.Update)
	if a != nil {
		if err := fresh.Factorize(a); err != nil {
			return fmt.Errorf("kpca: batch decomposition: %w", err)
		}
	}
	md.sym.CopyFrom(&fresh)
	copy(md.rowSum, rowSum)
	md.total = total
	md.alpha = helmertAlpha(md.alpha[:0], md.capacity()+1)
	return nil
}

// rowOf returns row i of the symmetric matrix K (full row, from its upper storage).
func rowOf(raw blas64.Symmetric, i, m int, K *mat.SymDense) []float64 {
	row := make([]float64, m)
	for j := range m {
		if j >= i {
			row[j] = raw.Data[i*raw.Stride+j]
		} else {
			row[j] = raw.Data[j*raw.Stride+i]
		}
	}
	return row
}

// capacity is the number of points the buffers hold.
func (md *Model) capacity() int {
	if md.d == 0 {
		return 0
	}
	return cap(md.x) / md.d
}

// Reserve makes room for n points, so that adding points up to that number allocates
// nothing (the decomposition's buffers, two n×n matrices, are allocated here). The
// model grows by itself as points are added; Reserve only spares the reallocations and
// lets a caller allocate everything up front. On a zero Model, which has no dimension
// yet, it does nothing.
func (md *Model) Reserve(n int) {
	if md.d == 0 || n <= md.capacity() && len(md.rowSum) >= n {
		return
	}
	x := make([]float64, md.m*md.d, n*md.d)
	copy(x, md.x[:md.m*md.d])
	md.x = x[:n*md.d]
	rowSum := make([]float64, n)
	copy(rowSum, md.rowSum)
	md.rowSum = rowSum
	md.col = make([]float64, n+1)
	md.work = make([]float64, n+1)
	md.work2 = make([]float64, n+1)
	md.work3 = make([]float64, n+1)
	md.alpha = helmertAlpha(md.alpha, n+1)
	md.sym.Reserve(n + 1)
	md.setView()
}

// ensure makes room for n points, growing by a factor of 1.25 at least so that points
// added one by one reallocate only now and then (amortised O(m²) copying per point,
// negligible next to an O(m³) update).
func (md *Model) ensure(n int) {
	if n > md.capacity() || len(md.rowSum) < n {
		md.Reserve(max(n, md.capacity()+md.capacity()/4, 16))
	}
}

// CopyFrom makes md a copy of src: its kernel, options, points, decomposition and
// statistics. It allocates only if md lacks the capacity for src's points, so that a
// model can be restored to a saved state repeatedly without garbage (a what-if
// analysis, or a benchmark that times the same step again and again). The kernel value
// is shared, not copied: kernels are immutable values.
func (md *Model) CopyFrom(src *Model) {
	if md == src {
		return
	}
	if md.d != src.d {
		md.x, md.rowSum = nil, nil // the point buffer's layout changes
		md.d = src.d
	}
	md.kern, md.opts = src.kern, src.opts
	md.sym.SetOptions(src.opts.Update)
	md.backup.SetOptions(src.opts.Update)
	md.step.SetOptions(src.opts.Update)
	md.m = 0
	md.ensure(src.m)
	md.m = src.m
	copy(md.x, src.x[:src.m*src.d])
	copy(md.rowSum, src.rowSum[:src.m])
	md.total = src.total
	md.sym.CopyFrom(&src.sym)
	md.since, md.stats = src.since, src.stats
	md.updates = append(md.updates[:0], src.updates...)
	md.setView()
}

// setView points the header md.view at the first m points.
func (md *Model) setView() {
	if md.m == 0 {
		return
	}
	md.view.SetRawMatrix(blas64.General{Rows: md.m, Cols: md.d, Stride: md.d, Data: md.x[:md.m*md.d]})
}

// Len returns the number of points.
func (md *Model) Len() int { return md.m }

// Dim returns the dimension of the points.
func (md *Model) Dim() int { return md.d }

// Bytes returns the memory the model holds in its arrays, in bytes: the points, the
// decomposition with its update workspaces (update.Sym.Bytes), the copies kept to roll
// a batch or a multi-update step back, and O(m) vectors. It follows the capacity
// (Reserve), which grows by a quarter at a time as points are added.
func (md *Model) Bytes() int {
	vecs := cap(md.x) + cap(md.rowSum) + cap(md.alpha) + cap(md.col) + cap(md.work) + cap(md.work2) +
		cap(md.work3) + cap(md.probe) + cap(md.probe2) + cap(md.probeMV)
	return 8*vecs + md.sym.Bytes() + md.backup.Bytes() + md.step.Bytes()
}

// Kernel returns the model's kernel.
func (md *Model) Kernel() kernel.Kernel { return md.kern }

// Options returns the model's options.
func (md *Model) Options() Options { return md.opts }

// Stats returns statistics of the model and its last step.
func (md *Model) Stats() Stats { return md.stats }

// Points copies the points into the rows of dst, resized if empty (otherwise it must be
// Len()×Dim(); Points panics if not, like gonum's Copy-style methods).
func (md *Model) Points(dst *mat.Dense) {
	if dst.IsEmpty() {
		dst.ReuseAs(md.m, md.d)
	} else if r, c := dst.Dims(); r != md.m || c != md.d {
		panic(mat.ErrShape)
	}
	dst.Copy(&md.view)
}

// Add adds the point x (of dimension Dim()) and updates the decomposition. On error the
// model is unchanged.
func (md *Model) Add(x []float64) error {
	if err := errs.Point(x, md.d); err != nil {
		return err
	}
	return md.add(x)
}

// AddBatch adds the rows of X in order. It is all or nothing: on error (including a bad
// row anywhere in X, checked before any is added) the model is unchanged.
func (md *Model) AddBatch(X mat.Matrix) error {
	r, err := errs.Points(X, md.d)
	if err != nil {
		return err
	}
	c := md.d
	md.ensure(md.m + r)
	saved := md.snapshot()
	row := make([]float64, c)
	for i := range r {
		mat.Row(row, i, X)
		if err := md.add(row); err != nil {
			md.restore(saved)
			return fmt.Errorf("kpca: batch row %d: %w", i, err)
		}
	}
	return nil
}

// add adds a validated point.
func (md *Model) add(x []float64) error {
	m := md.m
	md.ensure(m + 1)
	a := md.col[:m]
	if m > 0 {
		kernel.Column(a, md.kern, &md.view, x)
	}
	c := md.kern.Eval(x, x)
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
	md.pending = md.pending[:0]
	switch {
	case md.opts.Method == RankOne && md.opts.Mode == Uncentred:
		err = md.paperUncentred(a, c)
	case md.opts.Method == RankOne:
		err = md.paperCentred(a, c, sa)
	case md.opts.Mode == Uncentred:
		if err = md.sym.Border(a, c); err == nil {
			md.tally()
		}
	default:
		if err = md.helmertBorder(a, c, sa); err == nil {
			md.tally()
		}
	}
	if err != nil {
		return fmt.Errorf("kpca: adding point %d: %w", m, err)
	}

	// Commit: the point, the row sums and the total.
	copy(md.x[m*md.d:(m+1)*md.d], x)
	for i, v := range a {
		md.rowSum[i] += v
	}
	md.rowSum[m] = sa + c
	md.total += 2*sa + c
	md.m = m + 1
	md.setView()
	md.stats.Points = md.m
	md.updates, md.pending = md.pending, md.updates
	md.stats.Last = md.sym.Stats()
	md.stats.Deflated = 0
	for _, st := range md.updates {
		md.stats.Deflated += st.Deflated
	}
	md.maybeRefresh()
	return nil
}

// tally records the statistics of an eigen-update of the step in progress.
func (md *Model) tally() { md.pending = append(md.pending, md.sym.Stats()) }

// UpdateStats appends to dst the statistics of each eigen-update of the last step, in
// order, and returns it: one update for method Bordered; for RankOne three uncentred
// and five centred, the expansion included (in which every old component deflates and
// no product is needed). With Stats.Deflated it shows where a step's time goes: each
// update's product costs about 2·m·K² flops, K its secular size (Stats.Secular).
func (md *Model) UpdateStats(dst []update.Stats) []update.Stats {
	return append(dst, md.updates...)
}

// helmertBorder borders M = QᵀKQ for a new point with kernel column a, self-kernel c
// and Σa = sa (docs/design.md, "Helmert coordinates"):
// b = αₘ·Qₘᵀ(K·1 − m·a), γ = αₘ²·(1ᵀK1 − 2m·Σa + m²c).
func (md *Model) helmertBorder(a []float64, c, sa float64) error {
	m := len(a)
	fm := float64(m)
	y := md.work[:m]
	for i := range m {
		y[i] = md.rowSum[i] - fm*a[i]
	}
	b := md.work2[:max(m-1, 0)]
	helmertT(b, y, md.alpha)
	am := md.alpha[m]
	for j := range b {
		b[j] *= am
	}
	gamma := am * am * (md.total - 2*fm*sa + fm*fm*c)
	return md.sym.Border(b, gamma)
}

// snapshotState is what a rollback needs: the points beyond m are ignored.
type snapshotState struct {
	m, since int
	total    float64
	sums     []float64
	stats    Stats
	updates  []update.Stats
}

// snapshot saves the state before a batch (the decomposition goes to md.backup).
func (md *Model) snapshot() snapshotState {
	md.backup.CopyFrom(&md.sym)
	return snapshotState{m: md.m, since: md.since, total: md.total, stats: md.stats,
		sums: append([]float64(nil), md.rowSum[:md.m]...), updates: append([]update.Stats(nil), md.updates...)}
}

// restore returns to a snapshot.
func (md *Model) restore(s snapshotState) {
	md.sym.CopyFrom(&md.backup)
	md.m, md.since, md.total, md.stats = s.m, s.since, s.total, s.stats
	md.updates = append(md.updates[:0], s.updates...)
	copy(md.rowSum, s.sums)
	md.setView()
}
