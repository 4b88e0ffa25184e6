package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/allocs"
	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/native"
)

// randVectors returns k×m vectors of coefficients for ProjectTo, normal entries, one
// row all zeros when k > 2 (a component with a zero eigenvalue).
func randVectors(rng *rand.Rand, k, m int) *mat.Dense {
	P := mat.NewDense(k, m, nil)
	for q := range k {
		if k > 2 && q == 1 {
			continue
		}
		for j := range m {
			P.Set(q, j, rng.NormFloat64())
		}
	}
	return P
}

// checkProject runs ProjectTo and compares it with the element path, the products of
// Eval's values with P. An entry may differ by the kernel values' own bounds
// (blockBound) weighted by |P|, plus the rounding of a sum of m products, at most
// (m+2)·ε·Σⱼ|k(x, yⱼ)·P[q][j]| whichever the order (the bound of a dot product,
// doubled: the element path's sum rounds too). A row with a kernel value that is not
// finite must have no finite product, and the first such row must be what ProjectTo
// returns. It returns the products.
func checkProject(t *testing.T, k Kernel, X, Y, P *mat.Dense, work *BlockWork) *mat.Dense {
	t.Helper()
	c := NewCross(k, Y)
	var dst mat.Dense
	bad := c.ProjectTo(&dst, X, P, work)
	r, _ := X.Dims()
	m, _ := Y.Dims()
	kq, _ := P.Dims()
	if rr, cc := dst.Dims(); rr != r || cc != kq {
		t.Fatalf("%v: products are %d×%d, want %d×%d", k, rr, cc, r, kq)
	}
	first := -1
	kx := make([]float64, m)
	for i := range r {
		x := X.RawRowView(i)
		finiteRow := true
		for j := range m {
			kx[j] = k.Eval(x, Y.RawRowView(j))
			if math.IsNaN(kx[j]) || math.IsInf(kx[j], 0) {
				finiteRow = false
			}
		}
		if !finiteRow {
			if first < 0 {
				first = i
			}
			for q := range kq {
				if v := dst.At(i, q); !math.IsNaN(v) && !math.IsInf(v, 0) {
					t.Fatalf("%v: row %d has a kernel value that is not finite, but product %d is %v", k, i, q, v)
				}
			}
			continue
		}
		for q := range kq {
			var want, size, slack float64
			for j := range m {
				p := P.At(q, j)
				want += kx[j] * p
				size += math.Abs(kx[j] * p)
				_, b := blockBound(k, x, Y.RawRowView(j))
				if math.IsNaN(b) { // an infinite exponent times a zero value: the value is 0
					b = 0x1p-1022
				}
				slack += b * math.Abs(p)
			}
			bound := slack + float64(2*m+4)*eps*size
			if got := dst.At(i, q); got != want && !(math.Abs(got-want) <= bound) {
				t.Fatalf("%v: product (%d,%d) is %v, element path %v (|Δ| = %.3g, bound %.3g)",
					k, i, q, got, want, math.Abs(got-want), bound)
			}
		}
	}
	if bad != first {
		t.Fatalf("%v: ProjectTo reports row %d as the first with a kernel value not finite, want %d", k, bad, first)
	}
	return &dst
}

// TestProject compares ProjectTo with the element path for every kind of kernel: one
// point and many, serial and parallel rows, numbers of points that are and are not
// multiples of four (the vectorised RBF rows' tail), one vector, six, and 33 (beyond
// the fused products' 32 accumulators), strided views.
func TestProject(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	for _, parallel := range []bool{false, true} {
		if parallel {
			forceParallel(t)
		} else {
			forceSerial(t)
		}
		for _, m := range []int{1, 7, 64} {
			Y := view(rng, m, 5)
			for _, rows := range []int{1, 5, 37} {
				X := view(rng, rows, 5)
				for _, kq := range []int{1, 6, 33} {
					P := randVectors(rng, kq, m)
					for _, k := range allKernels() {
						checkProject(t, k, X, Y, P, nil)
					}
				}
			}
		}
	}
}

// TestProjectCancellation: near-duplicate points far from the origin, the entries the
// RBF block evaluates directly (marked by rbfrow.Finish, then projected by dgemv), at
// distances from 1e-8 to 1e3 relative to the norm, d = 10 and 123, kernels given by σ
// and by γ.
func TestProjectCancellation(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	for _, d := range []int{10, 123} {
		for _, offset := range []float64{0, 1e4} {
			X, Y := cancellationPoints(rng, 6, d, offset)
			P := randVectors(rng, 6, 6)
			for _, k := range cancellationKernels() {
				checkProject(t, k, X, Y, P, nil)
			}
		}
	}
}

