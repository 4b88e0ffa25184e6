package blocks

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// TestRows: the blocks cover the rows in order, Size at a time, with the rows' values
// exactly — viewed from a *mat.Dense, copied from any other mat.Matrix — and an error
// from f stops the loop and is returned.
func TestRows(t *testing.T) {
	const rows, d = 2*Size + 17, 3
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(rows, d, nil)
	for i := range rows {
		for j := range d {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	var Xt mat.Dense
	Xt.CloneFrom(X.T())
	for name, m := range map[string]mat.Matrix{"dense": X, "transposed": Xt.T()} {
		next := 0
		err := Rows(m, d, func(lo, hi int, xb *mat.Dense) error {
			if lo != next || hi-lo != min(Size, rows-lo) {
				t.Fatalf("%s: block %d…%d after row %d", name, lo, hi, next)
			}
			if !mat.Equal(xb, X.Slice(lo, hi, 0, d)) {
				t.Errorf("%s: block %d…%d differs from the rows", name, lo, hi)
			}
			next = hi
			return nil
		})
		if err != nil || next != rows {
			t.Errorf("%s: %v after %d rows of %d", name, err, next, rows)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err := Rows(X, d, func(lo, hi int, xb *mat.Dense) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("an error from f: %v after %d calls", err, calls)
	}
}

// TestKernel: the blocks are the kernel values of the rows against the points, to
// 1e-12: RBF values are at most 1, and the dgemm form of ‖x − y‖² loses a few ε·‖x‖².
func TestKernel(t *testing.T) {
	const rows, n, d = Size + 40, 30, 4
	rng := rand.New(rand.NewPCG(3, 4))
	X, Y := mat.NewDense(rows, d, nil), mat.NewDense(n, d, nil)
	for _, a := range []*mat.Dense{X, Y} {
		r, c := a.Dims()
		for i := range r {
			for j := range c {
				a.Set(i, j, rng.NormFloat64())
			}
		}
	}
	k := kernel.RBF{Sigma: 1.5}
	covered := 0
	err := Kernel(kernel.NewCross(k, Y), X, func(lo, hi int, kb *mat.Dense) error {
		for i := lo; i < hi; i++ {
			for j := range n {
				if want := k.Eval(X.RawRowView(i), Y.RawRowView(j)); math.Abs(kb.At(i-lo, j)-want) > 1e-12 {
					t.Fatalf("K(x%d, y%d) = %v, want %v", i, j, kb.At(i-lo, j), want)
				}
			}
		}
		covered += hi - lo
		return nil
	})
	if err != nil || covered != rows {
		t.Errorf("%v after %d rows of %d", err, covered, rows)
	}
}
