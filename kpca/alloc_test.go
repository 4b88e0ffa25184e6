package kpca

import (
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
)

// TestAddAllocations: once the capacity suffices, Add allocates nothing of its own in
// any mode and method. With OpenBLAS that means zero; gonum's pure-Go dgemm allocates a
// few objects for its goroutines, so there the bound is what the step's products
// allocate by themselves (one bare dgemm of the same size per update of the step).
func TestAddAllocations(t *testing.T) {
	const m = 300
	x, k := sample(t, "magic", m+1)
	g := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	c := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	gemm := testing.AllocsPerRun(10, func() { native.Gemm(blas.NoTrans, blas.Trans, 1, g, g, 0, c) })
	for _, opts := range allOptions {
		md := newModel(t, k, x.Slice(0, m, 0, 10), opts)
		md.Reserve(m + 1)
		saved := md.snapshot()
		next := x.RawRowView(m)
		if err := md.Add(next); err != nil { // warm the workspaces
			t.Fatal(err)
		}
		updates := len(md.UpdateStats(nil))
		allocs := testing.AllocsPerRun(10, func() {
			md.restore(saved)
			if err := md.Add(next); err != nil {
				t.Fatal(err)
			}
		})
		if native.Compiled == "openblas" && allocs != 0 {
			t.Errorf("%s: Add allocates %v times with OpenBLAS, want 0", name(opts), allocs)
		}
		if allocs > float64(updates)*gemm {
			t.Errorf("%s: Add allocates %v times; its %d updates' dgemms %v", name(opts), allocs, updates, float64(updates)*gemm)
		}
	}
}

// TestStreamAllocations: in steady state a window step (removal of the oldest point and
// addition), exact and at rank r, a rank-r addition and a Remove followed by an Add
// allocate nothing of their own. With OpenBLAS that means zero; with gonum's pure-Go
// dgemm, which allocates for its goroutines, the bound is what one bare dgemm of an
// update's size allocates, times the step's updates.
func TestStreamAllocations(t *testing.T) {
	const w, r = 300, 20
	x, k := sample(t, "magic", w+40)
	for _, opts := range []Options{
		{Window: w}, {Mode: Uncentred, Window: w},
		{Window: w, Rank: r}, {Mode: Uncentred, Window: w, Rank: r},
		{Rank: r}, {Mode: Uncentred, Rank: r},
	} {
		md := newModel(t, k, x.Slice(0, w, 0, 10), opts)
		md.Reserve(w + 40)
		next := w
		add := func() {
			if err := md.Add(x.RawRowView(next)); err != nil {
				t.Fatal(err)
			}
			next++
		}
		for range 3 { // warm the workspaces: the solver, the backup of a window step
			add()
		}
		steps := testing.AllocsPerRun(10, add)
		removeAdd := testing.AllocsPerRun(5, func() {
			if err := md.Remove(md.Len() / 2); err != nil {
				t.Fatal(err)
			}
			add()
		})
		cols := w
		if opts.Rank > 0 {
			cols = r + 2
		}
		g := blas64.General{Rows: w, Cols: cols, Stride: cols, Data: make([]float64, w*cols)}
		c := blas64.General{Rows: w, Cols: cols, Stride: cols, Data: make([]float64, w*cols)}
		h := blas64.General{Rows: cols, Cols: cols, Stride: cols, Data: make([]float64, cols*cols)}
		gemm := testing.AllocsPerRun(10, func() { native.Gemm(blas.NoTrans, blas.Trans, 1, g, h, 0, c) })
		t.Logf("%s: %v allocations a step, %v a Remove and Add; a bare dgemm %v (%s)", name(opts), steps, removeAdd, gemm, native.Compiled)
		if native.Compiled == "openblas" && (steps != 0 || removeAdd != 0) {
			t.Errorf("%s: a step allocates %v times, a Remove and Add %v, with OpenBLAS; want 0", name(opts), steps, removeAdd)
		}
		if steps > 2*gemm || removeAdd > 2*gemm {
			t.Errorf("%s: a step allocates %v times, a Remove and Add %v; two bare dgemms %v", name(opts), steps, removeAdd, 2*gemm)
		}
	}
}
