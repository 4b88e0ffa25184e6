package kpca

import (
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/native"
)

// AddBatch adds the rows of X in order (sliding a window as Add does). It is all or
// nothing: on error (including a bad row anywhere in X, checked before any is added)
// the model is unchanged. A nil X is an error wrapping ErrArgument, an X without rows
// ErrEmpty, one of another dimension ErrDimension, a NaN or infinite entry ErrNonFinite.
//
// Into a model without points it fits the rows as Fit does: one batch decomposition (of
// the last Window rows in a window), or at rank r of more than BatchMax rows a batch
// start and blocks. Otherwise the exact model of method Bordered picks the cheaper of
// two routes by a cost model (refactorPays): one update per row, or one batch
// decomposition of all the points (of the last Window of them in a window), which gives
// the same decomposition to rounding. At rank r it adds Options.Block rows
// (DefaultBlock) in one step each (docs/design.md, "Rank-r tracking in blocks") — in a
// window only while it fills, and one row at a time while the model holds fewer than
// two points — and a RankOneModel adds the rows one at a time. AddRows always adds them
// one at a time.
//
// To a model of kernel.Precomputed with m points, X is b×(m+b): row i holds the kernel
// values of new point i against the m points, then against the b new points, of which
// the values up to its own (its self-kernel, column m+i) are read — the lower triangle
// of the new points' block, as Fit reads its matrix. The rows are added as AddColumn
// adds a point, all or nothing; into a model without points, X is b×b and fitted as Fit
// does.
func (md *Model) AddBatch(X mat.Matrix) error {
	if err := md.ready(); err != nil {
		return err
	}
	if md.precomputed() {
		X, b, err := md.kernelBatch(X)
		if err != nil {
			return err
		}
		return md.transact(scopeAppend, func() error { return md.addKernelBatch(X, b) })
	}
	X, r, err := kinds.Points(X, md.d)
	if err != nil {
		return err
	}
	return md.transact(md.batchScope(r), func() error {
		if md.m == 0 {
			return md.fitRows(X, r)
		}
		return md.addBatch(X, r)
	})
}

// batchScope is the scope of a batch of r rows: its steps append points, and in a
// window they also remove the oldest, which moves every point. A batch that is one
// block step outside a window — the command's tracked fit adds its rows so — makes one
// update, which fails or succeeds whole, and writes the sums and the points after it:
// a step (scopeStep), whose txn copies no m×r decomposition, a serial copy as long as
// one of the step's products (2% of a tracked fit of MAGIC).
func (md *Model) batchScope(r int) scope {
	switch {
	case md.opts.Window > 0:
		return scopeAll
	case r <= md.blockSize() && md.blockRows(r) == r: // at rank r: no refactor
		return scopeStep
	}
	return scopeAppend
}

// addBatch adds the r validated rows of X to a model with points; the caller's txn, of
// batchScope, makes it all or nothing.
func (md *Model) addBatch(X mat.Matrix, r int) error {
	if md.refactorPays(r) {
		return md.refactor(X, r)
	}
	if w := md.opts.Window; w > 0 {
		md.ensure(min(md.m+r, w))
	} else {
		md.ensure(md.m + r)
	}
	var row []float64 // a row added on its own, allocated then: block steps need none
	for i := 0; i < r; {
		if b := md.blockRows(r - i); b > 0 {
			if err := md.addBlocks(X, i, i+b); err != nil {
				return err
			}
			i += b
			continue
		}
		if row == nil {
			row = make([]float64, md.d)
		}
		mat.Row(row, i, X)
		if err := md.add(row); err != nil {
			return fmt.Errorf("kpca: batch row %d: %w", i, err)
		}
		i++
	}
	return nil
}

// The cost model of AddBatch, in n×n×n dgemms for a decomposition of n points, from the
// harness's measurements (docs/design.md, "The batch fit", AddBatch's cost model): a
// batch decomposition costs a few dgemms with OpenBLAS, and in pure Go a number that
// grows with n, for gonum's Dsyev's time grows as n⁴. A step is taken as one dgemm, the
// floor it approaches when little deflates.
const (
	// batchDgemmsOpenBLAS is LAPACK dsyevd's cost with OpenBLAS.
	batchDgemmsOpenBLAS = 4.64
	// batchDgemmsGonum is gonum's Dsyev's cost at n = 1000; it grows as n/1000 beyond.
	batchDgemmsGonum = 7
	// stepDgemms is the cost of one bordered or removal step.
	stepDgemms = 1.0
)

