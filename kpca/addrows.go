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
	return md.addRowsWith(ctx, X, progress, func(X mat.Matrix, i int, row []float64) error {
		// Each row is all or nothing, as Add is.
		return md.transact(md.addScope(), func() error { return md.addRow(X, i, row) })
	})
}

// addRowsWith is AddRows of the type whose add adds row i of the validated X, read into
// row unless X lends its rows (rowOf), in a txn of its own.
func (md *Model) addRowsWith(ctx context.Context, X mat.Matrix, progress func(added, total int),
	add func(X mat.Matrix, i int, row []float64) error) (added int, err error) {
	if ctx == nil {
		return 0, fmt.Errorf("%w: nil context", ErrArgument)
	}
	if err := md.ready(); err != nil {
		return 0, err
	}
	var r int
	if md.precomputed() {
		X, r, err = md.kernelRows(X)
	} else {
		X, r, err = kinds.Points(X, md.d)
	}
	if err != nil {
		return 0, err
	}
	var row []float64 // the row's buffer, if X does not lend its rows
	if _, direct := X.(mat.RawRowViewer); !direct && !md.precomputed() {
		row = make([]float64, md.d)
	}
	for i := range r {
		if ctx.Err() != nil {
			return i, kinds.Stopped(ctx, "after %d of %d rows", i, r)
		}
		if err := add(X, i, row); err != nil {
			return i, err
		}
		if progress != nil {
			progress(i+1, r)
		}
	}
	return r, nil
}

// addRow adds row i of X, validated: a point, read into row unless X lends its rows (a
// *mat.Dense: nothing is allocated), or a model of columns' row of kernel values.
func (md *Model) addRow(X mat.Matrix, i int, row []float64) error {
	if md.precomputed() {
		return md.addKernelRows(X, i, i+1, 0)
	}
	if err := md.add(rowOf(X, i, row)); err != nil {
		return fmt.Errorf("kpca: row %d: %w", i, err)
	}
	return nil
}

// rowOf returns row i of X: its own storage if X lends its rows (a *mat.Dense: nothing
// is allocated), otherwise row, into which it is read.
func rowOf(X mat.Matrix, i int, row []float64) []float64 {
	if raw, direct := X.(mat.RawRowViewer); direct {
		return raw.RawRowView(i)
	}
	mat.Row(row, i, X)
	return row
}
