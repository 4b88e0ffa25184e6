package kpca

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// RankOneModel is an ikpca.Incremental and an ikpca.Persistent; it cannot remove a point,
// so it is not an ikpca.Decremental.
var (
	_ ikpca.Incremental = (*RankOneModel)(nil)
	_ ikpca.Persistent  = (*RankOneModel)(nil)
)

// RankOneModel is exact incremental kernel PCA by the algorithms of Hallgren and
// Northrop ("Incremental kernel PCA and the Nyström method", 2018), a reference path
// kept for comparison with Model (docs/design.md, "Two types, one store"). Uncentred,
// a point expands the decomposition of K by one eigenpair and applies two rank-one
// updates (their Algorithm 1); centred, two rank-one updates re-centre the old points,
// then the expansion and two more (Algorithm 2), on K′ = CKC with its trivial
// eigenvector along 1, which is not reported. That is two or four m×m×m products a
// point where Model's bordering update costs one. The rank-two terms are split into
// rank-one terms of balanced size instead of the paper's ρ = 4/k, which is unbounded for
// a point near the feature-space mean and makes the authors' code reject it, with the
// same cost and structure.
//
// It keeps every eigenpair (Options.Components All) and has no window, no removal, no
// tracking at a rank and no certificate: what it reads — Values, Transform, Scores,
// VectorsTo — and how it is saved follow Model's documentation. Create one with
// FitRankOne or NewRankOne, or decode one into a zero RankOneModel (UnmarshalBinary);
// a zero RankOneModel is not otherwise usable (its methods that return errors return
// ErrArgument). A RankOneModel must not be used by several goroutines at once.
type RankOneModel struct {
	// md is the store: kernel, options, points, running sums, statistics and the read
	// side, which RankOneModel's methods give the decomposition of sym (basis); its own
	// decomposition stays empty.
	md *Model
	// sym is K (uncentred) or K′ = CKC with its trivial eigenvector (centred), every
	// pair; saved is its copy while a call runs (transact).
	sym, saved update.Sym
	// ones and proj are the scratch of the search for the trivial eigenvector (basis).
	ones, proj []float64
}

