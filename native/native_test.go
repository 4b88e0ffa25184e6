package native_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// randSym returns a random symmetric n×n matrix with entries in [-1, 1).
func randSym(rnd *rand.Rand, n int) *mat.SymDense {
	s := mat.NewSymDense(max(n, 1), nil)
	if n == 0 {
		return &mat.SymDense{}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 2*rnd.Float64()-1)
		}
	}
	return s
}

// randOrthogonal returns a random n×n orthogonal matrix (QR of a Gaussian matrix).
func randOrthogonal(rnd *rand.Rand, n int) *mat.Dense {
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rnd.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// checkEigen verifies the eigen-decomposition (vals, vecs) of a.
func checkEigen(t *testing.T, a mat.Symmetric, vals []float64, vecs *mat.Dense) {
	t.Helper()
	n := a.SymmetricDim()
	tol := 1e-13 * float64(max(n, 1))
	if len(vals) != n {
		t.Fatalf("len(vals)=%d, want %d", len(vals), n)
	}
	if !sort.Float64sAreSorted(vals) {
		t.Errorf("eigenvalues not ascending: %v", vals)
	}
	if n == 0 {
		return
	}
	normA := mat.Norm(a, 2)
	if normA == 0 {
		normA = 1
	}
	if vecs != nil {
		if r, c := vecs.Dims(); r != n || c != n {
			t.Fatalf("vectors %d×%d, want %d×%d", r, c, n, n)
		}
		var av, vl mat.Dense
		av.Mul(a, vecs)
		vl.Mul(vecs, mat.NewDiagDense(n, append([]float64(nil), vals...)))
		av.Sub(&av, &vl)
		if res := mat.Norm(&av, 2) / mat.Norm(a, 2); mat.Norm(a, 2) != 0 && res > tol {
			t.Errorf("n=%d: residual ‖AV−VΛ‖_F/‖A‖_F = %g > %g", n, res, tol)
		}
		var vtv mat.Dense
		vtv.Mul(vecs.T(), vecs)
		var worst float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				worst = max(worst, math.Abs(vtv.At(i, j)-want))
			}
		}
		if worst > tol {
			t.Errorf("n=%d: ‖VᵀV−I‖_max = %g > %g", n, worst, tol)
		}
	}
	var ref mat.EigenSym
	if !ref.Factorize(a, false) {
		t.Fatalf("mat.EigenSym failed")
	}
	want := ref.Values(nil)
	for i := range want {
		if d := math.Abs(vals[i] - want[i]); d > tol*normA {
			t.Errorf("n=%d: eigenvalue %d = %v, mat.EigenSym %v (diff %g)", n, i, vals[i], want[i], d)
		}
	}
}

var sizes = []int{0, 1, 2, 3, 10, 100, 300}

func TestEigenSym(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, n := range sizes {
		a := randSym(rnd, n)
		orig := append([]float64(nil), a.RawSymmetric().Data...)

		var vecs mat.Dense
		vals, err := native.EigenSym(nil, &vecs, a)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !equalSlices(a.RawSymmetric().Data, orig) {
			t.Errorf("n=%d: EigenSym modified its input", n)
		}
		if n == 0 {
			if len(vals) != 0 || !vecs.IsEmpty() {
				t.Errorf("n=0: got values %v, vectors empty=%v", vals, vecs.IsEmpty())
			}
			continue
		}
		checkEigen(t, a, vals, &vecs)

		// Values only, into a caller-provided slice.
		only := make([]float64, n)
		got, err := native.EigenSym(only, nil, a)
		if err != nil {
			t.Fatalf("n=%d values only: %v", n, err)
		}
		if &got[0] != &only[0] {
			t.Errorf("n=%d: EigenSym did not return the provided values slice", n)
		}
		for i := range got {
			if math.Abs(got[i]-vals[i]) > 1e-13*float64(n)*max(1, math.Abs(vals[n-1]), math.Abs(vals[0])) {
				t.Errorf("n=%d: values-only eigenvalue %d = %v, with vectors %v", n, i, got[i], vals[i])
			}
		}

		// Reuse a correctly sized, non-empty destination.
		dst := mat.NewDense(n, n, nil)
		if _, err := native.EigenSym(nil, dst, a); err != nil {
			t.Fatalf("n=%d reuse: %v", n, err)
		}
		checkEigen(t, a, vals, dst)
	}
}

