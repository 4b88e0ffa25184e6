package kernel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/allocs"
)

// setThresholds sets the parallel thresholds for the duration of a test (or
// benchmark).
func setThresholds(tb testing.TB, work, perWorker, minElements int) {
	w, p, m := parallelWork, workPerWorker, parallelMinElements
	parallelWork, workPerWorker, parallelMinElements = work, perWorker, minElements
	tb.Cleanup(func() {
		parallelWork, workPerWorker, parallelMinElements = w, p, m
	})
}

// forceSerial disables the parallel paths for the duration of a test.
func forceSerial(tb testing.TB) { setThresholds(tb, math.MaxInt, 1, math.MaxInt) }

// forceParallel makes every input large enough for the parallel paths,
// with one element per worker at least, for the duration of a test.
func forceParallel(tb testing.TB) { setThresholds(tb, 1, 1, 1) }

// setProcs sets GOMAXPROCS for the duration of a test.
func setProcs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// view returns an r×c view of a larger random matrix, so that its stride
// exceeds its number of columns.
func view(rng *rand.Rand, r, c int) *mat.Dense {
	big := randDense(rng, r+3, c+5)
	return big.Slice(2, r+2, 1, c+1).(*mat.Dense)
}

// checkColumn compares Column with Eval element by element, bit for bit.
func checkColumn(t *testing.T, k Kernel, X *mat.Dense, x []float64) []float64 {
	t.Helper()
	r, _ := X.Dims()
	dst := make([]float64, r)
	for i := range dst {
		dst[i] = math.NaN()
	}
	Column(dst, k, X, x)
	for i := range r {
		if want := k.Eval(X.RawRowView(i), x); dst[i] != want && !(math.IsNaN(want) && math.IsNaN(dst[i])) {
			t.Fatalf("%v: Column[%d] = %v, Eval = %v", k, i, dst[i], want)
		}
	}
	return dst
}

func TestColumnEqualsEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{1, 3, 4, 10, 123} {
		for _, X := range []*mat.Dense{randDense(rng, 37, d), view(rng, 37, d)} {
			x := randVec(rng, d)
			for _, k := range allKernels() {
				checkColumn(t, k, X, x)
				checkColumn(t, k, X, X.RawRowView(5)) // x aliasing a row
			}
		}
	}
}

// TestColumnParallel forces the parallel path on small inputs and checks
// that the result is bit-for-bit the serial one for any GOMAXPROCS.
func TestColumnParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	X := view(rng, 1001, 10)
	x := randVec(rng, 10)
	for _, k := range allKernels() {
		forceSerial(t)
		ref := checkColumn(t, k, X, x)
		forceParallel(t)
		for _, p := range []int{1, 2, 3, 4, 7, 16} {
			setProcs(t, p)
			got := checkColumn(t, k, X, x)
			if !slices.Equal(got, ref) {
				t.Fatalf("%v: GOMAXPROCS=%d changes the column", k, p)
			}
		}
	}
	// The default thresholds with many rows (parallel when GOMAXPROCS > 1).
	setThresholds(t, 128<<10, 64<<10, 256)
	Xl := randDense(rng, 10000, 3)
	xl := randVec(rng, 3)
	for _, p := range []int{1, 2, 5} {
		setProcs(t, p)
		checkColumn(t, RBF{Sigma: 0.5}, Xl, xl)
	}
}

func TestColumnNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	X := randDense(rng, 500, 10)
	x := randVec(rng, 10)
	dst := make([]float64, 500)
	for _, k := range append(builtins(), Func{Name: "min", F: minKernel}) {
		if n := testing.AllocsPerRun(20, func() { Column(dst, k, X, x) }); n != 0 {
			t.Errorf("%v: serial Column allocates %v times", k, n)
		}
	}
	// In parallel, on the shared workers: not once in 50 columns with two threads.
	forceParallel(t)
	for _, k := range builtins() {
		if n := allocs.Count(2, 5, 50, func() { Column(dst, k, X, x) }); n != 0 {
			t.Errorf("%v: 50 parallel Columns allocate %d times", k, n)
		}
	}
}

func TestColumnEmptyAndPanics(t *testing.T) {
	Column(nil, RBF{Sigma: 1}, &mat.Dense{}, []float64{1, 2}) // no-op
	X := mat.NewDense(3, 2, nil)
	cases := map[string]func(){
		"short dst":   func() { Column(make([]float64, 2), Linear{}, X, make([]float64, 2)) },
		"long dst":    func() { Column(make([]float64, 4), Linear{}, X, make([]float64, 2)) },
		"short x":     func() { Column(make([]float64, 3), Linear{}, X, make([]float64, 1)) },
		"long x":      func() { Column(make([]float64, 3), Linear{}, X, make([]float64, 3)) },
		"nil kernel":  func() { Column(make([]float64, 3), nil, X, make([]float64, 2)) },
		"nil pointer": func() { Column(make([]float64, 3), (*RBF)(nil), X, make([]float64, 2)) },
		"empty X":     func() { Column(make([]float64, 1), Linear{}, &mat.Dense{}, nil) },
	}
	mustPanic(t, cases)
}

