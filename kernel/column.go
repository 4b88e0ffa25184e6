package kernel

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// Parallel work is measured in units of one coordinate of one kernel
// value: an element of a d-dimensional kernel costs about d + evalCost units
// of roughly 0.6 ns each on a 2.6 GHz core (evalCost accounts for exp, the
// call and the store). The thresholds are variables so that internal tests
// can force the parallel code on small inputs.
const evalCost = 32

var (
	// parallelWork is the amount of work from which Column and Matrix use
	// several goroutines. Measured with BenchmarkColumnThreshold (RBF,
	// 2 cores): the parallel path wins from about 4000 rows at d = 2,
	// 2500–3000 at d = 10 and 900 at d = 123, i.e. from 55–75 µs of serial
	// work — waking an idle P costs several microseconds. 128Ki units is
	// about 3850, 3100 and 850 rows for those dimensions.
	parallelWork = 128 << 10
	// workPerWorker is the least work given to each goroutine.
	workPerWorker = 64 << 10
	// parallelMinElements is the least number of kernel values (rows of a
	// Column) computed in parallel.
	parallelMinElements = 256
)

// workers returns how many goroutines should share elements kernel values
// of dimension cols, split into at most parts independent parts.
func workers(elements, cols, parts int) int {
	if elements < parallelMinElements {
		return 1
	}
	work := elements * (cols + evalCost)
	if work < parallelWork {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), work/workPerWorker, parts))
}

// Column computes dst[i] = k(X_i, x) for the rows X_i of X; len(x) must be
// the number of columns of X and len(dst) its number of rows, otherwise
// Column panics. dst must not overlap X; x may be a row of X.
//
// The built-in kernels are evaluated by specialised loops that do not
// allocate and give exactly the values of their Eval methods; other kernels
// are called through Eval. For large inputs — about 128·1024 units of work,
// counting d + 32 units per kernel value, e.g. from 3100 rows at d = 10 or
// 850 rows at d = 123, where going parallel was measured to pay — the rows
// are split into contiguous blocks evaluated by up to GOMAXPROCS
// goroutines. Every element is computed independently of the others, so the
// result does not depend on GOMAXPROCS. An empty X gives an empty column
// (len(dst) must be 0).
func Column(dst []float64, k Kernel, X *mat.Dense, x []float64) {
	if X.IsEmpty() {
		if len(dst) != 0 {
			panic("kernel: Column: len(dst) != 0 for an empty X")
		}
		return
	}
	raw := X.RawMatrix()
	if len(x) != raw.Cols {
		panic("kernel: Column: len(x) != columns of X")
	}
	if len(dst) != raw.Rows {
		panic("kernel: Column: len(dst) != rows of X")
	}
	if check.IsNil(k) {
		panic("kernel: Column: nil kernel")
	}
	rows := raw.Rows
	nw := workers(rows, raw.Cols, rows)
	if nw <= 1 {
		fill(dst, k, raw.Data, raw.Stride, raw.Cols, x)
		return
	}
	j := columnJobs.get()
	j.dst, j.k, j.a, j.x = dst, k, raw, x
	j.team.Run(nw, rows, (rows+nw-1)/nw, j.fn)
	j.dst, j.k, j.a, j.x = nil, nil, blas64.General{}, nil
	columnJobs.put(j)
}

// columnJob is a parallel Column: its rows on the process's shared workers
// (internal/parallel), the loop a method value bound once. Jobs are recycled through
// columnJobs, so that a parallel Column allocates nothing in steady state (a sync.Pool
// would not do: its Put allocates when a goroutine returns a job on another thread
// than it took it on).
type columnJob struct {
	team parallel.Team
	dst  []float64
	k    Kernel
	a    blas64.General
	x    []float64
	fn   func(lo, hi int) // run
}

// run fills rows lo…hi−1 of the column.
func (j *columnJob) run(lo, hi int) {
	fill(j.dst[lo:hi], j.k, j.a.Data[lo*j.a.Stride:], j.a.Stride, j.a.Cols, j.x)
}

// jobStack is a free list of columnJobs: as many as Columns have run at once.
type jobStack struct {
	mu   sync.Mutex
	free []*columnJob
}

var columnJobs jobStack

// get returns a free job, or a new one.
func (s *jobStack) get() *columnJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.free); n > 0 {
		j := s.free[n-1]
		s.free = s.free[:n-1]
		return j
	}
	j := new(columnJob)
	j.fn = j.run
	return j
}

// put returns a job to the free list.
func (s *jobStack) put(j *columnJob) {
	s.mu.Lock()
	s.free = append(s.free, j)
	s.mu.Unlock()
}

