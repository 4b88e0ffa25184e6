package kpca

import (
	"runtime"
	"runtime/debug"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/allocs"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

// TestAddAllocations: once the capacity suffices, Add allocates nothing of its own in
// any mode and method, with one thread and with two (the secular solver's phases then
// run on internal/parallel's shared workers: m = 300 is above its serial threshold).
// With OpenBLAS that means zero, every allocation counted; gonum's pure-Go dgemm
// allocates a few objects for its goroutines, so there the bound is what the step's
// products allocate by themselves (one bare dgemm of the same size per update of the
// step).
func TestAddAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are taken without the race detector, whose instrumentation allocates")
	}
	const m = 300
	x, k := sample(t, "magic", m+1)
	g := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	c := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	gemm := testing.AllocsPerRun(10, func() { native.Gemm(blas.NoTrans, blas.Trans, 1, g, g, 0, c) })
	for _, opts := range allOptions {
		for _, nm := range exactModels(t, k, x.Slice(0, m, 0, 10), opts) {
			md := nm.md
			md.Reserve(m + 1)
			rewind := checkpointAny(md)
			next := x.RawRowView(m)
			if err := md.Add(next); err != nil { // warm the workspaces
				t.Fatal(err)
			}
			updates := len(md.UpdateStats(nil))
			single := testing.AllocsPerRun(10, func() {
				rewind()
				if err := md.Add(next); err != nil {
					t.Fatal(err)
				}
			})
			threads := allocs.Count(2, 3, 10, func() {
				rewind()
				if err := md.Add(next); err != nil {
					t.Fatal(err)
				}
			})
			if native.Compiled == "openblas" && (single != 0 || threads != 0) {
				t.Errorf("%s: Add allocates %v times with OpenBLAS, %d in 10 with two threads; want 0", nm.name, single, threads)
			}
			// With two threads gonum's dgemm allocates as its goroutines happen to be
			// scheduled, so the pure-Go bound holds for one thread only.
			if single > float64(updates)*gemm {
				t.Errorf("%s: Add allocates %v times; its %d updates' dgemms %v", nm.name, single, updates, float64(updates)*gemm)
			}
		}
	}
}

// TestStreamAllocations: in steady state a window step (removal of the oldest point and
// addition), exact and at rank r, a rank-r addition and a Remove followed by an Add
// allocate nothing of their own. With OpenBLAS that means zero; with gonum's pure-Go
// dgemm, which allocates for its goroutines, the bound is what one bare dgemm of an
// update's size allocates, times the step's updates.
func TestStreamAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are taken without the race detector, whose instrumentation allocates")
	}
	const w, r = 300, 20
	// The points added: 3 to warm up, 11 by AllocsPerRun(10), 6 by AllocsPerRun(5) (each
	// after a removal), 3 + Trials·10 by allocs.Count.
	const extra = 3 + 11 + 6 + 3 + allocs.Trials*10
	x, k := sample(t, "magic", w+extra)
	for _, opts := range []Options{
		{Components: All, Window: w}, {Components: All, Uncentred: true, Window: w},
		{Window: w, Components: r, Rank: r}, {Uncentred: true, Window: w, Components: r, Rank: r},
		{Components: r, Rank: r}, {Uncentred: true, Components: r, Rank: r},
	} {
		md := fitModel(t, k, x.Slice(0, w, 0, 10), opts)
		md.Reserve(w + extra)
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
		threads := allocs.Count(2, 3, 10, add) // every allocation of 10 steps, two threads
		cols := w
		if opts.Rank > 0 {
			cols = r + 2
		}
		g := blas64.General{Rows: w, Cols: cols, Stride: cols, Data: make([]float64, w*cols)}
		c := blas64.General{Rows: w, Cols: cols, Stride: cols, Data: make([]float64, w*cols)}
		h := blas64.General{Rows: cols, Cols: cols, Stride: cols, Data: make([]float64, cols*cols)}
		gemm := testing.AllocsPerRun(10, func() { native.Gemm(blas.NoTrans, blas.Trans, 1, g, h, 0, c) })
		t.Logf("%s: %v allocations a step, %v a Remove and Add, %d in 10 steps with two threads; a bare dgemm %v (%s)",
			name(opts), steps, removeAdd, threads, gemm, native.Compiled)
		if native.Compiled == "openblas" && (steps != 0 || removeAdd != 0 || threads != 0) {
			t.Errorf("%s: a step allocates %v times, a Remove and Add %v, 10 steps with two threads %d, with OpenBLAS; want 0",
				name(opts), steps, removeAdd, threads)
		}
		if steps > 2*gemm || removeAdd > 2*gemm { // one thread: see TestAddAllocations
			t.Errorf("%s: a step allocates %v times, a Remove and Add %v; two bare dgemms %v",
				name(opts), steps, removeAdd, 2*gemm)
		}
	}
}

