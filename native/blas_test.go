package native_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/native"
)

// closeTo reports whether got and want agree to tol relative to the largest magnitude of
// want (at least 1), a NaN agreeing only with a NaN. The products below sum at most 9 terms of magnitude ≤ 4, so 1e-13
// leaves a margin of about 100 over the rounding of either backend.
func closeTo(got, want []float64, tol float64) bool {
	scale := 1.0
	for _, v := range want {
		if !math.IsNaN(v) {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	for i := range want {
		if math.IsNaN(got[i]) && math.IsNaN(want[i]) {
			continue // a stride's padding, never written
		}
		if !(math.Abs(got[i]-want[i]) <= tol*scale) { // a NaN differs from a number
			return false
		}
	}
	return true
}

func randVector(rnd *rand.Rand, n, inc int) blas64.Vector {
	v := blas64.Vector{N: n, Inc: inc, Data: make([]float64, (n-1)*inc+1)}
	for i := range v.Data {
		v.Data[i] = 2*rnd.Float64() - 1
	}
	return v
}

func cloneVector(v blas64.Vector) blas64.Vector {
	return blas64.Vector{N: v.N, Inc: v.Inc, Data: slices.Clone(v.Data)}
}

func cloneGeneral(g blas64.General) blas64.General {
	return blas64.General{Rows: g.Rows, Cols: g.Cols, Stride: g.Stride, Data: slices.Clone(g.Data)}
}

// TestBLAS checks Gemv, Ger, Symv, Syr and Syrk, with strides and increments other than
// the trivial ones, against gonum's reference BLAS called directly.
func TestBLAS(t *testing.T) {
	rnd := rand.New(rand.NewPCG(12, 6))
	var ref gonumblas.Implementation
	const m, n = 7, 9
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		a := randGeneral(rnd, m, n, n+2)
		xn, yn := n, m
		if tA == blas.Trans {
			xn, yn = m, n
		}
		x, y := randVector(rnd, xn, 2), randVector(rnd, yn, 3)
		want := cloneVector(y)
		ref.Dgemv(tA, m, n, 0.5, a.Data, a.Stride, x.Data, x.Inc, -2, want.Data, want.Inc)
		native.Gemv(tA, 0.5, a, x, -2, y)
		if !closeTo(y.Data, want.Data, 1e-13) {
			t.Errorf("Gemv %c: %v, want %v", tA, y.Data, want.Data)
		}
	}

	a := randGeneral(rnd, m, n, n+1)
	x, y := randVector(rnd, m, 2), randVector(rnd, n, 1)
	want := cloneGeneral(a)
	ref.Dger(m, n, -1.5, x.Data, x.Inc, y.Data, y.Inc, want.Data, want.Stride)
	native.Ger(-1.5, x, y, a)
	if !closeTo(a.Data, want.Data, 1e-13) {
		t.Errorf("Ger: %v, want %v", a.Data, want.Data)
	}

	for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
		s := blas64.Symmetric{N: n, Stride: n + 3, Uplo: uplo, Data: randGeneral(rnd, n, n, n+3).Data}
		x, y := randVector(rnd, n, 2), randVector(rnd, n, 1)
		wantY := cloneVector(y)
		ref.Dsymv(uplo, n, 2, s.Data, s.Stride, x.Data, x.Inc, 0.25, wantY.Data, wantY.Inc)
		native.Symv(2, s, x, 0.25, y)
		if !closeTo(y.Data, wantY.Data, 1e-13) {
			t.Errorf("Symv %c: %v, want %v", uplo, y.Data, wantY.Data)
		}

		wantS := slices.Clone(s.Data)
		ref.Dsyr(uplo, n, -0.5, x.Data, x.Inc, wantS, s.Stride)
		native.Syr(-0.5, x, s)
		if !closeTo(s.Data, wantS, 1e-13) {
			t.Errorf("Syr %c: %v, want %v", uplo, s.Data, wantS)
		}

		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			g := randGeneral(rnd, n, m, m+1) // n×m: A·Aᵀ is n×n
			k := m
			if tr == blas.Trans {
				g = randGeneral(rnd, m, n, n+1) // m×n: Aᵀ·A is n×n
			}
			wantS := slices.Clone(s.Data)
			ref.Dsyrk(uplo, tr, n, k, 1.5, g.Data, g.Stride, 0.5, wantS, s.Stride)
			native.Syrk(tr, 1.5, g, 0.5, s)
			if !closeTo(s.Data, wantS, 1e-13) {
				t.Errorf("Syrk %c %c: %v, want %v", uplo, tr, s.Data, wantS)
			}
		}
	}

	defer func() {
		if recover() == nil {
			t.Error("Syrk with a mismatched C did not panic")
		}
	}()
	native.Syrk(blas.NoTrans, 1, randGeneral(rnd, 3, 2, 2), 0, blas64.Symmetric{N: 2, Stride: 2, Uplo: blas.Upper, Data: make([]float64, 4)})
}

