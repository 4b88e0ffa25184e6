package native_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/allocs"
	"github.com/ikpca/ikpca/native"
)

// The products of a tall matrix that Gemm, Gemv and Ger split into chunks of 512 rows
// on several goroutines (docs/design.md, "Who owns the cores"): 2,051 and 5,000 rows,
// not multiples of a chunk, so that the last chunk is short.
var splitHeights = []int{2051, 5000}

// tallOperands returns op(A) (m×k) and op(B) (k×n) stored for tA and tB, with strides
// wider than their columns.
func tallOperands(rnd *rand.Rand, tA, tB blas.Transpose, m, n, k int) (a, b blas64.General) {
	if tA == blas.NoTrans {
		a = randGeneral(rnd, m, k, k+3)
	} else {
		a = randGeneral(rnd, k, m, m+1)
	}
	if tB == blas.NoTrans {
		b = randGeneral(rnd, k, n, n+2)
	} else {
		b = randGeneral(rnd, n, k, k+5)
	}
	return a, b
}

// splitScales are the (alpha, beta) of the split products' tests: beta = 0, which BLAS
// does not read C for, and others.
var splitScales = [][2]float64{{1, 0}, {-2, 1}, {0.5, -0.25}}

// splitOutput returns a strided rows×cols C of stride stride for a product of the given
// beta — full of NaN for beta = 0, which the product must not read — and its copy for
// the expected result, its entries zeroed for beta = 0 (the padding left NaN).
func splitOutput(rnd *rand.Rand, rows, cols, stride int, beta float64) (c, want blas64.General) {
	c = randGeneral(rnd, rows, cols, stride)
	if beta == 0 {
		for i := range c.Data {
			c.Data[i] = math.NaN()
		}
	}
	want = cloneGeneral(c)
	if beta == 0 {
		for i := range rows {
			clear(want.Data[i*stride : i*stride+cols])
		}
	}
	return c, want
}

// TestGemmSplit: a product Gemm splits — C = A·op(B) with C's rows many, C = Aᵀ·op(B)
// with a long inner dimension — equals the plain sums (naiveGemm) to rounding, for
// every transposition, alpha and beta (beta = 0 with C full of NaN, which BLAS does not
// read), C strided. The tolerance: each entry is a sum of k ≤ 5000 products of terms in
// [−1, 1], computed by the chunks' dgemms and the sum of their parts in another order
// than the plain loop; both are within γ_k·Σ|aᵢbᵢ| ≤ k²·ε ≈ 3e-9 absolutely of the exact
// value in the worst case, and about √k·ε·√k in practice: 1e-11 leaves a wide margin on
// the observed 1e-14.
func TestGemmSplit(t *testing.T) {
	rnd := rand.New(rand.NewPCG(91, 92))
	for _, tall := range splitHeights {
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				m, n, k := tall, 37, 64 // C tall: split by rows
				if tA == blas.Trans {
					m, n, k = 50, 64, tall // a long inner dimension: split into parts
				}
				a, b := tallOperands(rnd, tA, tB, m, n, k)
				for _, ab := range splitScales {
					alpha, beta := ab[0], ab[1]
					c, want := splitOutput(rnd, m, n, n+4, beta)
					naiveGemm(tA, tB, alpha, a, b, beta, want)
					native.Gemm(tA, tB, alpha, a, b, beta, c)
					if !closeTo(c.Data, want.Data, 1e-11) {
						t.Errorf("%d rows, tA %c, tB %c, alpha %g, beta %g: the split product differs", tall, tA, tB, alpha, beta)
					}
				}
			}
		}
	}
}

// TestGemvGerSplit: Gemv and Ger on a tall matrix, which they split, equal the plain
// loops to rounding (the tolerance of TestGemmSplit), Gemv with beta = 0 over a y of
// NaN.
func TestGemvGerSplit(t *testing.T) {
	rnd := rand.New(rand.NewPCG(93, 94))
	for _, m := range splitHeights {
		const n = 64
		a := randGeneral(rnd, m, n, n+3)
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			xn, yn := n, m
			if tr == blas.Trans {
				xn, yn = m, n
			}
			for _, beta := range []float64{0, 0.5} {
				x, y := randVector(rnd, xn, 1), randVector(rnd, yn, 1)
				if beta == 0 {
					for i := range y.Data {
						y.Data[i] = math.NaN()
					}
				}
				want := make([]float64, yn)
				for i := range yn {
					var s float64
					for l := range xn {
						if tr == blas.NoTrans {
							s += a.Data[i*a.Stride+l] * x.Data[l]
						} else {
							s += a.Data[l*a.Stride+i] * x.Data[l]
						}
					}
					want[i] = -1.5 * s
					if beta != 0 {
						want[i] += beta * y.Data[i]
					}
				}
				native.Gemv(tr, -1.5, a, x, beta, y)
				if !closeTo(y.Data, want, 1e-11) {
					t.Errorf("%d rows, %c, beta %g: Gemv differs", m, tr, beta)
				}
			}
		}
		x, y := randVector(rnd, m, 1), randVector(rnd, n, 1)
		got := cloneGeneral(a)
		native.Ger(0.75, x, y, got)
		want := cloneGeneral(a)
		for i := range m {
			for j := range n {
				want.Data[i*want.Stride+j] += 0.75 * x.Data[i] * y.Data[j]
			}
		}
		if !closeTo(got.Data, want.Data, 1e-14) {
			t.Errorf("%d rows: Ger differs", m)
		}
	}
}

