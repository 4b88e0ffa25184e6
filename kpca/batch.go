package kpca

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// AddBatch adds the rows of X in order (sliding a window as Add does). It is all or
// nothing: on error (including a bad row anywhere in X, checked before any is added)
// the model is unchanged.
//
// The exact model of method Bordered picks the cheaper of two routes by a cost model
// (refactorPays): one update per row, or one batch decomposition of all the points
// (of the last Window of them in a window), which gives the same decomposition to
// rounding. At rank r outside a window it adds Options.Block rows (DefaultBlock) in one
// step each (docs/design.md, "Rank-r tracking in blocks"), in a window and for method
// RankOne one at a time. AddRows always adds them one at a time.
func (md *Model) AddBatch(X mat.Matrix) error {
	r, err := errs.Points(X, md.d)
	if err != nil {
		return err
	}
	if md.refactorPays(r) {
		return md.refactor(X, r)
	}
	if w := md.opts.Window; w > 0 {
		md.ensure(min(md.m+r, w))
	} else {
		md.ensure(md.m + r)
	}
	saved := md.snapshot()
	md.batching = true
	defer func() { md.batching = false }()
	if md.blocked() {
		if err := md.addBlocks(X, r); err != nil {
			md.restore(saved)
			return err
		}
		return nil
	}
	row := make([]float64, md.d)
	for i := range r {
		mat.Row(row, i, X)
		if err := md.add(row); err != nil {
			md.restore(saved)
			return fmt.Errorf("kpca: batch row %d: %w", i, err)
		}
	}
	return nil
}

// The cost model of AddBatch, in n×n×n dgemms for a decomposition of n points, from
// bench/RESULTS.md (measured 2026-11-21 on the project's 2-core machine, m = 2000,
// 2 threads, MAGIC kernel matrices): with OpenBLAS a batch dsyevd costs 4.64 dgemms (and
// 5.8–7 on random matrices, which deflate nothing: docs/design.md, "Backends") and an
// exact step 0.80 (uncentred) to 0.94 (centred); in pure Go gonum's Dsyev costs 6–9
// dgemms up to n = 1000 and 20–43 at n = 2000 (its time grows as n⁴), a step 0.56–0.77.
// A step is taken as one dgemm, the floor it approaches when little deflates.
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
// rows costs less than r updates: only for the exact model of method Bordered. An
// update of a model of n points costs stepDgemms·n³ (two of them in a full window: a
// removal and a bordering), the batch decomposition of N points batchDgemms(N)·N³.
func (md *Model) refactorPays(r int) bool {
	if !md.bordered() || md.opts.Rank > 0 {
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
// last Window of them in a window — all or nothing.
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
	saved := md.snapshot()
	md.ensure(keep)
	copy(md.x, pts[(all-keep)*d:])
	md.m = keep
	md.setView()
	if err := md.decompose(); err != nil {
		md.restore(saved)
		return fmt.Errorf("kpca: batch of %d rows: %w", r, err)
	}
	md.since = 0
	md.pending = md.pending[:0]
	md.endStep()
	md.stats.Last = md.thin.Stats()
	return nil
}

// addBlocks adds the r rows of X in steps of blockSize rows (addBlock), with the drift
// probe counting every row; the caller restores the model on error.
func (md *Model) addBlocks(X mat.Matrix, r int) error {
	size := md.blockSize()
	buf := mat.NewDense(min(size, r), md.d, nil)
	for lo := 0; lo < r; lo += size {
		hi := min(lo+size, r)
		xb := buf.Slice(0, hi-lo, 0, md.d).(*mat.Dense)
		for i := lo; i < hi; i++ {
			mat.Row(xb.RawRowView(i-lo), i, X)
		}
		md.pending = md.pending[:0]
		if err := md.addBlock(xb); err != nil {
			return fmt.Errorf("kpca: batch rows %d to %d: %w", lo, hi-1, err)
		}
		md.endStep()
		if md.opts.RefreshTolerance > 0 {
			md.since += hi - lo - 1 // maybeRefresh counts the last
		}
		md.maybeRefresh()
	}
	return nil
}
