package kpca

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// Fit returns the kernel PCA of the rows of X (n points of dimension d) for the kernel k:
// the batch fit, scikit-learn's KernelPCA(n_components=k).fit(X). Later points are
// added with Add, AddBatch and AddRows, and removed with Remove; Scores gives the
// points' own scores (fit_transform), Transform those of new points.
//
// With Options.Components k it is one batch decomposition that computes only the top
// Rank pairs (LAPACK dsyevr with an index range: O(n³) for the reduction to tridiagonal
// form, O(n·Rank) beyond), if n ≤ BatchMax. A larger X is tracked instead, never forming
// its n×n kernel matrix: a batch decomposition of its first min(BatchMax, 1000) rows (at
// least 2·Rank+2), then the others added in blocks of Block rows as AddBatch adds them
// (docs/design.md, "Rank-r tracking in blocks"), in O(n·(Rank+d)) memory. With
// Components All it is the batch decomposition of every pair, whatever n: O(n²) memory
// and O(n³) time, which the caller asked for. With a Window, Fit keeps the last Window
// rows of X, as adding them one at a time would.
//
// Fit is all or nothing. A kernel that kernel.Validate refuses (a nil kernel, RBF{}),
// impossible options (see Options) and a nil X are errors wrapping ErrArgument; an X
// without rows or columns wraps ErrEmpty, a non-finite coordinate or kernel value
// ErrNonFinite, and a decomposition of more than 2³⁰ kernel values (n above 32,768 with
// Components All) ErrArgument.
//
// With kernel.Precomputed, X is the n×n kernel matrix of the points — scikit-learn's
// KernelPCA(kernel="precomputed").fit(K) — of which only the lower triangle is read
// (LAPACK's uplo = 'L': the rows of a matrix given a row at a time): the model holds
// kernel columns, not points (see AddColumn), and an X that is not square is an error
// wrapping ErrDimension.
func Fit(k kernel.Kernel, X mat.Matrix, opts Options) (*Model, error) {
	md, err := newModel(k, opts)
	if err != nil {
		return nil, err
	}
	X, n, d, err := kinds.Data(X)
	if err != nil {
		return nil, err
	}
	if md.precomputed() {
		if n != d {
			return nil, fmt.Errorf("%w: kernel.Precomputed: the kernel matrix is %d×%d, not square", ErrDimension, n, d)
		}
		if err := md.fitRows(X, n); err != nil {
			return nil, err
		}
		return md, nil
	}
	if err := md.setDim(d); err != nil {
		return nil, err
	}
	if err := md.fitRows(X, n); err != nil {
		return nil, err
	}
	return md, nil
}

// New returns an empty model of d-dimensional points for the kernel k, fed by Add,
// AddBatch and AddRows: AddBatch into a model without points fits them as Fit does. A
// kernel that kernel.Validate refuses, impossible options (see Options) and d < 1 are
// errors wrapping ErrArgument. New(kernel.Precomputed{}, 0, opts) returns an empty
// model of kernel columns, fed by AddColumn (any other d is an ErrArgument), and with
// Options.RefreshTolerance an error wrapping ErrNoKernel.
func New(k kernel.Kernel, d int, opts Options) (*Model, error) {
	md, err := newModel(k, opts)
	if err != nil {
		return nil, err
	}
	if md.precomputed() {
		if d != 0 {
			return nil, fmt.Errorf("%w: New(kernel.Precomputed{}, %d, …): a model of kernel columns has no coordinates, and its dimension is 0", ErrArgument, d)
		}
		return md, nil
	}
	if err := md.setDim(d); err != nil {
		return nil, err
	}
	return md, nil
}

// newModel returns a model without points or dimension, of the kernel k and the options
// opts validated.
func newModel(k kernel.Kernel, opts Options) (*Model, error) {
	pre := kernel.IsPrecomputed(k)
	if !pre {
		if err := kinds.Kernel(kernel.Validate(k)); err != nil {
			return nil, err
		}
	}
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	if pre {
		if err := checkPrecomputedOptions(opts); err != nil {
			return nil, err
		}
		k = kernel.Precomputed{} // a *Precomputed too: the model's kernel is the value
	}
	md := &Model{kern: k, opts: opts, rank: opts.tracked()}
	md.setOptions()
	return md, nil
}

// setDim gives a model without points its dimension d.
func (md *Model) setDim(d int) error {
	if err := kinds.Dim(d); err != nil {
		return err
	}
	md.d = d
	return nil
}

// fitRows fits the model, which has no points, to the n rows of X as Fit does (see Fit):
// a batch decomposition of the rows (the last Window of them in a window) or, at rank r
// beyond BatchMax rows, of the first of them and the others in blocks. On error the
// caller's txn (AddBatch's) gives the model back its state without points, and Fit
// discards the model.
func (md *Model) fitRows(X mat.Matrix, n int) error {
	lo := 0
	if w := md.opts.Window; w > 0 && n > w {
		lo = n - w
	}
	rows := n - lo
	start := md.opts.BatchStart(rows)
	if md.precomputed() {
		return md.fitKernelRows(X, lo, start, rows)
	}
	md.ensure(start)
	for i := range start {
		mat.Row(md.x[i*md.d:(i+1)*md.d], lo+i, X)
	}
	if err := md.batchStart(start, md.decompose); err != nil {
		return err
	}
	if start == rows {
		return nil
	}
	md.reserve(rows) // the rows are known: no growing buffers, no garbage of their copies
	return md.addBatch(rowRange{X, lo + start, n}, rows-start)
}

// batchStart makes the first m points of md's storage, which a fit has just written
// (points, or kernel columns), the model: their view, their batch decomposition by
// decompose, and a step ended with nothing pending, from which the fit's other points are
// added. It is the start that fitRows and fitKernelRows share.
func (md *Model) batchStart(m int, decompose func() error) error {
	md.m = m
	md.setView()
	if err := decompose(); err != nil {
		return err
	}
	md.since = 0
	md.pending = md.pending[:0]
	md.endStep()
	return nil
}

// rowRange is rows lo to hi−1 of a matrix, as a matrix, without copying them.
type rowRange struct {
	x      mat.Matrix
	lo, hi int
}

func (r rowRange) Dims() (int, int)    { _, c := r.x.Dims(); return r.hi - r.lo, c }
func (r rowRange) At(i, j int) float64 { return r.x.At(r.lo+i, j) }
func (r rowRange) T() mat.Matrix       { return mat.Transpose{Matrix: r} }