// FitRankOne returns the RankOneModel of the rows of X for the kernel k: a batch
// decomposition of every pair, as Fit with Components All. opts must have Components
// All and no Window; its Rank must be zero; k must not be kernel.Precomputed (a
// RankOneModel takes points). Its other errors are Fit's.
func FitRankOne(k kernel.Kernel, X mat.Matrix, opts Options) (*RankOneModel, error) {
	X, n, d, err := kinds.Data(X)
	if err != nil {
		return nil, err
	}
	r, err := NewRankOne(k, d, opts)
	if err == nil {
		err = r.fitRows(X, n)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// NewRankOne returns an empty RankOneModel of d-dimensional points for the kernel k, fed
// by Add, AddBatch and AddRows. opts must have Components All and no Window, and k must
// not be kernel.Precomputed; its other errors are New's.
func NewRankOne(k kernel.Kernel, d int, opts Options) (*RankOneModel, error) {
	if kernel.IsPrecomputed(k) {
		return nil, fmt.Errorf("%w: a RankOneModel of kernel.Precomputed: it takes points (use a Model for kernel columns)", ErrArgument)
	}
	if opts.Components != All || opts.Window != 0 {
		return nil, fmt.Errorf("%w: a RankOneModel requires Components All and no Window (Components %d, Window %d)", ErrArgument, opts.Components, opts.Window)
	}
	md, err := New(k, d, opts)
	if err != nil {
		return nil, err
	}
	r := &RankOneModel{md: md}
	r.setOptions()
	return r, nil
}

// setOptions gives the decomposition the solver options.
func (r *RankOneModel) setOptions() { r.sym.SetOptions(r.md.opts.Update) }

// errZeroRankOne is the error of a zero RankOneModel's methods.
var errZeroRankOne = fmt.Errorf("%w: a zero RankOneModel: build one with FitRankOne or NewRankOne, or decode one into it (UnmarshalBinary)", ErrArgument)

// model returns the store, or for a zero RankOneModel a zero Model, whose read methods
// report nothing and whose others are not called (ready).
func (r *RankOneModel) model() *Model {
	if r.md == nil {
		return new(Model)
	}
	return r.md
}

// ready reports a zero RankOneModel.
func (r *RankOneModel) ready() error {
	if r.md == nil || r.md.kern == nil {
		return errZeroRankOne
	}
	return nil
}

// transact runs body, a mutating call of the given scope, in the store's txn with the
// decomposition saved beside it: on error both are as they were (docs/design.md,
// "Transactions").
func (r *RankOneModel) transact(s scope, body func() error) error {
	r.saved.CopyFrom(&r.sym)
	err := r.md.transact(s, body)
	if err != nil {
		r.sym.CopyFrom(&r.saved)
	}
	return err
}

// Add adds the point x (of dimension Dim()) as Model.Add does, with the rank-one
// updates of Hallgren and Northrop: three uncentred, five centred (UpdateStats). On
// error the model is unchanged.
func (r *RankOneModel) Add(x []float64) error {
	if err := r.ready(); err != nil {
		return err
	}
	if err := kinds.Point(x, r.md.d); err != nil {
		return err
	}
	return r.transact(scopeAppend, func() error { return r.add(x) })
}

// add adds a validated point and records the step; the caller's txn rolls it back on
// error.
func (r *RankOneModel) add(x []float64) error {
	md := r.md
	md.pending = md.pending[:0]
	m := md.m
	r.ensure(m + 1)
	a := md.col[:m]
	if m > 0 {
		kernel.Column(a, md.kern, &md.view, x)
	}
	c := md.kern.Eval(x, x)
	sa, err := columnSum(a, c)
	if err != nil {
		return err
	}
	if err := r.step(a, c, sa); err != nil {
		return kinds.Wrap(err, "adding point %d", m)
	}
	md.commitPoint(x, a, c, sa)
	md.endStep()
	if md.probeDue() && r.Drift().Max() > md.opts.RefreshTolerance {
		md.stats.RefreshErr = r.refresh()
	}
	return nil
}

// ensure makes room for n points, as Model.ensure does.
func (r *RankOneModel) ensure(n int) {
	if k := r.md.room(n); k > 0 {
		r.reserve(k)
	}
}

// reserve makes room for n points in the store and the decomposition.
func (r *RankOneModel) reserve(n int) {
	r.md.reserveStore(n)
	r.sym.Reserve(n + 1)
}

// AddBatch adds the rows of X in order, one at a time, all or nothing, with Model.
// AddBatch's errors; into a model without points it fits them as FitRankOne does.
func (r *RankOneModel) AddBatch(X mat.Matrix) error {
	if err := r.ready(); err != nil {
		return err
	}
	X, n, err := kinds.Points(X, r.md.d)
	if err != nil {
		return err
	}
	return r.transact(scopeAppend, func() error {
		if r.md.m == 0 {
			return r.fitRows(X, n)
		}
		r.ensure(r.md.m + n)
		row := make([]float64, r.md.d)
		for i := range n {
			mat.Row(row, i, X)
			if err := r.add(row); err != nil {
				return fmt.Errorf("kpca: batch row %d: %w", i, err)
			}
		}
		return nil
	})
}

// fitRows fits the model, which has no points, to the n rows of X: one batch
// decomposition.
func (r *RankOneModel) fitRows(X mat.Matrix, n int) error {
	md := r.md
	r.ensure(n)
	for i := range n {
		mat.Row(md.x[i*md.d:(i+1)*md.d], i, X)
	}
	return md.batchStart(n, r.decompose)
}

// AddRows adds the rows of X one at a time, stoppable by ctx, as Model.AddRows does.
func (r *RankOneModel) AddRows(ctx context.Context, X mat.Matrix, progress func(added, total int)) (int, error) {
	if ctx == nil {
		return 0, fmt.Errorf("%w: nil context", ErrArgument)
	}
	if err := r.ready(); err != nil {
		return 0, err
	}
	return r.md.addRowsWith(ctx, X, progress, func(X mat.Matrix, i int, row []float64) error {
		return r.transact(scopeAppend, func() error {
			if err := r.add(rowOf(X, i, row)); err != nil {
				return fmt.Errorf("kpca: row %d: %w", i, err)
			}
			return nil
		})
	})
}

// Refresh recomputes the decomposition from the points with a batch eigensolver, as
// Model.Refresh does; on error the model is unchanged.
func (r *RankOneModel) Refresh() error {
	if err := r.ready(); err != nil {
		return err
	}
	return r.transact(scopeStep, r.refresh)
}

// refresh is Refresh's batch decomposition, which changes the model only if it
// succeeds.
func (r *RankOneModel) refresh() error {
	if err := r.decompose(); err != nil {
		return err
	}
	r.md.refreshed()
	return nil
}

// Drift probes the accuracy of the decomposition, as Model.Drift does.
func (r *RankOneModel) Drift() Drift {
	if r.md == nil {
		return Drift{}
	}
	return r.md.driftOf(r.basis())
}

// Reserve makes room for n points, as Model.Reserve does.
func (r *RankOneModel) Reserve(n int) error {
	if err := r.ready(); err != nil {
		return err
	}
	if err := r.md.checkReserve(n); err != nil {
		return err
	}
	r.reserve(n)
	return nil
}

// CopyFrom makes r a copy of src, allocating only if r lacks the room, as Model.CopyFrom
// does. r may be a zero RankOneModel; a nil or zero src is an ErrArgument, and leaves r
// as it was.
func (r *RankOneModel) CopyFrom(src *RankOneModel) error {
	if src == nil {
		return fmt.Errorf("%w: CopyFrom(nil)", ErrArgument)
	}
	if src.ready() != nil {
		return fmt.Errorf("%w: CopyFrom of a zero RankOneModel", ErrArgument)
	}
	if r == src {
		return nil
	}
	if r.md == nil {
		r.md = new(Model)
	}
	r.md.copyStore(src.md, r.ensure)
	r.setOptions()
	r.sym.CopyFrom(&src.sym)
	return nil
}