// mustPanic fails for each of the cases that does not panic.
func mustPanic(t *testing.T, cases map[string]func()) {
	t.Helper()
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// checkMatrix compares Matrix with Eval entry by entry: the diagonal bit for bit, the
// other entries within blockBound (bit for bit for the kernels evaluated entry by
// entry).
func checkMatrix(t *testing.T, k Kernel, X *mat.Dense) *mat.SymDense {
	t.Helper()
	K := Matrix(k, X)
	n, _ := X.Dims()
	if K.SymmetricDim() != n {
		t.Fatalf("%v: Matrix is %d×%d, want %d", k, K.SymmetricDim(), K.SymmetricDim(), n)
	}
	for i := range n {
		if got, want := K.At(i, i), k.Eval(X.RawRowView(i), X.RawRowView(i)); got != want {
			t.Fatalf("%v: K[%d,%d] = %v, want k(x,x) = %v", k, i, i, got, want)
		}
		for j := i; j < n; j++ {
			checkEntry(t, k, X.RawRowView(j), X.RawRowView(i), K.At(i, j), "Matrix")
			if K.At(j, i) != K.At(i, j) {
				t.Fatalf("%v: K not symmetric at (%d,%d)", k, i, j)
			}
		}
	}
	return K
}

func TestMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, X := range []*mat.Dense{randDense(rng, 1, 4), randDense(rng, 23, 7), view(rng, 40, 3)} {
		for _, k := range allKernels() {
			K := checkMatrix(t, k, X)
			if _, ok := deref(k).(RBF); ok {
				for i := range K.SymmetricDim() {
					if K.At(i, i) != 1 {
						t.Fatalf("rbf: diagonal %v, want exactly 1", K.At(i, i))
					}
				}
			}
		}
	}
	if K := Matrix(Linear{}, &mat.Dense{}); !K.IsEmpty() {
		t.Error("Matrix of an empty X should be empty")
	}
}

func TestMatrixParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	X := view(rng, 150, 6)
	for _, k := range allKernels() {
		forceSerial(t)
		ref := checkMatrix(t, k, X)
		forceParallel(t)
		for _, p := range []int{1, 2, 3, 8} {
			setProcs(t, p)
			got := checkMatrix(t, k, X)
			if !mat.Equal(got, ref) {
				t.Fatalf("%v: GOMAXPROCS=%d changes the matrix", k, p)
			}
		}
	}
}

func TestMatrixPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Matrix with a nil kernel did not panic")
		}
	}()
	Matrix(nil, mat.NewDense(2, 2, nil))
}

// TestMatrixTo checks that a Cross's MatrixTo is Matrix of its points bit for bit, for
// every kind of kernel, with points that are not finite, a strided view, serially and in
// parallel, into an empty dst and into one of the right size; and that it panics on a
// dst of another size.
func TestMatrixTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	nan := randDense(rng, 9, 5)
	nan.Set(2, 1, math.NaN())
	nan.Set(6, 4, math.Inf(-1))
	for _, parallel := range []bool{false, true} {
		if parallel {
			forceParallel(t)
		} else {
			forceSerial(t)
		}
		for _, X := range []*mat.Dense{randDense(rng, 1, 4), randDense(rng, 23, 7), view(rng, 40, 3), nan} {
			for _, k := range allKernels() {
				want := Matrix(k, X)
				c := NewCross(k, X)
				var got mat.SymDense
				c.MatrixTo(&got)
				c.MatrixTo(&got) // into a dst of the right size
				n := want.SymmetricDim()
				for i := range n {
					for j := i; j < n; j++ {
						if math.Float64bits(got.At(i, j)) != math.Float64bits(want.At(i, j)) {
							t.Fatalf("%v parallel=%v (%d,%d): MatrixTo %v, Matrix %v", k, parallel, i, j, got.At(i, j), want.At(i, j))
						}
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MatrixTo into a dst of another size did not panic")
		}
	}()
	NewCross(RBF{Sigma: 1}, randDense(rng, 3, 2)).MatrixTo(mat.NewSymDense(2, nil))
}

// TestMatrixToNoAlloc checks that MatrixTo of an RBF, Polynomial, Linear, Sigmoid and
// Cosine kernel into a dst of the right size allocates nothing, serially.
func TestMatrixToNoAlloc(t *testing.T) {
	forceSerial(t)
	rng := rand.New(rand.NewPCG(17, 18))
	X := randDense(rng, 16, 10)
	for _, k := range []Kernel{RBF{Sigma: 1}, Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, Linear{}, Sigmoid{Gamma: 0.5, Coef0: -1}, Cosine{}} {
		c := NewCross(k, X)
		dst := mat.NewSymDense(16, nil)
		if n := testing.AllocsPerRun(10, func() { c.MatrixTo(dst) }); n != 0 {
			t.Errorf("%v: MatrixTo allocates %v times", k, n)
		}
	}
}
