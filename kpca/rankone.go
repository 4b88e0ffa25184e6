package kpca

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
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
	// md holds the points, the running sums and the decomposition; its options record
	// the method, so that the steps it shares with Model take this path.
	md *Model
}

// FitRankOne returns the RankOneModel of the rows of X for the kernel k: a batch
// decomposition of every pair, as Fit with Components All. opts must have Components
// All and no Window; its Rank must be zero. Its other errors are Fit's.
func FitRankOne(k kernel.Kernel, X mat.Matrix, opts Options) (*RankOneModel, error) {
	opts.method = methodRankOne
	md, err := Fit(k, X, opts)
	if err != nil {
		return nil, err
	}
	return &RankOneModel{md: md}, nil
}

// NewRankOne returns an empty RankOneModel of d-dimensional points for the kernel k, fed
// by Add, AddBatch and AddRows. opts must have Components All and no Window; its other
// errors are New's.
func NewRankOne(k kernel.Kernel, d int, opts Options) (*RankOneModel, error) {
	opts.method = methodRankOne
	md, err := New(k, d, opts)
	if err != nil {
		return nil, err
	}
	return &RankOneModel{md: md}, nil
}

// errZeroRankOne is the error of a zero RankOneModel's methods.
var errZeroRankOne = fmt.Errorf("%w: a zero RankOneModel: build one with FitRankOne or NewRankOne, or decode one into it (UnmarshalBinary)", ErrArgument)

// model returns the model, or for a zero RankOneModel a zero Model, whose read methods
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

// Add adds the point x (of dimension Dim()) as Model.Add does, with the rank-one
// updates of Hallgren and Northrop: three uncentred, five centred (UpdateStats). On
// error the model is unchanged.
func (r *RankOneModel) Add(x []float64) error {
	if err := r.ready(); err != nil {
		return err
	}
	return r.md.Add(x)
}

// AddBatch adds the rows of X in order, one at a time, all or nothing, with Model.
// AddBatch's errors; into a model without points it fits them as FitRankOne does.
func (r *RankOneModel) AddBatch(X mat.Matrix) error {
	if err := r.ready(); err != nil {
		return err
	}
	return r.md.AddBatch(X)
}

// AddRows adds the rows of X one at a time, stoppable by ctx, as Model.AddRows does.
func (r *RankOneModel) AddRows(ctx context.Context, X mat.Matrix, progress func(added, total int)) (int, error) {
	if ctx == nil {
		return 0, fmt.Errorf("%w: nil context", ErrArgument)
	}
	if err := r.ready(); err != nil {
		return 0, err
	}
	return r.md.AddRows(ctx, X, progress)
}

// Refresh recomputes the decomposition from the points with a batch eigensolver, as
// Model.Refresh does; on error the model is unchanged.
func (r *RankOneModel) Refresh() error {
	if err := r.ready(); err != nil {
		return err
	}
	return r.md.Refresh()
}

// Drift probes the accuracy of the decomposition, as Model.Drift does.
func (r *RankOneModel) Drift() Drift { return r.model().Drift() }

// Reserve makes room for n points, as Model.Reserve does.
func (r *RankOneModel) Reserve(n int) error {
	if err := r.ready(); err != nil {
		return err
	}
	return r.md.Reserve(n)
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
	if r.md == nil {
		r.md = new(Model)
	}
	return r.md.CopyFrom(src.md)
}