func TestEigenSymInPlace(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range sizes {
		for _, pad := range []int{0, 3} {
			lda := max(n+pad, 1)
			a := randSym(rnd, n)
			buf := make([]float64, max(0, (n-1)*lda+n))
			const sentinel = 12345.5
			for i := range buf {
				buf[i] = sentinel
			}
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					buf[i*lda+j] = a.At(i, j)
				}
			}
			w := make([]float64, n)
			if err := native.EigenSymInPlace(n, buf, lda, w, true); err != nil {
				t.Fatalf("n=%d lda=%d: %v", n, lda, err)
			}
			for i := 0; i < n; i++ {
				for j := n; j < lda && i*lda+j < len(buf); j++ {
					if buf[i*lda+j] != sentinel {
						t.Fatalf("n=%d lda=%d: padding a[%d] modified", n, lda, i*lda+j)
					}
				}
			}
			if n == 0 {
				continue
			}
			vecs := mat.NewDense(n, n, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					vecs.Set(i, j, buf[i*lda+j])
				}
			}
			checkEigen(t, a, w, vecs)

			// Values only.
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					buf[i*lda+j] = a.At(i, j)
				}
			}
			w2 := make([]float64, n+2)
			if err := native.EigenSymInPlace(n, buf, lda, w2, false); err != nil {
				t.Fatalf("n=%d values only: %v", n, err)
			}
			checkEigen(t, a, w2[:n], nil)
		}
	}
}

func TestEigenSymRepeated(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	const n = 12
	lambda := []float64{-2, -2, -2, 0, 0, 1, 1, 1, 1, 3, 3, 7}
	q := randOrthogonal(rnd, n)
	var m mat.Dense
	m.Mul(q, mat.NewDiagDense(n, append([]float64(nil), lambda...)))
	m.Mul(&m, q.T())
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	var vecs mat.Dense
	vals, err := native.EigenSym(nil, &vecs, a)
	if err != nil {
		t.Fatal(err)
	}
	checkEigen(t, a, vals, &vecs)
	for i := range lambda {
		if math.Abs(vals[i]-lambda[i]) > 1e-13 {
			t.Errorf("eigenvalue %d = %v, want %v", i, vals[i], lambda[i])
		}
	}

	// Identity: every eigenvalue is 1, and V must still be orthonormal.
	id := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		id.SetSym(i, i, 1)
	}
	vals, err = native.EigenSym(nil, &vecs, id)
	if err != nil {
		t.Fatal(err)
	}
	checkEigen(t, id, vals, &vecs)
}

func TestEigenSymOneByOne(t *testing.T) {
	a := []float64{-4.25}
	w := make([]float64, 1)
	if err := native.EigenSymInPlace(1, a, 1, w, true); err != nil {
		t.Fatal(err)
	}
	if w[0] != -4.25 || math.Abs(a[0]) != 1 {
		t.Errorf("1×1: got value %v vector %v, want -4.25 and ±1", w[0], a[0])
	}
	var vecs mat.Dense
	vals, err := native.EigenSym(nil, &vecs, mat.NewSymDense(1, []float64{3}))
	if err != nil {
		t.Fatal(err)
	}
	if vals[0] != 3 || math.Abs(vecs.At(0, 0)) != 1 {
		t.Errorf("1×1 EigenSym: got %v, %v", vals[0], vecs.At(0, 0))
	}
}