// TestSyrkSplit: Syrk's Gram matrix AᵀA of a tall A, which it splits, equals the plain
// sums on its triangle to rounding (TestGemmSplit's tolerance), upper and lower, for
// several alpha and beta (beta = 0 over a C of NaN, which it must not read), C strided,
// and leaves the other triangle's bits as they were.
func TestSyrkSplit(t *testing.T) {
	rnd := rand.New(rand.NewPCG(99, 100))
	const n = 41
	for _, a := range []blas64.General{randGeneral(rnd, splitHeights[0], n, n+3), randGeneral(rnd, splitHeights[1], n, n)} {
		for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, ab := range splitScales {
				alpha, beta := ab[0], ab[1]
				c, _ := splitOutput(rnd, n, n, n+2, beta)
				before := cloneGeneral(c)
				native.Syrk(blas.Trans, alpha, a, beta, blas64.Symmetric{N: n, Uplo: uplo, Stride: c.Stride, Data: c.Data})
				var got, want []float64
				for i := range n {
					for j := range n {
						at := i*c.Stride + j
						if uplo == blas.Upper && j < i || uplo == blas.Lower && j > i {
							if math.Float64bits(c.Data[at]) != math.Float64bits(before.Data[at]) {
								t.Fatalf("%d rows, %c: C(%d, %d) outside the triangle changed", a.Rows, uplo, i, j)
							}
							continue
						}
						var s float64
						for l := range a.Rows {
							s += a.Data[l*a.Stride+i] * a.Data[l*a.Stride+j]
						}
						w := alpha * s
						if beta != 0 {
							w += beta * before.Data[at]
						}
						got, want = append(got, c.Data[at]), append(want, w)
					}
				}
				if !closeTo(got, want, 1e-11) {
					t.Errorf("%d rows, %c, alpha %g, beta %g: the split Gram matrix differs", a.Rows, uplo, alpha, beta)
				}
			}
		}
	}
}

// TestSplitWorkers: a split product has the same bits on one goroutine as on 2, 3 and
// 8: the chunks do not depend on the number of workers, each chunk is a
// single-threaded call (native.OwnCores), and a reduction adds its parts in their order.
func TestSplitWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rnd := rand.New(rand.NewPCG(95, 96))
	const tall = 7000
	type product struct {
		name string
		run  func() []float64
	}
	a, b := tallOperands(rnd, blas.Trans, blas.NoTrans, 64, 50, tall)
	v, p := tallOperands(rnd, blas.NoTrans, blas.NoTrans, tall, 64, 50)
	x := randVector(rnd, tall, 1)
	products := []product{
		{"Aᵀ·B", func() []float64 {
			c := blas64.General{Rows: 64, Cols: 50, Stride: 50, Data: make([]float64, 64*50)}
			native.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, c)
			return c.Data
		}},
		{"V·P", func() []float64 {
			c := blas64.General{Rows: tall, Cols: 64, Stride: 64, Data: make([]float64, tall*64)}
			native.Gemm(blas.NoTrans, blas.NoTrans, 1, v, p, 0, c)
			return c.Data
		}},
		{"Vᵀx", func() []float64 {
			y := blas64.Vector{N: 50, Inc: 1, Data: make([]float64, 50)}
			native.Gemv(blas.Trans, 1, v, x, 0, y)
			return y.Data
		}},
		{"VᵀV", func() []float64 {
			c := blas64.Symmetric{N: 50, Uplo: blas.Upper, Stride: 50, Data: make([]float64, 50*50)}
			native.Syrk(blas.Trans, 1, v, 0, c)
			return c.Data
		}},
	}
	for _, pr := range products {
		runtime.GOMAXPROCS(1)
		want := pr.run()
		for _, procs := range []int{2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			if got := pr.run(); !slices.Equal(got, want) {
				t.Errorf("%s: GOMAXPROCS %d gives other bits than 1", pr.name, procs)
			}
		}
	}
}

// TestSplitAllocations: a split product allocates nothing once its splitter exists,
// with one thread and with two, with OpenBLAS (gonum's own dgemm allocates for its
// goroutines).
func TestSplitAllocations(t *testing.T) {
	if native.Compiled != "openblas" {
		t.Skip("gonum's dgemm allocates for its goroutines")
	}
	rnd := rand.New(rand.NewPCG(97, 98))
	const tall = 5000
	a, b := tallOperands(rnd, blas.Trans, blas.NoTrans, 64, 50, tall)
	v, p := tallOperands(rnd, blas.NoTrans, blas.NoTrans, tall, 64, 50)
	c := blas64.General{Rows: 64, Cols: 50, Stride: 50, Data: make([]float64, 64*50)}
	w := blas64.General{Rows: tall, Cols: 64, Stride: 64, Data: make([]float64, tall*64)}
	x, y := randVector(rnd, tall, 1), randVector(rnd, 50, 1)
	g := blas64.Symmetric{N: 50, Uplo: blas.Upper, Stride: 50, Data: make([]float64, 50*50)}
	run := func() {
		native.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, c)
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, v, p, 0, w)
		native.Gemv(blas.Trans, 1, v, x, 0, y)
		native.Ger(1, x, y, v)
		native.Syrk(blas.Trans, 1, v, 0, g)
	}
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("split products allocate %v times, want 0", n)
	}
	if n := allocs.Count(2, 2, 5, run); n != 0 {
		t.Errorf("split products allocate %d times in 5 runs with two threads, want 0", n)
	}
}
