package main

import (
	"context"
	"fmt"

	"github.com/ikpca/ikpca/update"
	"gonum.org/v1/gonum/mat"
)

// rowAdder adds the rows of a stream to a model: one at a time, or — for a rank-r model
// that grows (no window), with --block above 1 — in blocks of rows, each one AddBatch
// step (docs/design.md, "Rank-r tracking in blocks"), several times cheaper than the
// rows one by one. The outcome of a bad row is the same either way: the rows before it
// are in the model, and the error names its line.
type rowAdder struct {
	md    fitted
	d     int
	block int       // rows a step adds; 1: one at a time
	buf   []float64 // the pending rows, row-major
	lines []int     // their line numbers
	read  int       // points read into the model
	step  func()    // called after each step (the progress bar, the tests' hook)
	timer *phaseTimer
	stats []update.Stats // the last step's, for the timer
}

// updateStatser is a model that reports its last step's updates (kpca.Model).
type updateStatser interface {
	UpdateStats(dst []update.Stats) []update.Stats
}

// tally adds the parts of the last step's updates to the timer (--timings): the
// projection of the border and its new directions, the dense or secular solve, and the
// assembly of the new vectors (update.Stats).
func (a *rowAdder) tally() {
	if a.timer == nil {
		return
	}
	us, ok := a.md.(updateStatser)
	if !ok {
		return
	}
	a.stats = us.UpdateStats(a.stats[:0])
	for _, s := range a.stats {
		a.timer.part("project", s.Project)
		a.timer.part("solve", s.Solve)
		a.timer.part("assemble", s.Assemble)
	}
}

// newRowAdder returns an adder of rows of d columns to md, which holds read points, in
// blocks of block rows when md adds rows in blocks.
func newRowAdder(md fitted, d, block, read int, step func()) *rowAdder {
	if md.Rank() == 0 || md.Options().Window > 0 {
		block = 1 // an exact model or a window adds its rows one at a time
	}
	a := &rowAdder{md: md, d: d, block: max(block, 1), read: read, step: step}
	if a.block > 1 {
		a.buf = make([]float64, 0, a.block*d)
		a.lines = make([]int, 0, a.block)
	}
	return a
}

// add adds the row read from line, or holds it until its block is full. When ctx is
// done it adds the rows it holds, but not this one, and returns ctx's error.
func (a *rowAdder) add(ctx context.Context, row []float64, line int) error {
	if err := ctx.Err(); err != nil {
		return firstErr(a.flush(), err)
	}
	if a.block == 1 {
		if err := a.md.Add(row); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		a.read++
		a.tally()
		a.step()
		return nil
	}
	a.buf = append(a.buf, row...)
	a.lines = append(a.lines, line)
	if len(a.lines) == a.block {
		return a.flush()
	}
	return nil
}

// flush adds the rows held: one AddBatch step, or, if it fails (and leaves the model as
// it was), the rows one at a time, so that those before a bad row are kept and the
// error names its line.
func (a *rowAdder) flush() error {
	n := len(a.lines)
	if n == 0 {
		return nil
	}
	defer func() { a.buf, a.lines = a.buf[:0], a.lines[:0] }()
	if n > 1 {
		if err := a.md.AddBatch(mat.NewDense(n, a.d, a.buf)); err == nil {
			a.read += n
			a.tally()
			a.step()
			return nil
		}
	}
	for i, line := range a.lines {
		if err := a.md.Add(a.buf[i*a.d : (i+1)*a.d]); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		a.read++
		a.tally()
		a.step()
	}
	return nil
}