// batchDgemms returns the cost of a batch decomposition of n points in n×n×n dgemms.
func batchDgemms(n int) float64 {
	if native.Compiled == "openblas" {
		return batchDgemmsOpenBLAS
	}
	return batchDgemmsGonum * max(1, float64(n)/1000)
}

// refactorPays reports whether one batch decomposition of the points after adding r
// rows costs less than r updates: only for the exact model. An
// update of a model of n points costs stepDgemms·n³ (two of them in a full window: a
// removal and a bordering), the batch decomposition of N points batchDgemms(N)·N³.
func (md *Model) refactorPays(r int) bool {
	if md.rank > 0 {
		return false
	}
	var steps float64
	n := md.m
	for range r {
		if w := md.opts.Window; w > 0 && n >= w {
			steps += 2 * stepDgemms * cube(n)
		} else {
			steps += stepDgemms * cube(n)
			n++
		}
	}
	return batchDgemms(n)*cube(n) < steps
}

func cube(n int) float64 { f := float64(n); return f * f * f }

// refactor adds the r rows of X by one batch decomposition of all the points — the
// last Window of them in a window; the caller's txn makes it all or nothing. Without a
// window the points are written over themselves and then appended (scopeAppend).
func (md *Model) refactor(X mat.Matrix, r int) error {
	d := md.d
	all := md.m + r
	keep := all
	if w := md.opts.Window; w > 0 {
		keep = min(all, w)
	}
	pts := make([]float64, 0, all*d) // the old points and the new, oldest first
	pts = append(pts, md.x[:md.m*d]...)
	row := make([]float64, d)
	for i := range r {
		mat.Row(row, i, X)
		pts = append(pts, row...)
	}
	md.ensure(keep)
	copy(md.x, pts[(all-keep)*d:])
	md.m = keep
	md.setView()
	if err := md.decompose(); err != nil {
		return fmt.Errorf("kpca: batch of %d rows: %w", r, err)
	}
	md.since = 0
	md.pending = md.pending[:0]
	md.endStep()
	md.stats.Last = md.thin.Stats()
	return nil
}

// addBlocks adds rows lo to hi−1 of X in steps of blockSize rows (addBlock), with the
// drift probe counting every row; the caller's txn restores the model on error.
func (md *Model) addBlocks(X mat.Matrix, lo, hi int) error {
	size := md.blockSize()
	// The kernel block and the border of each step grow with the model: room for the
	// largest at once — the model's capacity, which Reserve sets to the points to come
	// (the command's fit, adding a block at a time, reserves them all) — rather than a
	// quarter more at a time, each growth the garbage of the last.
	rows, b := max(md.m+hi-lo, md.capacity()), min(size, hi-lo)
	md.blockA = hugepage.Grow(md.blockA, rows*b)
	if !md.opts.Uncentred {
		md.blockB = hugepage.Grow(md.blockB, rows*b)
	}
	md.thin.ReserveBlocks(rows+1, b) // and BorderBlock's n×b scratch, likewise
	if md.blocks == nil {
		md.blocks = new(blockScratch)
	}
	sc := md.blocks
	// Go owns the cores for the steps (docs/design.md, "Who owns the cores"): their large
	// products are split into chunks on goroutines, and their small ones — b×b, r×b —
	// gain nothing from OpenBLAS's threads, which woke for each and spun between calls
	// (a tenth of the processor time of a tracked fit of 10,000 images, 5% of its time).
	defer native.OwnCores(runtime.GOMAXPROCS(0))()
	buf := denseOf(&sc.rows, min(size, hi-lo), md.d)
	for first := lo; first < hi; first += size {
		last := min(first+size, hi)
		xb := viewOf(&sc.xb, last-first, md.d, buf.RawMatrix().Data)
		for i := first; i < last; i++ {
			mat.Row(xb.RawRowView(i-first), i, X)
		}
		md.pending = md.pending[:0]
		if err := md.addBlock(xb, sc); err != nil {
			return fmt.Errorf("kpca: batch rows %d to %d: %w", first, last-1, err)
		}
		md.endStep()
		if md.opts.RefreshTolerance > 0 {
			md.since += last - first - 1 // maybeRefresh counts the last
		}
		md.maybeRefresh()
		md.maybePolish(last - first)
	}
	return nil
}