// Matrix returns the symmetric kernel matrix K with K[i][j] = k(X_i, X_j) for the rows of
// X, evaluating only its upper triangle, like a Cross of X against itself
// (docs/design.md, "Kernel blocks"): for RBF, Polynomial, Linear, Sigmoid and Cosine
// kernels the products X̃·X̃ᵀ come from one dsyrk (native.Syrk) on the upper triangle, the
// RBF's on the rows shifted by their mean, with every value within the accuracy stated
// at Cross; the
// Laplacian and other kernels are evaluated entry by entry, (i, j) with j ≥ i once as
// Eval(X_j, X_i), exactly as Eval. The diagonal is always Eval(X_i, X_i) exactly (1 for
// an RBF), and entries involving a row with a NaN or infinite coordinate are what Eval
// gives. The result is exactly symmetric. Large matrices are evaluated by up to
// GOMAXPROCS goroutines; the values do not depend on GOMAXPROCS. An empty X gives an
// empty SymDense.
func Matrix(k Kernel, X *mat.Dense) *mat.SymDense {
	if X.IsEmpty() {
		return &mat.SymDense{}
	}
	if check.IsNil(k) {
		panic("kernel: Matrix: nil kernel")
	}
	raw := X.RawMatrix()
	// Advised for huge pages (hugepage.Floats): 8 MB at 1000 points, first touched by
	// 4 KiB pages at 3 ms a MB where faults are slow (docs/design.md, "Passes over the
	// points").
	K := mat.NewSymDense(raw.Rows, hugepage.Floats(raw.Rows*raw.Rows, 0))
	matrix(K.RawSymmetric(), k, raw, nil)
	return K
}

// MatrixTo sets dst to the kernel matrix K(Y, Y) of the prepared points, as Matrix(k, Y)
// computes it, bit for bit — an RBF's from the Cross's shifted rows and norms, which
// Matrix would compute again. dst is resized if empty and must otherwise be
// Len()×Len(); MatrixTo panics otherwise, and if the Cross was never Reset. With a dst
// of that size it allocates nothing for an RBF, Polynomial, Linear, Sigmoid or Cosine
// kernel (a Cosine's norms are the Cross's) of a matrix
// small enough to be evaluated on one goroutine, and nothing but the goroutines of a
// larger one: a model's block of new points against themselves, at every step. An RBF
// Cross made by NewCrossNoCopy has no shifted rows to give: its MatrixTo is Matrix's
// computation, which allocates a shifted copy for the duration of the call.
func (c *Cross) MatrixTo(dst *mat.SymDense) {
	if !c.ready {
		panic("kernel: Cross: not prepared (Reset)")
	}
	n := c.y.Rows
	if dst.IsEmpty() {
		dst.ReuseAsSym(n)
	}
	if dst.SymmetricDim() != n {
		panic(mat.ErrShape)
	}
	matrix(dst.RawSymmetric(), c.kern, c.y, c)
}

// matrix sets the upper triangle of kr to the kernel matrix of the rows of raw (see
// Matrix). c, if not nil, is a Cross of those rows and that kernel: an RBF's shifted
// rows and their norms (unless it has no copy, NewCrossNoCopy), a Cosine's norms, are
// taken from it, the values it computes being the same.
func matrix(kr blas64.Symmetric, k Kernel, raw blas64.General, c *Cross) {
	n := raw.Rows
	switch dk := deref(k).(type) {
	case RBF:
		if c != nil && !c.noCopy {
			matrixShifted(kr, raw, c.ys, c.yn, c.scale)
		} else {
			matrixRBF(kr, raw, scaleOf(dk))
		}
	case Polynomial, Linear, Sigmoid, Cosine:
		native.Syrk(blas.NoTrans, 1, raw, 0, kr)
		var norms []float64 // a Cosine's ‖xᵢ‖, the Cross's if there is one
		if _, ok := dk.(Cosine); ok {
			if c != nil {
				norms = c.yn
			} else {
				norms = make([]float64, n)
				rowNorms(norms, raw)
			}
		}
		if _, ok := dk.(Linear); !ok {
			if workers(n*(n+1)/2, 1, n) <= 1 { // serially without the closure, which would be allocated
				for i := range n {
					finishRow(kr, i, dk, norms)
				}
			} else {
				triangleRows(n, 1, func(i int) { finishRow(kr, i, dk, norms) })
			}
		}
	default:
		matrixElements(k, kr, raw)
		return
	}
	// The diagonal, and the rows and columns of non-finite points, as Eval.
	d := raw.Cols
	for i := range n {
		xi := raw.Data[i*raw.Stride : i*raw.Stride+d]
		kr.Data[i*kr.Stride+i] = k.Eval(xi, xi)
	}
	for i := range n {
		if c != nil && !isBad(c.ybad, i) || c == nil && finiteRow(raw, i) {
			continue
		}
		xi := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j := range n {
			xj := raw.Data[j*raw.Stride : j*raw.Stride+d]
			if j >= i { // entry (i, j) of the triangle, as Eval(X_j, X_i)
				kr.Data[i*kr.Stride+j] = k.Eval(xj, xi)
			} else { // entry (j, i)
				kr.Data[j*kr.Stride+i] = k.Eval(xi, xj)
			}
		}
	}
}