func TestEigenSymBadInput(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		const n = 4
		a := make([]float64, n*n)
		for i := range a {
			a[i] = float64(i % 5)
		}
		a[1*n+3] = bad // row 1, column 3: upper triangle
		w := make([]float64, n)
		err := native.EigenSymInPlace(n, a, n, w, true)
		if err == nil {
			t.Errorf("%v in upper triangle: no error", bad)
		} else if msg := err.Error(); !containsAll(msg, "row 1", "column 3") {
			t.Errorf("%v: error %q does not name row 1, column 3", bad, msg)
		}

		// A bad value in the strictly lower triangle is never read.
		a[1*n+3] = 0
		a[3*n+1] = bad
		if err := native.EigenSymInPlace(n, a, n, w, false); err != nil {
			t.Errorf("%v in lower triangle: unexpected error %v", bad, err)
		}

		s := mat.NewSymDense(3, []float64{1, 2, 3, 2, 4, 5, 3, 5, 6})
		s.SetSym(0, 2, bad)
		var vecs mat.Dense
		if _, err := native.EigenSym(nil, &vecs, s); err == nil {
			t.Errorf("EigenSym with %v: no error", bad)
		}
		if !vecs.IsEmpty() {
			t.Errorf("EigenSym with %v: vectors reshaped despite error", bad)
		}
	}

	w := make([]float64, 3)
	a := make([]float64, 9)
	cases := []struct {
		name string
		err  error
	}{
		{"n<0", native.EigenSymInPlace(-1, a, 3, w, true)},
		{"short a", native.EigenSymInPlace(3, a[:8], 3, w, true)},
		{"short a with stride", native.EigenSymInPlace(3, a, 4, w, true)},
		{"small lda", native.EigenSymInPlace(3, a, 2, w, true)},
		{"zero lda", native.EigenSymInPlace(3, a, 0, w, true)},
		{"short w", native.EigenSymInPlace(3, a, 3, w[:2], true)},
		{"nil a", native.EigenSymInPlace(3, nil, 3, w, true)},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if err := native.EigenSymInPlace(0, nil, 0, nil, true); err != nil {
		t.Errorf("n=0: %v", err)
	}

	s := mat.NewSymDense(3, []float64{2, 1, 0, 1, 2, 1, 0, 1, 2})
	if _, err := native.EigenSym(make([]float64, 2), nil, s); err == nil {
		t.Error("short values: no error")
	}
	if _, err := native.EigenSym(make([]float64, 4), nil, s); err == nil {
		t.Error("long values: no error")
	}
	wrong := mat.NewDense(3, 2, nil)
	if _, err := native.EigenSym(nil, wrong, s); err == nil {
		t.Error("3×2 vectors: no error")
	}
	if _, err := native.EigenSym(nil, mat.NewDense(4, 4, nil), s); err == nil {
		t.Error("4×4 vectors: no error")
	}
	if _, err := native.EigenSym(nil, nil, nil); err == nil {
		t.Error("nil matrix: no error")
	}
}

