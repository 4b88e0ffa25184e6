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
	x := points(t, "magic", m+1)
	k := rbfMedian(t, x)
	g := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	c := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	gemm := testing.AllocsPerRun(10, func() { native.Gemm(blas.NoTrans, blas.Trans, 1, g, g, 0, c) })
	for _, opts := range allOptions {
		md, err := New(k, x.Slice(0, m, 0, 10), opts)
		if err != nil {
			t.Fatal(err)
		}
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
