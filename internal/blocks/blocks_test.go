package blocks

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
)

// TestRows: the blocks cover the rows in order, Size at a time, with the rows' values
// exactly — viewed from a *mat.Dense, copied from any other mat.Matrix — and an error
// from f stops the loop and is returned.
func TestRows(t *testing.T) {
	const rows, d = 2*Size + 17, 3
	rng := rand.New(rand.NewPCG(1, 2))
	X := synth.Normal(rows, d, rng)
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

// TestScores: the scores f writes block by block end up in dst, resized when empty;
// an error in a later block is returned and leaves dst as it was.
func TestScores(t *testing.T) {
	const rows, d = Size + 5, 2
	X := mat.NewDense(rows, d, nil)
	for i := range rows {
		X.Set(i, 0, float64(i))
		X.Set(i, 1, float64(2*i))
	}
	sum := func(lo, hi int, xb, out *mat.Dense) error {
		for i := range hi - lo {
			out.Set(i, 0, xb.At(i, 0)+xb.At(i, 1))
		}
		return nil
	}
	var dst mat.Dense
	if err := Scores(&dst, X, d, 1, sum); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if dst.At(i, 0) != float64(3*i) {
			t.Fatalf("score %d = %v, want %d", i, dst.At(i, 0), 3*i)
		}
	}
	kept := mat.NewDense(rows, 1, nil)
	kept.Set(rows-1, 0, -1)
	stop := errors.New("stop")
	err := Scores(kept, X, d, 1, func(lo, hi int, xb, out *mat.Dense) error {
		if lo > 0 {
			return stop
		}
		return sum(lo, hi, xb, out)
	})
	if !errors.Is(err, stop) || kept.At(0, 0) != 0 || kept.At(rows-1, 0) != -1 {
		t.Errorf("an error in the second block: %v, dst changed to %v … %v", err, kept.At(0, 0), kept.At(rows-1, 0))
	}
}

// TestKernelScores: f receives the kernel values of the block's rows against the
// points, to 1e-12 (RBF values are at most 1, and the dgemm form of ‖x − y‖² loses a
// few ε·‖x‖²), for every row once.
func TestKernelScores(t *testing.T) {
	const rows, n, d = Size + 40, 30, 4
	rng := rand.New(rand.NewPCG(3, 4))
	X, Y := synth.Normal(rows, d, rng), synth.Normal(n, d, rng)
	k := kernel.RBF{Sigma: 1.5}
	var dst mat.Dense
	err := KernelScores(&dst, kernel.NewCross(k, Y), X, 1, func(lo, hi int, kb, out *mat.Dense) error {
		for i := lo; i < hi; i++ {
			for j := range n {
				if want := k.Eval(X.RawRowView(i), Y.RawRowView(j)); math.Abs(kb.At(i-lo, j)-want) > 1e-12 {
					t.Fatalf("K(x%d, y%d) = %v, want %v", i, j, kb.At(i-lo, j), want)
				}
			}
			out.Set(i-lo, 0, 1)
		}
		return nil
	})
	if err != nil || mat.Sum(&dst) != rows {
		t.Errorf("%v; %v rows scored of %d", err, mat.Sum(&dst), rows)
	}
}