func equalSlices(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		found := false
		for i := 0; i+len(sub) <= len(s); i++ {
			if s[i:i+len(sub)] == sub {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func TestUseActive(t *testing.T) {
	var wg sync.WaitGroup
	infos := make([]native.Info, 8)
	for i := range infos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			infos[i] = native.Use()
		}()
	}
	wg.Wait()
	for i, info := range infos {
		if info.Name != native.Compiled {
			t.Errorf("Use() #%d: Name=%q, want %q", i, info.Name, native.Compiled)
		}
	}
	// Restore the registration made by Use when done, so later tests and
	// examples see the compiled-in backend.
	prev := blas64.Implementation()
	defer blas64.Use(prev)

	info := native.Use()
	if info.Name != native.Compiled || native.Active().Name != native.Compiled {
		t.Errorf("after Use: Use()=%v Active()=%v, want %q", info, native.Active(), native.Compiled)
	}
	if info.Threads < 1 {
		t.Errorf("Threads=%d", info.Threads)
	}
	if info.Config == "" || info.String() == "" {
		t.Errorf("empty Config/String: %#v", info)
	}
	t.Logf("backend: %v", info)

	blas64.Use(gonumblas.Implementation{})
	if got := native.Active(); got.Name != "gonum" {
		t.Errorf("after blas64.Use(gonum): Active().Name=%q", got.Name)
	}
	// Use is idempotent: it does not register again.
	if got := native.Use(); got.Name != "gonum" {
		t.Errorf("second Use re-registered: %v", got)
	}
	blas64.Use(otherBLAS{gonumblas.Implementation{}})
	if got := native.Active(); got.Name != "native_test.otherBLAS" {
		t.Errorf("unknown implementation reported as %q", got.Name)
	}
}

type otherBLAS struct{ gonumblas.Implementation }

func TestInfoString(t *testing.T) {
	cases := []struct {
		info native.Info
		want string
	}{
		{native.Info{Name: "openblas", Threads: 2, Config: "OpenBLAS 0.3.21"}, "openblas (2 threads; OpenBLAS 0.3.21)"},
		{native.Info{Name: "gonum", Threads: 1, Config: "gonum pure Go"}, "gonum (1 thread; gonum pure Go)"},
		{native.Info{Name: "x", Threads: 0}, "x (0 threads)"},
		// The core follows the configuration, so that banners and benchmark records
		// name the kernels that ran and why.
		{native.Info{Name: "openblas", Threads: 2, Config: "OpenBLAS 0.3.21 DYNAMIC_ARCH SkylakeX",
			Core: native.CoreReport{Found: "Prescott", Used: "SkylakeX", Switched: true, Reason: "OpenBLAS 0.3.21 chose a core below this CPU's AVX-512", FoundRate: 7.9, TargetRate: 52}},
			"openblas (2 threads; OpenBLAS 0.3.21 DYNAMIC_ARCH SkylakeX; core Prescott → SkylakeX (OpenBLAS 0.3.21 chose a core below this CPU's AVX-512; dgemm 7.9 → 52 GFLOP/s on one thread))"},
		{native.Info{Name: "openblas", Threads: 1, Config: "OpenBLAS 0.3.21 Haswell",
			Core: native.CoreReport{Found: "Haswell", Used: "Haswell", Reason: "OPENBLAS_CORETYPE=Haswell"}},
			"openblas (1 thread; OpenBLAS 0.3.21 Haswell; core Haswell (OPENBLAS_CORETYPE=Haswell))"},
	}
	for _, c := range cases {
		if got := c.info.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.info, got, c.want)
		}
	}
}

func TestSetThreads(t *testing.T) {
	if err := native.SetThreads(0); err == nil {
		t.Error("SetThreads(0): no error")
	}
	if err := native.SetThreads(-3); err == nil {
		t.Error("SetThreads(-3): no error")
	}
	if native.Compiled != "openblas" {
		if err := native.SetThreads(1); !errors.Is(err, native.ErrFixedThreads) {
			t.Errorf("SetThreads(1) = %v, want ErrFixedThreads", err)
		}
		if native.Threads() < 1 {
			t.Errorf("Threads() = %d", native.Threads())
		}
		return
	}
	prev := native.Threads()
	defer func() {
		if err := native.SetThreads(prev); err != nil {
			t.Errorf("restoring %d threads: %v", prev, err)
		}
	}()
	for _, n := range []int{1, 2} {
		if err := native.SetThreads(n); err != nil {
			t.Fatalf("SetThreads(%d): %v", n, err)
		}
		if got := native.Threads(); got != n {
			t.Errorf("after SetThreads(%d): Threads() = %d", n, got)
		}
	}
	// Requests beyond OpenBLAS's compile-time maximum are clamped and reported.
	if err := native.SetThreads(100000); err == nil {
		t.Error("SetThreads(100000): no error about clamping")
	} else {
		t.Logf("SetThreads(100000): %v", err)
	}
}

func naiveGemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	at := func(g blas64.General, t blas.Transpose, i, j int) float64 {
		if t != blas.NoTrans {
			i, j = j, i
		}
		return g.Data[i*g.Stride+j]
	}
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	for i := 0; i < c.Rows; i++ {
		for j := 0; j < c.Cols; j++ {
			var s float64
			for l := 0; l < k; l++ {
				s += at(a, tA, i, l) * at(b, tB, l, j)
			}
			c.Data[i*c.Stride+j] = alpha*s + beta*c.Data[i*c.Stride+j]
		}
	}
}