// TestProjectNonFinite: a point with a NaN or infinite coordinate, a stored point with
// one, a point whose squared norm overflows (the RBF's fused path declines it), tiny
// points, and bandwidths whose 2σ² overflows or underflows or whose γ is subnormal or
// huge: products as the element
// path's, and the first row with a kernel value not finite reported.
func TestProjectNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(105, 106))
	P := randVectors(rng, 3, 9)
	X, Y := randDense(rng, 7, 5), randDense(rng, 9, 5)
	X.Set(4, 1, math.NaN())
	X.Set(5, 0, math.Inf(1))
	for _, k := range allKernels() {
		checkProject(t, k, X, Y, P, nil)
	}
	Y.Set(6, 2, math.Inf(-1))
	for _, k := range allKernels() {
		checkProject(t, k, X, Y, P, nil)
	}
	for _, scale := range extremeScales {
		X, Y := extremePoints(rng, scale, 9)
		for _, k := range extremeKernels(scale) {
			checkProject(t, k, X, Y, P, nil)
		}
	}
	// A polynomial kernel that overflows in row 3 only.
	X = randDense(rng, 6, 5)
	for l := range 5 {
		X.Set(3, l, 1e110)
	}
	checkProject(t, Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, X, Y.Slice(0, 6, 0, 5).(*mat.Dense), randVectors(rng, 2, 6), nil)
}

// TestProjectParallel checks that the products do not depend on GOMAXPROCS or on the
// split between goroutines: each row is computed by the same code.
func TestProjectParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(107, 108))
	X, Y := view(rng, 130, 6), randDense(rng, 70, 6)
	P := randVectors(rng, 6, 70)
	for _, k := range allKernels() {
		forceSerial(t)
		ref := checkProject(t, k, X, Y, P, nil)
		forceParallel(t)
		for _, p := range []int{1, 2, 3, 8} {
			setProcs(t, p)
			if got := checkProject(t, k, X, Y, P, nil); !mat.Equal(got, ref) {
				t.Fatalf("%v: GOMAXPROCS=%d changes the products", k, p)
			}
		}
	}
}

// TestProjectNoAlloc checks that ProjectTo with a BlockWork that has served a block as
// large allocates nothing: serially for every kernel, and in parallel for RBF (the
// fused rows run on internal/parallel's shared workers; the other kernels' dgemm in
// the pure-Go build starts goroutines, which allocate).
func TestProjectNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(109, 110))
	X, Y := randDense(rng, 16, 10), randDense(rng, 100, 10)
	P := randVectors(rng, 6, 100)
	dst := mat.NewDense(16, 6, nil)
	forceSerial(t)
	for _, k := range allKernels() {
		c := NewCross(k, Y)
		var work BlockWork
		c.ProjectTo(dst, X, P, &work)
		if n := testing.AllocsPerRun(10, func() { c.ProjectTo(dst, X, P, &work) }); n != 0 {
			t.Errorf("%v: ProjectTo allocates %v times", k, n)
		}
	}
	forceParallel(t)
	X = randDense(rng, 64, 10)
	dst = mat.NewDense(64, 6, nil)
	c := NewCross(RBF{Sigma: 0.5}, Y)
	var work BlockWork
	if n := allocs.Count(2, 5, 20, func() { c.ProjectTo(dst, X, P, &work) }); n != 0 {
		t.Errorf("20 parallel RBF projections allocate %d times (%s)", n, native.Compiled)
	}
}

// TestProjectPanics checks the programming errors ProjectTo rejects.
func TestProjectPanics(t *testing.T) {
	X, Y := mat.NewDense(3, 2, nil), mat.NewDense(4, 2, nil)
	P := mat.NewDense(2, 4, nil)
	c := NewCross(RBF{Sigma: 1}, Y)
	mustPanic(t, map[string]func(){
		"wrong dst":  func() { c.ProjectTo(mat.NewDense(3, 3, nil), X, P, nil) },
		"wrong X":    func() { c.ProjectTo(&mat.Dense{}, mat.NewDense(3, 3, nil), P, nil) },
		"wrong P":    func() { c.ProjectTo(&mat.Dense{}, X, mat.NewDense(2, 5, nil), nil) },
		"empty X":    func() { c.ProjectTo(&mat.Dense{}, &mat.Dense{}, P, nil) },
		"empty P":    func() { c.ProjectTo(&mat.Dense{}, X, &mat.Dense{}, nil) },
		"zero Cross": func() { new(Cross).ProjectTo(&mat.Dense{}, X, P, nil) },
	})
}

// TestProjectBackends checks OpenBLAS's fused RBF rows (libmvec and the products in one
// pass) and gonum's path against the element path in one process (openblas build
// only), on near-duplicates far from the origin.
func TestProjectBackends(t *testing.T) {
	if native.Compiled == "gonum" {
		t.Skip("one backend compiled in: nothing to compare (the openblas build runs this)")
	}
	rng := rand.New(rand.NewPCG(111, 112))
	X, Y := cancellationPoints(rng, 5, 123, 1e4)
	m, _ := Y.Dims()
	P := randVectors(rng, 6, m)
	for _, k := range builtins() {
		checkProject(t, k, X, Y, P, nil)
		backend.WithGonum(func() { checkProject(t, k, X, Y, P, nil) })
	}
}