// finishRow replaces the products g in row i of the upper triangle of kr by the kernel's
// values, as Cross.finish does: the polynomial's (γ·g + c)^d, the sigmoid's tanh(γ·g + c),
// the cosine's g/(‖xᵢ‖·‖xⱼ‖) from the norms.
func finishRow(kr blas64.Symmetric, i int, k Kernel, norms []float64) {
	row := kr.Data[i*kr.Stride+i : i*kr.Stride+kr.N]
	switch k := k.(type) {
	case Polynomial:
		for j, g := range row {
			row[j] = powInt(k.Gamma*g+k.Coef0, k.Degree)
		}
	case Sigmoid:
		for j, g := range row {
			row[j] = math.Tanh(k.Gamma*g + k.Coef0)
		}
	case Cosine:
		nx, ny := norms[i], norms[i:]
		for j, g := range row {
			row[j] = cosineOf(g, nx, ny[j])
		}
	}
}

// finiteRow reports whether row i of a has only finite entries.
func finiteRow(a blas64.General, i int) bool {
	for _, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// matrixRBF sets the upper triangle of K to the RBF kernel matrix of the rows of x, with
// the exponent's scale s: the rows shifted by their mean (as Cross.Reset shifts them),
// then matrixShifted.
func matrixRBF(K blas64.Symmetric, x blas64.General, s rbfScale) {
	n, d := x.Rows, x.Cols
	bad := badRows(nil, x)
	mu := make([]float64, d)
	good := 0
	for i := range n {
		if isBad(bad, i) {
			continue
		}
		for l, v := range x.Data[i*x.Stride : i*x.Stride+d] {
			mu[l] += v
		}
		good++
	}
	if good > 0 {
		for l := range mu {
			mu[l] /= float64(good)
		}
	}
	xs := make([]float64, n*d)
	xn := make([]float64, n)
	shiftRows(xs, xn, x, mu, bad)
	matrixShifted(K, x, xs, xn, s)
}

// matrixShifted sets the upper triangle of K to the RBF kernel matrix of the rows of x,
// given them shifted (xs, n×d) and their squared norms xn: −2·X̃·X̃ᵀ by one dsyrk, then
// each entry as in rbfRow.
func matrixShifted(K blas64.Symmetric, x blas64.General, xs, xn []float64, s rbfScale) {
	n, d := x.Rows, x.Cols
	native.Syrk(blas.NoTrans, -2, blas64.General{Rows: n, Cols: d, Stride: d, Data: xs}, 0, K)
	coef := identityCoef(d)
	if workers(n*(n+1)/2, 1, n) <= 1 { // serially without the closure, which would be allocated
		for i := range n {
			rbfRow(K.Data[i*K.Stride+i:i*K.Stride+n], xn[i], xn[i:], x.Data[i*x.Stride:i*x.Stride+d],
				x.Data[i*x.Stride:], x.Stride, s, coef, blas64.General{}, nil)
		}
		return
	}
	triangleRows(n, 1, func(i int) {
		rbfRow(K.Data[i*K.Stride+i:i*K.Stride+n], xn[i], xn[i:], x.Data[i*x.Stride:i*x.Stride+d],
			x.Data[i*x.Stride:], x.Stride, s, coef, blas64.General{}, nil)
	})
}

// matrixElements sets the upper triangle of K entry by entry: row i of the triangle is
// the Column of rows i… against X_i.
func matrixElements(k Kernel, K blas64.Symmetric, x blas64.General) {
	n, d, s := x.Rows, x.Cols, x.Stride
	triangleRows(n, d, func(i int) {
		fill(K.Data[i*K.Stride+i:i*K.Stride+n], k, x.Data[i*s:], s, d, x.Data[i*s:i*s+d])
	})
}

// triangleRows runs row(i) for the n rows of an upper triangle whose entries cost about
// d + evalCost units each (see workers), serially or, when the triangle is large, with the
// rows handed out one at a time in order to up to GOMAXPROCS goroutines: rows get shorter
// towards the bottom of the triangle, and handing them out in order balances the load.
func triangleRows(n, d int, row func(i int)) {
	nw := workers(n*(n+1)/2, d, n)
	if nw <= 1 {
		for i := range n {
			row(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range nw {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				row(i)
			}
		})
	}
	wg.Wait()
}

// fill sets dst[r] = k(a_r, x) for r < len(dst), where row a_r of a starts
// at a[r*stride] and has cols elements. Built-in kernels, and pointers to
// them, get specialised loops; fill does not allocate.
func fill(dst []float64, k Kernel, a []float64, stride, cols int, x []float64) {
	x = x[:cols]
	switch k := k.(type) {
	case RBF:
		fillRBF(dst, a, stride, x, k)
	case *RBF:
		fillRBF(dst, a, stride, x, *k)
	case Laplacian:
		fillLaplacian(dst, a, stride, x, k)
	case *Laplacian:
		fillLaplacian(dst, a, stride, x, *k)
	case Polynomial:
		fillPolynomial(dst, a, stride, x, k)
	case *Polynomial:
		fillPolynomial(dst, a, stride, x, *k)
	case Linear, *Linear:
		fillLinear(dst, a, stride, x)
	case Sigmoid:
		fillSigmoid(dst, a, stride, x, k)
	case *Sigmoid:
		fillSigmoid(dst, a, stride, x, *k)
	case Cosine, *Cosine:
		fillCosine(dst, a, stride, x)
	case Func:
		fillFunc(dst, a, stride, x, k.F)
	case *Func:
		fillFunc(dst, a, stride, x, k.F)
	default:
		for r := range dst {
			dst[r] = k.Eval(a[r*stride:r*stride+cols], x)
		}
	}
}

// fillRBF is fill for an RBF kernel; len(x) is the number of columns (as in the other
// fill functions).
//
// It first stores the squared distances in dst and then replaces them by their
// exponentials: the exp calls of consecutive elements are then independent and
// overlap in the pipeline (about 20 % faster at d = 10 than one pass). The operations,
// and so the bits, are those of Eval: rbf's division by 2σ², or rbfGamma's product
// with γ when Gamma is given.
func fillRBF(dst, a []float64, stride int, x []float64, k RBF) {
	cols := len(x)
	for r := range dst {
		dst[r] = vec.SqDist(a[r*stride:r*stride+cols], x)
	}
	if gamma := k.Gamma; gamma != 0 {
		for r, v := range dst {
			dst[r] = math.Exp(-gamma * v)
		}
		return
	}
	g := 2 * k.Sigma * k.Sigma
	for r, v := range dst {
		dst[r] = math.Exp(-v / g)
	}
}

// fillLaplacian is fill for a Laplacian kernel, in two passes like fillRBF; the bits
// are those of Eval (laplacian, or laplacianGamma when Gamma is given).
func fillLaplacian(dst, a []float64, stride int, x []float64, k Laplacian) {
	cols := len(x)
	for r := range dst {
		dst[r] = l1Dist(a[r*stride:r*stride+cols], x)
	}
	if gamma := k.Gamma; gamma != 0 {
		for r, v := range dst {
			dst[r] = math.Exp(-gamma * v)
		}
		return
	}
	sigma := k.Sigma
	for r, v := range dst {
		dst[r] = math.Exp(-v / sigma)
	}
}

// fillPolynomial is fill for a Polynomial.
func fillPolynomial(dst, a []float64, stride int, x []float64, k Polynomial) {
	gamma, coef0, degree, cols := k.Gamma, k.Coef0, k.Degree, len(x)
	for r := range dst {
		dst[r] = polynomial(a[r*stride:r*stride+cols], x, gamma, coef0, degree)
	}
}

// fillLinear is fill for Linear.
func fillLinear(dst, a []float64, stride int, x []float64) {
	cols := len(x)
	for r := range dst {
		dst[r] = vec.Dot(a[r*stride:r*stride+cols], x)
	}
}

// fillSigmoid is fill for a Sigmoid.
func fillSigmoid(dst, a []float64, stride int, x []float64, k Sigmoid) {
	gamma, coef0, cols := k.Gamma, k.Coef0, len(x)
	for r := range dst {
		dst[r] = sigmoid(a[r*stride:r*stride+cols], x, gamma, coef0)
	}
}

// fillCosine is fill for Cosine: the norm of x once, the operations of Eval(a_r, x)
// otherwise, so the same bits.
func fillCosine(dst, a []float64, stride int, x []float64) {
	cols, nx := len(x), vec.Norm(x)
	for r := range dst {
		ar := a[r*stride : r*stride+cols]
		dst[r] = cosineOf(vec.Dot(ar, x), vec.Norm(ar), nx)
	}
}

// fillFunc is fill for a Func.
func fillFunc(dst, a []float64, stride int, x []float64, f func(x, y []float64) float64) {
	cols := len(x)
	for r := range dst {
		dst[r] = f(a[r*stride:r*stride+cols], x)
	}
}