func randGeneral(rnd *rand.Rand, r, c, stride int) blas64.General {
	g := blas64.General{Rows: r, Cols: c, Stride: stride, Data: make([]float64, (r-1)*stride+c)}
	for i := range g.Data {
		g.Data[i] = 2*rnd.Float64() - 1
	}
	return g
}

func TestGemm(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	const m, n, k = 7, 5, 3
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			ar, ac := native.Stored(tA, m, k)
			br, bc := native.Stored(tB, k, n)
			a := randGeneral(rnd, ar, ac, ac+1)
			b := randGeneral(rnd, br, bc, bc+2)
			c := randGeneral(rnd, m, n, n+3)
			want := blas64.General{Rows: m, Cols: n, Stride: c.Stride, Data: append([]float64(nil), c.Data...)}
			naiveGemm(tA, tB, 1.5, a, b, -0.5, want)
			native.Gemm(tA, tB, 1.5, a, b, -0.5, c)
			for i := range c.Data {
				if d := math.Abs(c.Data[i] - want.Data[i]); d > 1e-14*float64(k)*4 {
					t.Errorf("tA=%c tB=%c: C.Data[%d]=%v, want %v", tA, tB, i, c.Data[i], want.Data[i])
				}
			}
		}
	}

	defer func() {
		if recover() == nil {
			t.Error("Gemm with mismatched C did not panic")
		}
	}()
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, randGeneral(rnd, 2, 2, 2), randGeneral(rnd, 2, 2, 2), 0, randGeneral(rnd, 3, 2, 2))
}

// Example shows EigenSym on a fixed tridiagonal matrix whose eigenvalues are
// 2−√2, 2 and 2+√2.
func ExampleEigenSym() {
	a := mat.NewSymDense(3, []float64{
		2, 1, 0,
		1, 2, 1,
		0, 1, 2,
	})
	var vecs mat.Dense
	vals, err := native.EigenSym(nil, &vecs, a)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range vals {
		fmt.Printf("%.6f\n", v)
	}
	// The middle eigenvector is ±(1, 0, −1)/√2.
	fmt.Printf("%.6f\n", math.Abs(vecs.At(0, 1)))
	// Output:
	// 0.585786
	// 2.000000
	// 3.414214
	// 0.707107
}

func ExampleUse() {
	info := native.Use()
	fmt.Println(info.Name == native.Compiled, native.Active().Name == native.Compiled)
	// Output: true true
}

// eigenFlops is the nominal flop count of a full symmetric eigendecomposition
// with eigenvectors (Golub & Van Loan's ≈9n³); values only: ≈4n³/3.
func eigenFlops(n int, vectors bool) float64 {
	f := float64(n) * float64(n) * float64(n)
	if vectors {
		return 9 * f
	}
	return 4 * f / 3
}

func BenchmarkEigenSym(b *testing.B) {
	b.Logf("compiled backend: %s, threads %d", native.Compiled, native.Threads())
	for _, n := range []int{100, 500} {
		for _, vectors := range []bool{true, false} {
			name := fmt.Sprintf("n=%d/vectors=%v", n, vectors)
			b.Run(name, func(b *testing.B) {
				rnd := rand.New(rand.NewPCG(uint64(n), 9))
				a := randSym(rnd, n).RawSymmetric().Data
				buf := make([]float64, len(a))
				w := make([]float64, n)
				for b.Loop() {
					copy(buf, a)
					if err := native.EigenSymInPlace(n, buf, n, w, vectors); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(eigenFlops(n, vectors)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	const n = 500
	rnd := rand.New(rand.NewPCG(10, 11))
	a := randGeneral(rnd, n, n, n)
	bb := randGeneral(rnd, n, n, n)
	c := randGeneral(rnd, n, n, n)
	for b.Loop() {
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, a, bb, 0, c)
	}
	b.ReportMetric(2*float64(n)*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
