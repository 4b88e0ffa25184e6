package kpca

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
)

// blockRowsResult is what a block step's pass over A gives.
type blockRowsResult struct {
	pass        blockPass
	rowSum, s   []float64
	b           []float64 // the border, centred
	centredPass bool
}

// runBlockRows makes the pass over A (m×b) on procs goroutines, centred (the Helmert
// directions of points m+1…m+b, and row sums k1) or not.
func runBlockRows(a *mat.Dense, k1 []float64, centred bool, procs int) blockRowsResult {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	m, b := a.Dims()
	var j blockRows
	r := blockRowsResult{rowSum: make([]float64, m), s: make([]float64, b), centredPass: centred}
	var alpha, diag []float64
	B := blas64.General{}
	if centred {
		alpha, diag = make([]float64, b), make([]float64, b)
		for i := range b {
			alpha[i] = helmertAlphaOf(m + i)
			diag[i] = -float64(m+i) * alpha[i]
		}
		r.b = make([]float64, m*b)
		B = blas64.General{Rows: m, Cols: b, Stride: b, Data: r.b}
	} else {
		k1 = nil
	}
	r.pass = j.run(a.RawMatrix(), B, alpha, diag, k1, r.rowSum, r.s)
	return r
}

// TestBlockRows: the pass over a block step's kernel block A gives, against sums and
// products formed separately (gonum), the row sums and column sums to (b+1)·ε and
// (m+1)·ε of the sums of magnitudes, the border B = A·F + (K1)·αᵀ to (b+3)·ε of its
// terms' magnitudes (helmertRow), and ‖A‖_F and ‖B‖_F to 1e-14 relative of vec.Norm's;
// the same bits on one goroutine and on three. Its values scaled by 1e200 (their squares
// overflow), by 1e-170 (they underflow to a sum of zero) and a single chunk of huge
// ones among ordinary ones take the scaled route for their chunks and still give the
// norms to 1e-14, and zeros give zero; a NaN
// or an infinity anywhere is reported not finite, 1e300 is finite. 1100 rows: two
// chunks of 512 and a short one.
func TestBlockRows(t *testing.T) {
	const m, b = 1100, 7
	rng := rand.New(rand.NewPCG(3, 5))
	base := mat.NewDense(m, b, nil)
	k1 := make([]float64, m)
	for i := range m {
		for j := range b {
			base.Set(i, j, rng.Float64())
		}
		k1[i] = 100 * rng.Float64()
	}
	scaled := func(f float64, rows ...int) *mat.Dense {
		a := mat.DenseCopyOf(base)
		for i := range m {
			if len(rows) == 0 || i >= rows[0] && i < rows[1] {
				for j := range b {
					a.Set(i, j, f*a.At(i, j))
				}
			}
		}
		return a
	}
	cases := []struct {
		name string
		a    *mat.Dense
	}{
		{"ordinary", base},
		{"×1e200", scaled(1e200)},
		{"×1e-170", scaled(1e-170)},
		{"second chunk ×1e180", scaled(1e180, 512, 1024)},
		{"zeros", scaled(0)},
	}
	for _, c := range cases {
		for _, centred := range []bool{false, true} {
			kk := k1
			if c.name != "ordinary" {
				kk = make([]float64, m) // the rank-one term at the scale of A: none
			}
			got := runBlockRows(c.a, kk, centred, 1)
			checkBlockRows(t, c.name, c.a, kk, got)
			if other := runBlockRows(c.a, kk, centred, 3); !sameBlockRows(got, other) {
				t.Errorf("%s, centred %v: the pass on three goroutines differs from one", c.name, centred)
			}
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, at := range [][2]int{{0, 0}, {600, 3}, {m - 1, b - 1}} {
			a := mat.DenseCopyOf(base)
			a.Set(at[0], at[1], bad)
			if r := runBlockRows(a, k1, true, 2); r.pass.finite {
				t.Errorf("A(%d, %d) = %v: the pass says finite", at[0], at[1], bad)
			}
		}
	}
	a := mat.DenseCopyOf(base)
	a.Set(700, 2, 1e300)
	if r := runBlockRows(a, k1, false, 2); !r.pass.finite || !(math.Abs(r.pass.normA-vec.Norm(a.RawMatrix().Data)) <= 1e-14*r.pass.normA) {
		t.Errorf("A(700, 2) = 1e300: finite %v, ‖A‖ %v, want true and %v", r.pass.finite, r.pass.normA, vec.Norm(a.RawMatrix().Data))
	}
}

// checkBlockRows compares a pass with sums and products formed separately.
func checkBlockRows(t *testing.T, name string, a *mat.Dense, k1 []float64, r blockRowsResult) {
	t.Helper()
	m, b := a.Dims()
	eps := vec.Roundoff
	if !r.pass.finite {
		t.Fatalf("%s: the pass says not finite", name)
	}
	rows, rowsAbs := make([]float64, m), make([]float64, m)
	cols, colsAbs := make([]float64, b), make([]float64, b)
	for i := range m {
		for j := range b {
			v := a.At(i, j)
			rows[i] += v
			rowsAbs[i] += math.Abs(v)
			cols[j] += v
			colsAbs[j] += math.Abs(v)
		}
	}
	for _, c := range []struct {
		what           string
		got, want, abs []float64
		terms          int
	}{{"row sum", r.rowSum, rows, rowsAbs, b}, {"column sum", r.s, cols, colsAbs, m}} {
		for i, w := range c.want {
			if math.Abs(c.got[i]-w) > float64(c.terms+1)*eps*c.abs[i] {
				t.Fatalf("%s: %s %d = %v, want %v", name, c.what, i, c.got[i], w)
			}
		}
	}
	if d := math.Abs(r.pass.normA - vec.Norm(a.RawMatrix().Data)); !(d <= 1e-14*r.pass.normA) {
		t.Errorf("%s: ‖A‖_F = %v, vec.Norm %v", name, r.pass.normA, vec.Norm(a.RawMatrix().Data))
	}
	if !r.centredPass {
		if r.pass.normB != r.pass.normA {
			t.Errorf("%s, uncentred: ‖B‖_F = %v, ‖A‖_F = %v", name, r.pass.normB, r.pass.normA)
		}
		return
	}
	// B = A·F + (K1)·αᵀ, F with αⱼ above the diagonal of column j and −(m+j)·αⱼ on it.
	F := mat.NewDense(b, b, nil)
	alpha := make([]float64, b)
	for j := range b {
		alpha[j] = helmertAlphaOf(m + j)
		for i := range j {
			F.Set(i, j, alpha[j])
		}
		F.Set(j, j, -float64(m+j)*alpha[j])
	}
	var want, mag mat.Dense
	want.Mul(a, F)
	absA, absF := mat.DenseCopyOf(a), mat.DenseCopyOf(F)
	absA.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, absA)
	absF.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, absF)
	mag.Mul(absA, absF)
	for i := range m {
		for j := range b {
			w := want.At(i, j) + k1[i]*alpha[j]
			tol := float64(b+3) * eps * (mag.At(i, j) + math.Abs(k1[i]*alpha[j]))
			if d := math.Abs(r.b[i*b+j] - w); d > tol {
				t.Fatalf("%s: B(%d, %d) = %v, want %v (tolerance %v)", name, i, j, r.b[i*b+j], w, tol)
			}
			want.Set(i, j, w)
		}
	}
	if nb := vec.Norm(want.RawMatrix().Data); !(math.Abs(r.pass.normB-nb) <= 1e-14*nb) {
		t.Errorf("%s: ‖B‖_F = %v, of B formed %v", name, r.pass.normB, nb)
	}
}

// sameBlockRows reports whether two passes gave the same bits.
func sameBlockRows(x, y blockRowsResult) bool {
	return x.pass == y.pass && vec.SameBits(x.rowSum, y.rowSum) && vec.SameBits(x.s, y.s) && vec.SameBits(x.b, y.b)
}
