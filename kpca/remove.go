package kpca

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/kernel"
)

// Remove removes point i — the i-th in the order of Points, oldest first — and updates
// the decomposition: the later points' indices fall by one. The exact model restricts
// its decomposition to the vectors that vanish at the point (update.Thin.Remove;
// centred, inside 1⊥: docs/design.md, "Removing a point"), one secular solve and one
// m×m×m product, and agrees with a batch kernel PCA of the points left — to the
// rounding of the matrix it removes from, for a downdate cannot do better: removing a
// point whose kernel values dominate the others' (a polynomial kernel's outlier) leaves
// the rest with errors of that point's scale, which Refresh brings back to their own
// (docs/design.md, "Removing a point"); at rank r it
// deletes the point from the rank-r matrix (update.Thin.RemoveKeepRank, re-centred in
// centred mode: docs/design.md, "Rank-r tracking"), O(m·r²). The row sums and the
// total follow in O(m·d). An index out of range, any index of a model without points
// included, is an error wrapping ErrIndex, a zero Model ErrArgument,
// a kernel value that is not finite ErrNonFinite, a solver that does not converge
// ErrNotConverged; on any error the model is unchanged. A model of kernel.Precomputed
// cannot compute the point's column: Remove is an error wrapping ErrNoKernel, and
// RemoveColumn removes a point given its column. (pca's Remove takes the point itself:
// a linear model keeps no points, only their mean and scatter.)
func (md *Model) Remove(i int) error {
	if err := md.ready(); err != nil {
		return err
	}
	if err := md.needKernel("Remove (the removed point's kernel column)"); err != nil {
		return fmt.Errorf("%w: give the column with RemoveColumn", err)
	}
	if md.m == 0 {
		return fmt.Errorf("%w: Remove(%d) of a model without points", ErrIndex, i)
	}
	if i < 0 || i >= md.m {
		return fmt.Errorf("%w: Remove(%d) of %d points", ErrIndex, i, md.m)
	}
	return md.transact(scopeStep, func() error {
		md.pending = md.pending[:0]
		if err := md.remove(i); err != nil {
			return err
		}
		md.endStep()
		return nil
	})
}

// remove removes point i (a valid index) from the decomposition, the points and the
// sums. On error nothing changed.
func (md *Model) remove(i int) error {
	col := md.col[:md.m]
	kernel.Column(col, md.kern, &md.view, md.point(i))
	return md.removeColumn(i, col)
}

// removeColumn removes point i (a valid index), whose kernel column against the points
// is col (not md.work, md.work2 or md.work3, which the update uses), from the
// decomposition, the points and the sums. On error nothing changed.
func (md *Model) removeColumn(i int, col []float64) error {
	m, d := md.m, md.d
	var s float64
	for j, v := range col {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: kernel value of point %d with point %d is %g", ErrNonFinite, i, j, v)
		}
		s += v
	}
	// The secular step's rounding is that of the matrix it removes from: its scale is
	// the largest eigenvalue before the removal, which may dwarf those after it (a point
	// that dominated the others; docs/design.md, "Removing a point").
	scale := md.valueScale()
	var err error
	if md.rank > 0 {
		err = md.thin.RemoveKeepRank(i, !md.opts.Uncentred)
	} else {
		err = md.thin.Remove(i)
	}
	if err != nil {
		return kinds.Wrap(err, "removing point %d", i)
	}
	md.tally(md.thin.Stats())

	// Commit: the sums lose the point's column, the points the point.
	kii := col[i]
	for j, v := range col {
		md.rowSum[j] -= v
	}
	copy(md.rowSum[i:m-1], md.rowSum[i+1:m])
	md.total -= 2*s - kii
	md.self -= kii
	copy(md.x[i*d:(m-1)*d], md.x[(i+1)*d:m*d])
	md.m = m - 1
	md.setView()
	stepCertificate(&md.cert, md.thin.Stats(), math.Max(scale, md.valueScale()), md.self, md.total, md.m, md.rank > 0)
	return nil
}

// valueScale returns the largest eigenvalue magnitude of the decomposition.
func (md *Model) valueScale() float64 {
	_, k := md.thin.Dims()
	if k == 0 {
		return 0
	}
	v := md.thin.Values(md.work3[:k])
	return math.Max(math.Abs(v[0]), math.Abs(v[k-1]))
}

// slide is a full window's step: the oldest point goes, then x comes. If adding x
// fails, the caller's txn (scopeSlide) undoes the removal.
func (md *Model) slide(x []float64) error {
	if err := md.remove(0); err != nil {
		return err
	}
	return md.addPoint(x)
}
