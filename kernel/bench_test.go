package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/native"
)

// benchKernels are the built-ins with parameters giving values of order 1 on
// points uniform in [0, 1]ᵈ, RBF and Laplacian given by σ and by γ.
func benchKernels(d int) []Kernel {
	return []Kernel{
		RBF{Sigma: float64(d) / 4},
		RBF{Gamma: 8 / float64(d*d)},
		Laplacian{Sigma: float64(d)},
		Laplacian{Gamma: 1 / float64(d)},
		Polynomial{Degree: 3, Gamma: 1 / float64(d), Coef0: 1},
		Linear{},
		Sigmoid{Gamma: 1 / float64(d), Coef0: -0.5},
		Cosine{},
	}
}

// kernelName names a kernel in a benchmark: its Spec's name, with "_gamma" for an RBF
// or Laplacian kernel given by γ.
func kernelName(k Kernel) string {
	s := k.(Specified).Spec()
	if s.Gamma != 0 && s.Name != namePolynomial && s.Name != nameSigmoid {
		return s.Name + "_gamma"
	}
	return s.Name
}

// BenchmarkColumn measures Column on 10 000 rows with the default
// thresholds (parallel over GOMAXPROCS goroutines) and reports the time per
// kernel value.
func BenchmarkColumn(b *testing.B) {
	const rows = 10000
	for _, d := range []int{10, 123} {
		rng := rand.New(rand.NewPCG(1, uint64(d)))
		X := randDense(rng, rows, d)
		x := randVec(rng, d)
		dst := make([]float64, rows)
		for _, k := range benchKernels(d) {
			b.Run(fmt.Sprintf("d=%d/%s", d, kernelName(k)), func(b *testing.B) {
				b.SetBytes(int64(rows * d * 8))
				for b.Loop() {
					Column(dst, k, X, x)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/element")
			})
		}
	}
}

// BenchmarkColumnSerial is BenchmarkColumn on one goroutine.
func BenchmarkColumnSerial(b *testing.B) {
	forceSerial(b)
	BenchmarkColumn(b)
}

// BenchmarkColumnThreshold compares the serial and the parallel path for
// growing numbers of rows, to choose parallelWork: the parallel path splits
// the rows between min(GOMAXPROCS, rows) goroutines.
func BenchmarkColumnThreshold(b *testing.B) {
	for _, d := range []int{2, 10, 123} {
		for _, rows := range []int{256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192} {
			rng := rand.New(rand.NewPCG(2, uint64(d)))
			X := randDense(rng, rows, d)
			x := randVec(rng, d)
			dst := make([]float64, rows)
			for _, par := range []bool{false, true} {
				name := fmt.Sprintf("d=%d/rows=%d/serial", d, rows)
				if par {
					name = fmt.Sprintf("d=%d/rows=%d/parallel", d, rows)
				}
				b.Run(name, func(b *testing.B) {
					if par {
						forceParallel(b)
					} else {
						forceSerial(b)
					}
					for b.Loop() {
						Column(dst, RBF{Sigma: 1}, X, x)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/element")
				})
			}
		}
	}
}

// BenchmarkEval measures single kernel evaluations through the interface.
func BenchmarkEval(b *testing.B) {
	for _, d := range []int{10, 123} {
		rng := rand.New(rand.NewPCG(3, uint64(d)))
		x, y := randVec(rng, d), randVec(rng, d)
		for _, k := range benchKernels(d) {
			b.Run(fmt.Sprintf("d=%d/%s", d, kernelName(k)), func(b *testing.B) {
				var s float64
				for b.Loop() {
					s += k.Eval(x, y)
				}
				_ = s
			})
		}
	}
}

// BenchmarkMatrix measures the kernel matrix of 1000 and 2000 points.
func BenchmarkMatrix(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		rng := rand.New(rand.NewPCG(4, uint64(n)))
		X := randDense(rng, n, 10)
		for _, k := range []Kernel{RBF{Sigma: 1}, RBF{Gamma: 0.5}} {
			b.Run(fmt.Sprintf("n=%d/d=10/%s", n, kernelName(k)), func(b *testing.B) {
				var K *mat.SymDense
				for b.Loop() {
					K = Matrix(k, X)
				}
				_ = K
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*(n+1)/2), "ns/element")
			})
		}
	}
}

// BenchmarkMedianDistance measures the median heuristic with limit 1000 (DefaultBandwidth's
// sample) at d = 10 (MAGIC) and 784 (Fashion-MNIST); run it with -cpu 1,2 to see its
// distances on the cores. ns/coordinate is per coordinate of the 499,500 pairs.
func BenchmarkMedianDistance(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{10, 784} {
		X := randDense(rng, 1000, d)
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			for b.Loop() {
				if _, err := MedianDistance(X, 1000); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*499500*d), "ns/coordinate")
		})
	}
}

// blockSet is a block benchmark's data: the first m rows of a data set as the fixed
// points Y, the next rows as the points X, and the median distance of Y.
type blockSet struct {
	ds   data.Dataset
	d    int
	Y, X *mat.Dense
	med  float64
}

