package pca

import (
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/allocs"
	"github.com/ikpca/ikpca/native"
)

// TestAddAllocations: in steady state Add, Remove and a window's slide allocate nothing
// of their own — exact, windowed and rank r, one thread and two. With OpenBLAS that
// means zero, every allocation counted; gonum's pure-Go dgemm allocates a few objects
// for its goroutines, so there the bound is what one bare d×d×d dgemm allocates per
// update (a window's slide makes two).
func TestAddAllocations(t *testing.T) {
	X := data.FashionMNISTSample().X // d = 784: the secular phases run on two threads
	_, d := X.Dims()
	const n = 40
	g := blas64.General{Rows: d, Cols: d, Stride: d, Data: make([]float64, d*d)}
	c := blas64.General{Rows: d, Cols: d, Stride: d, Data: make([]float64, d*d)}
	gemm := testing.AllocsPerRun(3, func() { native.Gemm(blas.NoTrans, blas.NoTrans, 1, g, g, 0, c) })
	for _, opts := range []Options{{Components: 5}, {Components: 5, Window: n}, {Components: 5, Rank: 20}} {
		m := mustFit(t, X.Slice(0, n, 0, d), opts)
		rows := []int{n, n + 1, n + 2, n + 3}
		step := 0
		next := func() {
			x := X.RawRowView(rows[step%len(rows)])
			if opts.Window > 0 || step%2 == 0 {
				if err := m.Add(x); err != nil {
					t.Fatal(err)
				}
			} else if err := m.Remove(X.RawRowView(rows[(step-1)%len(rows)])); err != nil {
				t.Fatal(err)
			}
			step++
		}
		for range 4 {
			next() // warm the workspaces and the rollback copy
		}
		single := testing.AllocsPerRun(4, next)
		threads := allocs.Count(2, 2, 4, next)
		if native.Compiled == "openblas" && (single != 0 || threads != 0) {
			t.Errorf("%+v: a step allocates %v times with OpenBLAS, %d in 4 with two threads; want 0", opts, single, threads)
		}
		if single > 2*gemm {
			t.Errorf("%+v: a step allocates %v times; two dgemms %v", opts, single, 2*gemm)
		}
	}
}
