package kpca

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// AddRows adds the rows of X to the model one at a time, in order, and returns how many
// it added. It is the loop of a long fit that must be stoppable:
//
//   - Before adding anything it checks every row (dimension, finite values), so that bad
//     input is reported at once and changes nothing.
//   - Between two points it checks ctx: once ctx is cancelled it stops and returns the
//     number added and an error wrapping context.Cause(ctx). A point being added when
//     ctx is cancelled is completed first (an update cannot be interrupted part-way).
//   - If adding a row fails (a kernel value that is not finite, a solver that does not
//     converge) it stops there: the error names the row, and the rows before it stay
//     added.
//
// Unlike AddBatch it is not all or nothing: whenever it returns, the model holds its
// earlier points and the first `added` rows of X, and is as valid as after as many calls
// of Add — it can be saved (MarshalBinary: the model of the points added so far),
// queried or continued. progress, if not nil, is called after each point with the
// number of rows added so far and the number of rows of X. A nil ctx or X and a zero
// Model are errors wrapping ErrArgument, an X without rows ErrEmpty, one of another
// dimension ErrDimension, a NaN or infinite entry ErrNonFinite. With *mat.Dense rows
// (or any mat.RawRowViewer) it allocates nothing beyond what Add does. To a model of
// kernel.Precomputed of m points, X holds rows of kernel values as AddBatch's (b×(m+b)).
func (md *Model) AddRows(ctx context.Context, X mat.Matrix, progress func(added, total int)) (added int, err error) {
	if ctx == nil {
		return 0, fmt.Errorf("%w: nil context", ErrArgument)
	}
	if err := md.ready(); err != nil {
		return 0, err
	}
	var X2 mat.Matrix
	var r int
	var addRow func(i int) error // adds row i of X2, validated
	if md.precomputed() {
		X2, r, err = md.kernelRows(X)
		addRow = func(i int) error { return md.addKernelRows(X2, i, i+1, 0) }
	} else {
		X2, r, err = errs.Points(X, md.d)
		addRow = md.pointRows(X2)
	}
	if err != nil {
		return 0, err
	}
	for i := range r {
		if ctx.Err() != nil {
			return i, errs.Stopped(ctx, "after %d of %d rows", i, r)
		}
		// Each row is all or nothing, as Add is.
		if err := md.transact(md.addScope(), func() error { return addRow(i) }); err != nil {
			return i, err
		}
		if progress != nil {
			progress(i+1, r)
		}
	}
	return r, nil
}

// pointRows returns the function that adds row i of X, validated points, as Add does:
// with *mat.Dense rows (or any mat.RawRowViewer) it allocates nothing.
func (md *Model) pointRows(X mat.Matrix) func(i int) error {
	raw, direct := X.(mat.RawRowViewer)
	var row []float64
	if !direct {
		row = make([]float64, md.d)
	}
	return func(i int) error {
		if direct {
			row = raw.RawRowView(i)
		} else {
			mat.Row(row, i, X)
		}
		if err := md.add(row); err != nil {
			return fmt.Errorf("kpca: row %d: %w", i, err)
		}
		return nil
	}
}