// TestKernelProjections: f receives the products of the block's rows' kernel values with
// the rows of P, to 1e-12 (RBF values are at most 1, |P| < 5, 30 terms), for every row
// once in order, and the first row of the block whose kernel values are not finite
// (a point with a NaN coordinate, counted from the block's start; −1 in the others).
// dst is written only when every block succeeded.
func TestKernelProjections(t *testing.T) {
	const rows, n, d, k = Size + 40, 30, 4, 3
	rng := rand.New(rand.NewPCG(5, 6))
	X, Y := synth.Normal(rows, d, rng), synth.Normal(n, d, rng)
	P := synth.Normal(k, n, rng)
	kern := kernel.RBF{Sigma: 1.5}
	c := kernel.NewCross(kern, Y)
	var dst mat.Dense
	next := 0
	err := KernelProjections(&dst, c, X, P, func(lo, hi, bad int, out *mat.Dense) error {
		if lo != next || bad != -1 {
			t.Fatalf("block %d…%d after row %d, bad row %d", lo, hi, next, bad)
		}
		next = hi
		for i := lo; i < hi; i++ {
			for q := range k {
				var want float64
				for j := range n {
					want += kern.Eval(X.RawRowView(i), Y.RawRowView(j)) * P.At(q, j)
				}
				if got := out.At(i-lo, q); math.Abs(got-want) > 1e-12 {
					t.Fatalf("product (%d, %d) = %v, want %v", i, q, got, want)
				}
			}
		}
		return nil
	})
	if err != nil || next != rows {
		t.Fatalf("%v; rows up to %d of %d", err, next, rows)
	}
	if r, cc := dst.Dims(); r != rows || cc != k {
		t.Fatalf("dst is %d×%d, want %d×%d", r, cc, rows, k)
	}
	X.Set(Size+7, 2, math.NaN())
	X.Set(Size+9, 1, math.NaN())
	stop := errors.New("stop")
	keep := mat.NewDense(rows, k, nil)
	err = KernelProjections(keep, c, X, P, func(lo, hi, bad int, out *mat.Dense) error {
		want := -1
		if lo == Size {
			want = 7
		}
		if bad != want {
			t.Fatalf("block at %d: bad row %d, want %d", lo, bad, want)
		}
		if bad >= 0 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || mat.Sum(keep) != 0 {
		t.Fatalf("%v; dst written on error", err)
	}
}

// TestNonFinite: the error names the first kernel value that is not finite, the point
// and what the stored points are; with finite kernel values, the scores' overflow; it
// TestKernelRows: blocks of kernel values stay within KernelBytes against many points —
// Size rows up to 32,768 points, fewer beyond, never under MinRows — and
// KernelProjections and KernelScores take blocks of that many rows against 50,000 points
// (d = 1: cheap), each block's products those of Eval to 1e-9 (50,000 terms of at most
// 1 times |P| < 5).
func TestKernelRows(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{1, Size}, {1000, Size}, {32768, Size}, {32769, 511}, {70000, 239}, {1 << 20, 16}, {1 << 30, MinRows},
	} {
		if got := KernelRows(c.n); got != c.want || got*c.n*8 > KernelBytes && got > MinRows {
			t.Errorf("KernelRows(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	const rows, n, k = 300, 50000, 2
	rng := rand.New(rand.NewPCG(7, 8))
	X, Y := synth.Normal(rows, 1, rng), synth.Normal(n, 1, rng)
	P := synth.Normal(k, n, rng)
	kern := kernel.RBF{Sigma: 1.5}
	c := kernel.NewCross(kern, Y)
	size := KernelRows(n)
	check := func(what string, lo, hi int, out *mat.Dense) {
		if hi-lo != min(size, rows-lo) {
			t.Fatalf("%s: block %d…%d, want %d rows", what, lo, hi, size)
		}
		for _, i := range []int{lo, hi - 1} {
			for q := range k {
				var want float64
				for j := range n {
					want += kern.Eval(X.RawRowView(i), Y.RawRowView(j)) * P.At(q, j)
				}
				if got := out.At(i-lo, q); math.Abs(got-want) > 1e-9 {
					t.Fatalf("%s: product (%d, %d) = %v, want %v", what, i, q, got, want)
				}
			}
		}
	}
	var dst mat.Dense
	if err := KernelProjections(&dst, c, X, P, func(lo, hi, bad int, out *mat.Dense) error {
		check("KernelProjections", lo, hi, out)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var scores mat.Dense
	if err := KernelScores(&scores, c, X, k, func(lo, hi int, kb, out *mat.Dense) error {
		if r, cc := kb.Dims(); r != hi-lo || cc != n {
			t.Fatalf("KernelScores: block %d×%d for rows %d…%d", r, cc, lo, hi)
		}
		out.Mul(kb, P.T())
		check("KernelScores", lo, hi, out)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// wraps the error given.
func TestNonFinite(t *testing.T) {
	errKind := errors.New("non-finite")
	Y := mat.NewDense(2, 1, []float64{1, 2})
	c := kernel.NewCross(kernel.Polynomial{Degree: 3, Gamma: 1}, Y)
	X := mat.NewDense(2, 1, []float64{1, 1e110})
	err := NonFinite(errKind, c, X, 1, "landmark")
	if !errors.Is(err, errKind) || !strings.Contains(err.Error(), "kernel value of point 1 with landmark 0 is +Inf") {
		t.Errorf("huge point: %v", err)
	}
	err = NonFinite(errKind, c, X, 0, "landmark")
	if !errors.Is(err, errKind) || !strings.Contains(err.Error(), "the scores of point 0 overflow") {
		t.Errorf("finite kernel values: %v", err)
	}
}