// blockSets returns the block benchmarks' data on MAGIC (d = 10) and a9a (d = 123).
func blockSets(b *testing.B, m, rows int) []blockSet {
	var out []blockSet
	for _, ds := range []data.Dataset{data.Magic(), data.A9A()} {
		_, d := ds.X.Dims()
		Y := ds.X.Slice(0, m, 0, d).(*mat.Dense)
		med, err := MedianDistance(Y, m)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, blockSet{ds: ds, d: d, Y: Y, X: ds.X.Slice(m, m+rows, 0, d).(*mat.Dense), med: med})
	}
	return out
}

// BenchmarkBlock measures kernel blocks of new points against m = 1000 fixed points —
// the work of a model's Transform — on MAGIC (d = 10) and a9a (d = 123): the first 1000
// rows are Y, the next 4096 are projected 256 at a time. "bulk" is Cross.BlockTo,
// "elements" the element path (Column per point, as the models did before Cross).
// points/s is reported; the RBF's bandwidth is the median distance.
func BenchmarkBlock(b *testing.B) {
	const m, rows, block = 1000, 4096, 256
	for _, s := range blockSets(b, m, rows) {
		ds, d, Y, X, med := s.ds, s.d, s.Y, s.X, s.med
		kernels := []Kernel{RBF{Sigma: med}, RBF{Gamma: 1 / (2 * med * med)}, Laplacian{Sigma: med}, Laplacian{Gamma: 1 / med},
			Polynomial{Degree: 3, Gamma: 1 / (med * med), Coef0: 1}, Linear{}, Sigmoid{Gamma: 1 / (med * med), Coef0: -1}, Cosine{}}
		for _, k := range kernels {
			b.Run(fmt.Sprintf("%s/d=%d/%s/bulk", ds.Name, d, kernelName(k)), func(b *testing.B) {
				c := NewCross(k, Y)
				var work BlockWork
				dst := mat.NewDense(block, m, nil)
				each := func(x *mat.Dense) { c.BlockTo(dst, x, &work) }
				for b.Loop() {
					eachBlock(X, rows, block, each)
				}
				b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "points/s")
			})
			b.Run(fmt.Sprintf("%s/d=%d/%s/elements", ds.Name, d, kernelName(k)), func(b *testing.B) {
				col := make([]float64, m)
				for b.Loop() {
					for i := range rows {
						Column(col, k, Y, X.RawRowView(i))
					}
				}
				b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "points/s")
			})
		}
	}
}

// BenchmarkProject measures Cross.ProjectTo — the kernel block of new points against
// m = 1000 fixed points times k = 6 vectors, a Transform's work — on MAGIC (d = 10) and
// a9a (d = 123), 4096 points 512 at a time, against the physical limit in the same
// run: the distance dgemm alone (the n×d by d×m product every RBF block contains).
// points/s and ×dgemm (the time over the dgemm's) are reported; RBF with the median
// distance.
func BenchmarkProject(b *testing.B) {
	const m, rows, block, k = 1000, 4096, 512, 6
	for _, s := range blockSets(b, m, rows) {
		ds, d, Y, X, med := s.ds, s.d, s.Y, s.X, s.med
		P := mat.NewDense(k, m, nil)
		for i := range k * m {
			P.RawMatrix().Data[i] = float64(i%13)/13 - 0.5
		}
		// The floor: the best of 20 passes of the dgemms alone.
		prod := mat.NewDense(block, m, nil)
		floor := math.Inf(1)
		for range 20 {
			start := time.Now()
			for lo := 0; lo < rows; lo += block {
				native.Gemm(blas.NoTrans, blas.Trans, 1, X.Slice(lo, lo+block, 0, d).(*mat.Dense).RawMatrix(), Y.RawMatrix(), 0, prod.RawMatrix())
			}
			floor = min(floor, time.Since(start).Seconds())
		}
		for _, kern := range []Kernel{RBF{Sigma: med}, RBF{Gamma: 1 / (2 * med * med)}} {
			b.Run(fmt.Sprintf("%s/d=%d/%s", ds.Name, d, kernelName(kern)), func(b *testing.B) {
				c := NewCross(kern, Y)
				var work BlockWork
				dst := mat.NewDense(block, k, nil)
				each := func(x *mat.Dense) { c.ProjectTo(dst, x, P, &work) }
				for b.Loop() {
					eachBlock(X, rows, block, each)
				}
				per := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(rows)/per, "points/s")
				b.ReportMetric(per/floor, "×dgemm")
			})
		}
	}
}

// eachBlock calls f with the first rows rows of X in blocks of block rows (rows a
// multiple of block).
func eachBlock(X *mat.Dense, rows, block int, f func(*mat.Dense)) {
	_, d := X.Dims()
	for lo := 0; lo < rows; lo += block {
		f(X.Slice(lo, lo+block, 0, d).(*mat.Dense))
	}
}
