package kpca

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

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
	sa, err := columnSum(a, c)
	if err != nil {
		return err
	}

	var scale float64 // the scale of the bordered matrix, for the certificate's rounding
	switch {
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

	md.commitPoint(x, a, c, sa)
	stepCertificate(&md.cert, md.thin.Stats(), scale, md.self, md.total, md.m, md.rank > 0)
	return nil
}

// columnSum returns the sum of the kernel column a of a new point, checking that a and
// its self-kernel c are finite.
func columnSum(a []float64, c float64) (float64, error) {
	var sa float64
	for i, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: kernel value with point %d is %g", ErrNonFinite, i, v)
		}
		sa += v
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return 0, fmt.Errorf("%w: kernel value k(x, x) = %g", ErrNonFinite, c)
	}
	return sa, nil
}

// commitPoint appends the point x of kernel column a (of sum sa) and self-kernel c,
// whose step the decomposition has taken, to the points, the row sums and the totals.
func (md *Model) commitPoint(x, a []float64, c, sa float64) {
	m := md.m
	copy(md.x[m*md.d:(m+1)*md.d], x)
	for i, v := range a {
		md.rowSum[i] += v
	}
	md.rowSum[m] = sa + c
	md.total += 2*sa + c
	md.self += c
	md.m = m + 1
	md.setView()
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
