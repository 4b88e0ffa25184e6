package kpca

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// nanAfter is an RBF kernel whose value is NaN for any point whose first coordinate is
// above a threshold: a block step that fails part-way through AddBatch.
type nanAfter struct {
	rbf       kernel.RBF
	threshold float64
}

func (k nanAfter) Eval(x, y []float64) float64 {
	if x[0] > k.threshold || y[0] > k.threshold {
		return math.NaN()
	}
	return k.rbf.Eval(x, y)
}

// TestAddBatchRollback checks that an AddBatch at rank r whose later block fails — a
// kernel value that is not finite, found after earlier blocks were added — leaves the
// model as it was, bit for bit (its encoding), though its txn (scopeAppend) keeps no
// copy of the points.
func TestAddBatchRollback(t *testing.T) {
	x, k := sample(t, "yeast", 400)
	for _, opts := range []Options{{Components: 3, Rank: 6, Block: 16}, {Components: 3, Rank: 6, Block: 1}} {
		md := fitModel(t, k, x.Slice(0, 100, 0, 8), opts)
		before := encode(t, md)
		// Row 250 of x gets a first coordinate above every other: its block fails.
		X := mat.DenseCopyOf(x.Slice(100, 400, 0, 8))
		X.Set(150, 0, 1e6)
		md.kern = nanAfter{k, 1e5}
		err := md.AddBatch(X)
		if !errors.Is(err, ErrNonFinite) {
			t.Fatalf("%+v: AddBatch: %v, want ErrNonFinite", opts, err)
		}
		md.kern = k
		if after := encode(t, md); !bytes.Equal(before, after) {
			t.Errorf("%+v: the model changed after a failed AddBatch", opts)
		}
		if md.Len() != 100 {
			t.Errorf("%+v: %d points after a failed AddBatch, want 100", opts, md.Len())
		}
	}
}

// TestKernelSums: the running sums of a kernel matrix, its rows summed on the
// goroutines from 256 points, are bit for bit those of the rows summed in order, one
// after the other, whatever GOMAXPROCS (-cpu 1,2); and the first value that is not
// finite, in row-major order, is the error, wherever the rows that hold one fall among
// the goroutines' chunks.
func TestKernelSums(t *testing.T) {
	for _, m := range []int{1, 5, 255, 256, 300} {
		K := mat.NewSymDense(m, nil)
		for i := range m {
			for j := i; j < m; j++ {
				K.SetSym(i, j, math.Sin(float64(i*m+j)))
			}
		}
		var want matrixSums
		want.rowSum = make([]float64, m)
		for i := range m {
			var s float64
			for j := range m {
				s += K.At(i, j)
			}
			want.rowSum[i] = s
			want.total += s
			want.self += K.At(i, i)
		}
		got, err := kernelSums(wholeKernel(mat.NewSymDense(m, append([]float64(nil), K.RawSymmetric().Data...))))
		if err != nil {
			t.Fatalf("m = %d: %v", m, err)
		}
		same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
		if !same(got.total, want.total) || !same(got.self, want.self) {
			t.Errorf("m = %d: total %v, self %v; want %v, %v", m, got.total, got.self, want.total, want.self)
		}
		for i := range m {
			if !same(got.rowSum[i], want.rowSum[i]) {
				t.Fatalf("m = %d: row sum %d is %v, want %v", m, i, got.rowSum[i], want.rowSum[i])
			}
		}

		// Values not finite in rows i < j (stored at (i, j)), the last of them first
		// in row-major order: (i, j) before (j, i).
		if m < 3 {
			continue
		}
		bad := mat.NewSymDense(m, append([]float64(nil), K.RawSymmetric().Data...))
		bad.SetSym(m-1, m-2, math.Inf(1)) // rows m−2 and m−1
		bad.SetSym(1, m-1, math.NaN())    // rows 1 and m−1: row 1 is the first
		_, err = kernelSums(wholeKernel(bad))
		if !errors.Is(err, ErrNonFinite) || !bytes.Contains([]byte(err.Error()), []byte("k(x1, x")) || !bytes.HasSuffix([]byte(err.Error()), []byte("= NaN")) {
			t.Errorf("m = %d: %v, want ErrNonFinite naming k(x1, x%d) = NaN", m, err, m-1)
		}
	}
}