// TestLongStreamAllocations: a rank-r model of 3100 points and more, where a kernel
// column (d = 10) is computed by several goroutines (kernel.Column's threshold), adds
// points with two threads without allocating: with OpenBLAS, not once in 20 steps.
func TestLongStreamAllocations(t *testing.T) {
	const m0, m, r, warm, steps = 50, 3200, 20, 3, 20
	if testing.Short() {
		t.Skip("3200 rank-r steps")
	}
	const n = m + warm + allocs.Trials*steps // the points added
	x, k := sample(t, "magic", n)
	for _, opts := range []Options{{Components: r, Rank: r}, {Uncentred: true, Components: r, Rank: r}} {
		md := fitModel(t, k, x.Slice(0, m0, 0, 10), opts)
		md.Reserve(n)
		testmat.AddRows(t, md, x, m0, m)
		next := m
		threads := allocs.Count(2, warm, steps, func() {
			if err := md.Add(x.RawRowView(next)); err != nil {
				t.Fatal(err)
			}
			next++
		})
		g := blas64.General{Rows: m, Cols: r + 2, Stride: r + 2, Data: make([]float64, m*(r+2))}
		h := blas64.General{Rows: r + 2, Cols: r, Stride: r, Data: make([]float64, (r+2)*r)}
		c := blas64.General{Rows: m, Cols: r, Stride: r, Data: make([]float64, m*r)}
		gemm2 := allocs.Count(2, 1, steps, func() { native.Gemm(blas.NoTrans, blas.NoTrans, 1, g, h, 0, c) })
		t.Logf("%s: %d allocations in %d steps of %d points, two threads; dgemms %d (%s)", name(opts), threads, steps, m, gemm2, native.Compiled)
		if native.Compiled == "openblas" && threads != 0 {
			t.Errorf("%s: %d allocations in %d steps with OpenBLAS, want 0", name(opts), threads, steps)
		}
	}
}

// TestAddBatchGarbage: a rank-r model reserved for its points (as the command's fit
// reserves them) adds Fashion-MNIST images (d = 784, where the kernel blocks take the
// points in chunks of 668) a block of 64 at a time, as the command does, without
// garbage that grows with the number of points — what made a 70,000-image fit peak at
// twice its live memory (docs/design.md, "Rank-r tracking in blocks"):
//   - the first time through, the blocks together allocate less than one n×b buffer
//     plus LAPACK's workspace for the block's eigenproblem, of order N = r + 2 + 2b at
//     most, which grows once (native keeps it): BorderBlock's n×b buffers are sized
//     once for the model's capacity, where each used to be reallocated a quarter larger
//     as the model grew;
//   - the same blocks again, from the same state, every workspace now sized, allocate at
//     most 4 KiB a block with OpenBLAS (and, counted on two threads, no object at all): not a copy of the row sums a block (8·m bytes),
//     nor the Cholesky scratch of each block's new directions (8·b² twice). In pure Go
//     the bound is 128 KiB a block: gonum's dgemm allocates a few objects for its
//     goroutines (32 KB a block measured, since the eigensolver's workspace is pooled;
//     93 KB before).
//
// The collector is off while blocks are measured, so that the memory it counts is the
// memory the steps asked for, and the test runs on one processor (GOMAXPROCS 1;
// OpenBLAS's threads are its own): native's workspaces are kept in sync.Pools, whose
// entries belong to a processor, and a goroutine moved to another one allocates a
// workspace there — 439 KB for the block's eigenproblem, once a processor, which on a
// machine of 16 made a repeated block seem to leave garbage.
func TestAddBatchGarbage(t *testing.T) {
	if raceEnabled {
		t.Skip("garbage is measured without the race detector, whose instrumentation allocates")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const start, n, b, r = 640, 1000, 64, 20
	x := mat.DenseCopyOf(data.FashionMNISTSample().X.Slice(0, n, 0, 784))
	k := rbfMedian(t, x)
	for _, opts := range []Options{{Components: r, Rank: r}, {Components: r, Rank: r, Uncentred: true}} {
		md := fitModel(t, k, x.Slice(0, start, 0, 784), opts)
		md.Reserve(n)
		var base Model
		base.CopyFrom(md)
		add := func(lo int) uint64 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := md.AddBatch(x.Slice(lo, lo+b, 0, 784)); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		gc := debug.SetGCPercent(-1)
		add(start) // the first block sizes the block's scratch
		var first uint64
		for lo := start + b; lo+b <= n; lo += b {
			first += add(lo)
		}
		md.CopyFrom(&base)
		var most uint64
		for lo := start; lo+b <= n; lo += b {
			most = max(most, add(lo))
		}
		debug.SetGCPercent(gc)
		N := uint64(r + 2 + 2*b)
		firstBound := 8*n*b + 8*(1+6*N+2*N*N) + 4*(3+5*N)
		bound := uint64(4 << 10)
		if native.Compiled != "openblas" {
			bound = 128 << 10
		}
		t.Logf("%s: the first time %d bytes (bound %d), again at most %d a block of %d (bound %d, %s)",
			name(opts), first, firstBound, most, b, bound, native.Compiled)
		if first > firstBound {
			t.Errorf("%s: the blocks allocate %d bytes the first time; want ≤ %d", name(opts), first, firstBound)
		}
		if most > bound {
			t.Errorf("%s: a block of %d allocates up to %d bytes again; want ≤ %d", name(opts), b, most, bound)
		}
		// With OpenBLAS a block step allocates nothing at all once sized, on two threads
		// too: not even the headers of its kernel block, border and rows (viewOf).
		if native.Compiled == "openblas" {
			rows := x.Slice(start, start+b, 0, 784)
			step := func() {
				md.CopyFrom(&base)
				if err := md.AddBatch(rows); err != nil {
					t.Fatal(err)
				}
			}
			if got := allocs.Count(2, 2, 3, step); got != 0 {
				t.Errorf("%s: %d allocations in 3 block steps with two threads; want 0", name(opts), got)
			}
		}
	}
}