// TestGesvd checks the singular values and right singular vectors of matrices with a
// known spectrum, A = U·diag(σ)·Vᵀ with random orthogonal U and V, after a workspace
// query. σ is well separated (ratio 2), so V's rows are determined up to sign to about
// ε·‖A‖/gap; the test compares |V·v_j| and the reconstruction, both sign-free.
func TestGesvd(t *testing.T) {
	rnd := rand.New(rand.NewPCG(12, 7))
	for _, shape := range [][2]int{{6, 9}, {9, 6}, {5, 5}, {1, 4}} {
		m, n := shape[0], shape[1]
		k := min(m, n)
		sigma := make([]float64, k)
		for i := range sigma {
			sigma[i] = math.Pow(2, float64(-i))
		}
		u, v := randOrthogonal(rnd, m), randOrthogonal(rnd, n)
		a := mat.NewDense(m, n, nil)
		for i := range m {
			for j := range n {
				var s float64
				for l := range k {
					s += u.At(i, l) * sigma[l] * v.At(j, l)
				}
				a.Set(i, j, s)
			}
		}
		work := make([]float64, 1)
		raw := mat.DenseCopyOf(a).RawMatrix()
		vt := blas64.General{Rows: k, Cols: n, Stride: n, Data: make([]float64, k*n)}
		s := make([]float64, k)
		native.Gesvd(lapack.SVDNone, lapack.SVDStore, raw, blas64.General{Stride: 1}, vt, s, work, -1)
		work = make([]float64, int(work[0]))
		if !native.Gesvd(lapack.SVDNone, lapack.SVDStore, raw, blas64.General{Stride: 1}, vt, s, work, len(work)) {
			t.Fatalf("%d×%d: no convergence", m, n)
		}
		const tol = 1e-13 // a few hundred ε for a backward-stable SVD of order ≤ 9
		if !closeTo(s, sigma, tol) {
			t.Errorf("%d×%d: σ = %v, want %v", m, n, s, sigma)
		}
		for l := range k {
			var dot float64 // |vᵀ_l v_l| must be 1 for the true right vector
			for j := range n {
				dot += vt.Data[l*n+j] * v.At(j, l)
			}
			if math.Abs(math.Abs(dot)-1) > 1e-12 {
				t.Errorf("%d×%d: right vector %d has |cos| %v with the true one", m, n, l, math.Abs(dot))
			}
		}
	}
}

// TestMul checks Mul against gonum's Dense.Mul on plain, transposed, non-Dense and
// aliased operands, and its shape checks.
func TestMul(t *testing.T) {
	rnd := rand.New(rand.NewPCG(12, 8))
	rndDense := func(r, c int) *mat.Dense {
		d := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				d.Set(i, j, 2*rnd.Float64()-1)
			}
		}
		return d
	}
	a, b := rndDense(4, 3), rndDense(3, 5)
	sym := mat.NewSymDense(3, nil)
	for i := range 3 {
		for j := i; j < 3; j++ {
			sym.SetSym(i, j, rnd.Float64())
		}
	}
	at, bt := rndDense(3, 4), rndDense(5, 3)
	cases := map[string][2]mat.Matrix{
		"plain":      {a, b},
		"transposed": {at.T(), bt.T()},
		"symmetric":  {a, sym},
		"view":       {a.Slice(1, 4, 0, 3), b},
	}
	for name, c := range cases {
		var got, want mat.Dense
		native.Mul(&got, c[0], c[1])
		want.Mul(c[0], c[1])
		if !mat.EqualApprox(&got, &want, 1e-14) {
			t.Errorf("%s: %v, want %v", name, mat.Formatted(&got), mat.Formatted(&want))
		}
	}
	// dst is an operand: computed through a temporary.
	sq := rndDense(4, 4)
	var want mat.Dense
	want.Mul(sq, sq)
	native.Mul(sq, sq, sq)
	if !mat.EqualApprox(sq, &want, 1e-14) {
		t.Errorf("aliased: %v, want %v", mat.Formatted(sq), mat.Formatted(&want))
	}
	for name, f := range map[string]func(){
		"inner dimensions": func() { native.Mul(&mat.Dense{}, a, a) },
		"destination":      func() { native.Mul(mat.NewDense(2, 2, nil), a, b) },
	} {
		func() {
			defer func() {
				if r := recover(); r != mat.ErrShape {
					t.Errorf("%s: recovered %v, want mat.ErrShape", name, r)
				}
			}()
			f()
		}()
	}
}

// TestNoRegistry checks that every routine of the package calls the compiled-in backend
// and never gonum's blas64 and lapack64 registries. In the openblas build nothing may
// reach them at all; in the pure-Go build the eigensolver and the SVDs are gonum's
// LAPACK, which takes its BLAS from the registry (allowed there by RegistryCalls).
func TestNoRegistry(t *testing.T) {
	rnd := rand.New(rand.NewPCG(12, 9))
	const n = 8
	g := randGeneral(rnd, n, n, n)
	sym := randSym(rnd, n)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		x, y := randVector(rnd, n, 1), randVector(rnd, n, 1)
		s := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
		native.Gemm(blas.NoTrans, blas.Trans, 1, g, g, 0, cloneGeneral(g))
		native.Gemv(blas.Trans, 1, g, x, 0, y)
		native.Ger(1, x, y, cloneGeneral(g))
		native.Symv(1, s, x, 0, y)
		native.Syr(1, x, s)
		native.Syrk(blas.Trans, 1, g, 1, s)
		var d mat.Dense
		native.Mul(&d, mat.NewDense(n, n, g.Data), mat.NewDense(n, n, g.Data).T())
		work := make([]float64, 1)
		a := cloneGeneral(g)
		vt := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		sv := make([]float64, n)
		native.Gesvd(lapack.SVDNone, lapack.SVDStore, a, blas64.General{Stride: 1}, vt, sv, work, -1)
		work = make([]float64, int(work[0]))
		native.Gesvd(lapack.SVDNone, lapack.SVDStore, a, blas64.General{Stride: 1}, vt, sv, work, len(work))
		u := make([]float64, n*n)
		if err := native.SVDLeft(n, n, cloneGeneral(g).Data, n, sv, u, n); err != nil {
			t.Fatal(err)
		}
		var vecs mat.Dense
		if _, err := native.EigenSym(nil, &vecs, sym); err != nil {
			t.Fatal(err)
		}
	})
}
