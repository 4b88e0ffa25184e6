package native

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/parallel"
)

// Products of a tall matrix, split across the cores by Go (docs/design.md, "Who owns
// the cores"). The eigen-updates of a tracked model multiply its m×r vectors with
// blocks of b columns, m in the tens of thousands and r, b about 50: C = V·P (m×b, inner
// dimension r) and P = Vᵀ·G (r×b, inner dimension m). OpenBLAS threads a dgemm by
// splitting C's rows and columns among its threads, which a 50×64 result cannot feed,
// and the tall products it does split ran 1.0–1.3× faster on two threads than on one
// (measured on an AMD EPYC, Haswell and SkylakeX kernels). Split by rows in Go, each
// piece a single-threaded dgemm on its own core, they ran 1.35–1.5× faster.
//
// The pieces are fixed chunks of splitRows rows whatever the number of workers, and a
// reduction over rows (Aᵀ·B) adds its chunks' products in their order, so that the
// result does not depend on GOMAXPROCS or on OpenBLAS's threads: a model fitted on two
// cores has the same bits as one fitted on sixteen.

// splitRows is the number of rows of a chunk: 512 rows of 64 columns are 256 KiB, a
// piece that stays in a core's second-level cache between the products that read it,
// long enough that a dgemm call's overhead is nothing next to its work, and short
// enough that a model of a few thousand points is split at all (from 1024 rows) and one
// of 10,000 in 20 pieces. Tracking 10,000 Fashion-MNIST images on two cores took
// 3.6–4.0 s with chunks of 512 rows, 4.0–4.2 s with 1024; MAGIC the same either way.
const splitRows = 512

// splitAspect is how much longer than wide a product must be for the split: a C = A·B
// whose rows are at least splitAspect times its other dimensions, or a C = Aᵀ·B whose
// inner dimension is. Squarer products are OpenBLAS's to thread.
const splitAspect = 8

// The kinds of split of a product.
const (
	splitNone   = iota
	splitByRows // C's rows in chunks: no reduction
	splitInner  // the inner dimension in chunks: C the sum of the chunks' products
)

// splitOf returns how Gemm splits C = op(A)·op(B), C m×n with inner dimension k.
func splitOf(tA blas.Transpose, m, n, k int) int {
	switch {
	case tA == blas.NoTrans && m >= 2*splitRows && m >= splitAspect*max(n, k):
		return splitByRows
	case tA != blas.NoTrans && k >= 2*splitRows && k >= splitAspect*max(m, n):
		return splitInner
	}
	return splitNone
}

// splitter is one split product in flight: its operands, the scratch of a reduction's
// partial products, and the loops bound once as method values, so that a split product
// allocates nothing once the splitters it needs exist.
type splitter struct {
	team        parallel.Team
	tA, tB      blas.Transpose
	alpha, beta float64
	a, b, c     blas64.General
	x, y        []float64 // Ger's and Gemv's vectors, of increment 1
	uplo        blas.Uplo // Syrk's triangle
	parts       []float64 // splitInner: chunk i's product, m×n, at i·m·n
	rowsFn      func(lo, hi int)
	innerFn     func(lo, hi int)
	gerFn       func(lo, hi int)
	gemvFn      func(lo, hi int)
	syrkFn      func(lo, hi int)
	next        *splitter // the free list
}

// splitters is the free list of splitters: a product takes one and gives it back, so
// that products run at once from several goroutines (a pass's tiles) have one each.
// Not a sync.Pool, whose per-processor slots made a goroutine that moved to another
// processor allocate a new one (docs/design.md, "Rank-r tracking in blocks").
var splitters struct {
	sync.Mutex
	free *splitter
}

func getSplitter() *splitter {
	splitters.Lock()
	s := splitters.free
	if s != nil {
		splitters.free = s.next
	}
	splitters.Unlock()
	if s == nil {
		s = new(splitter)
		s.rowsFn, s.innerFn, s.gerFn, s.gemvFn, s.syrkFn = s.rows, s.inner, s.ger, s.gemv, s.syrk
	}
	return s
}

func putSplitter(s *splitter) {
	s.a, s.b, s.c, s.x, s.y = blas64.General{}, blas64.General{}, blas64.General{}, nil, nil
	splitters.Lock()
	s.next = splitters.free
	splitters.free = s
	splitters.Unlock()
}

// reserveParts makes s.parts n numbers long, the partial products of a reduction,
// reusing its memory.
func (s *splitter) reserveParts(n int) {
	if cap(s.parts) < n {
		s.parts = make([]float64, n)
	}
	s.parts = s.parts[:n]
}

// splitWorkers returns the goroutines a split product of chunks pieces runs on.
func splitWorkers(chunks int) int {
	return max(1, min(runtime.GOMAXPROCS(0), chunks))
}

// gemmSplit computes C = alpha·op(A)·op(B) + beta·C split as kind says, on the workers
// of internal/parallel with the backend single-threaded (ownCores).
func gemmSplit(kind int, tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General, k int) {
	s := getSplitter()
	s.tA, s.tB, s.alpha, s.beta, s.a, s.b, s.c = tA, tB, alpha, beta, a, b, c
	var chunks int
	if kind == splitByRows {
		chunks = (c.Rows + splitRows - 1) / splitRows
	} else {
		chunks = (k + splitRows - 1) / splitRows
		s.reserveParts(chunks * c.Rows * c.Cols)
	}
	if kind == splitByRows {
		s.run(chunks, s.rowsFn)
	} else {
		s.run(chunks, s.innerFn)
		s.sum(chunks)
	}
	putSplitter(s)
}

// rows computes the chunks lo…hi−1 of C's rows.
func (s *splitter) rows(lo, hi int) {
	impl := blasImpl()
	a, b, c := s.a, s.b, s.c
	for ch := lo; ch < hi; ch++ {
		r0 := ch * splitRows
		r := min(splitRows, c.Rows-r0)
		n, k := c.Cols, a.Cols
		impl.Dgemm(s.tA, s.tB, r, n, k, s.alpha, a.Data[r0*a.Stride:], a.Stride, b.Data, b.Stride,
			s.beta, c.Data[r0*c.Stride:], c.Stride)
	}
}

// inner computes the products of the chunks lo…hi−1 of the inner dimension, A's rows
// r0…r0+r−1 against op(B)'s, each into its part of s.parts.
func (s *splitter) inner(lo, hi int) {
	impl := blasImpl()
	a, b, c := s.a, s.b, s.c
	m, n := c.Rows, c.Cols
	for ch := lo; ch < hi; ch++ {
		r0 := ch * splitRows
		r := min(splitRows, a.Rows-r0)
		// op(B)'s rows r0…: B's rows when not transposed, its columns when it is.
		bOff := r0 * b.Stride
		if s.tB != blas.NoTrans {
			bOff = r0
		}
		impl.Dgemm(s.tA, s.tB, m, n, r, 1, a.Data[r0*a.Stride:], a.Stride, b.Data[bOff:], b.Stride,
			0, s.parts[ch*m*n:], n)
	}
}

// sum sets C = alpha·Σ parts + beta·C, the chunks added in their order (into the first
// chunk's part); beta = 0 sets C without reading it, as BLAS does.
func (s *splitter) sum(chunks int) {
	c := s.c
	m, n := c.Rows, c.Cols
	acc := s.parts[:m*n]
	for ch := 1; ch < chunks; ch++ {
		for i, v := range s.parts[ch*m*n : (ch+1)*m*n] {
			acc[i] += v
		}
	}
	for i := range m {
		scaleInto(c.Data[i*c.Stride:i*c.Stride+n], acc[i*n:i*n+n], s.alpha, s.beta)
	}
}

// scaleInto sets dst = alpha·acc + beta·dst; beta = 0 sets dst without reading it, as
// BLAS does.
func scaleInto(dst, acc []float64, alpha, beta float64) {
	acc = acc[:len(dst)]
	if beta == 0 {
		for j := range dst {
			dst[j] = alpha * acc[j]
		}
		return
	}
	for j := range dst {
		dst[j] = alpha*acc[j] + beta*dst[j]
	}
}

// splitVector reports whether a level-2 product over the m rows of an m×n matrix is
// split: tall by the measure of Gemm's products, its vectors of increment 1.
func splitVector(m, n int, incs ...int) bool {
	if m < 2*splitRows || m < splitAspect*n {
		return false
	}
	for _, inc := range incs {
		if inc != 1 {
			return false
		}
	}
	return true
}

// gerSplit performs A += alpha·x·yᵀ for a tall A, its rows in chunks on several
// goroutines: the same value for every entry as one dger.
func gerSplit(alpha float64, x, y []float64, a blas64.General) {
	s := getSplitter()
	s.alpha, s.x, s.y, s.a = alpha, x, y, a
	s.run((a.Rows+splitRows-1)/splitRows, s.gerFn)
	putSplitter(s)
}

// run runs fn over chunks chunks on the workers, with the backend single-threaded.
func (s *splitter) run(chunks int, fn func(lo, hi int)) {
	workers := splitWorkers(chunks)
	release := ownCores(workers)
	s.team.Run(workers, chunks, 1, fn)
	release()
}

func (s *splitter) ger(lo, hi int) {
	impl := blasImpl()
	a := s.a
	for ch := lo; ch < hi; ch++ {
		r0 := ch * splitRows
		r := min(splitRows, a.Rows-r0)
		impl.Dger(r, a.Cols, s.alpha, s.x[r0:], 1, s.y, 1, a.Data[r0*a.Stride:], a.Stride)
	}
}

// gemvSplit computes y = alpha·op(A)·x + beta·y for a tall A, its rows in chunks on
// several goroutines: for op(A) = A each chunk's part of y, for Aᵀ each chunk's
// product into a part of its own, the parts then added in their order, as Gemm's
// reductions are.
func gemvSplit(t blas.Transpose, alpha float64, a blas64.General, x []float64, beta float64, y []float64) {
	s := getSplitter()
	s.tA, s.alpha, s.beta, s.a, s.x, s.y = t, alpha, beta, a, x, y
	chunks := (a.Rows + splitRows - 1) / splitRows
	if t != blas.NoTrans {
		s.reserveParts(chunks * a.Cols)
	}
	s.run(chunks, s.gemvFn)
	if t != blas.NoTrans {
		n := a.Cols
		acc := s.parts[:n]
		for ch := 1; ch < chunks; ch++ {
			for i, v := range s.parts[ch*n : (ch+1)*n] {
				acc[i] += v
			}
		}
		scaleInto(y[:n], acc, alpha, beta)
	}
	putSplitter(s)
}

func (s *splitter) gemv(lo, hi int) {
	impl := blasImpl()
	a := s.a
	for ch := lo; ch < hi; ch++ {
		r0 := ch * splitRows
		r := min(splitRows, a.Rows-r0)
		if s.tA == blas.NoTrans {
			impl.Dgemv(blas.NoTrans, r, a.Cols, s.alpha, a.Data[r0*a.Stride:], a.Stride, s.x, 1, s.beta, s.y[r0:], 1)
			continue
		}
		impl.Dgemv(blas.Trans, r, a.Cols, 1, a.Data[r0*a.Stride:], a.Stride, s.x[r0:], 1, 0, s.parts[ch*a.Cols:], 1)
	}
}

func releaseNothing() {}

// OwnCores gives the cores to the caller's goroutines until release is called: with
// OpenBLAS, it makes OpenBLAS single-threaded, so that workers goroutines that each call
// the backend on a piece of their own (a pass's tiles, the rows of a kernel block) run
// side by side instead of oversubscribing the cores with OpenBLAS's threads, and compute
// each piece as they would with any number of workers; the pure-Go backend needs
// nothing. Calls may nest and overlap, from any goroutines; OpenBLAS gets its thread
// count back when the last one is released. docs/design.md, "Who owns the cores".
func OwnCores(workers int) (release func()) { return ownCores(workers) }

// lapackThreads is the order from which LAPACK's eigensolvers and SVDs run on OpenBLAS's
// threads. Below it, their many small BLAS calls gain nothing from threads and lose the
// time of waking them: on two cores (AMD EPYC, OpenBLAS 0.3.21) dsyevd of order 178 —
// the dense problem of a rank-50 block step, once a block — took 2.2 ms on one thread
// and 5.3 on two, dsyevr's top 50 of order 1000 79 ms and 105, and the two broke even
// between orders 1000 and 2000; an SVD of a 3560×50 matrix took 12 ms and 17, of
// 6000×50 about the same. docs/design.md, "Who owns the cores".
const lapackThreads = 1024

// smallLAPACK makes OpenBLAS single-threaded for a LAPACK call on a matrix of order (or
// rows) n below lapackThreads, and returns the function that ends that.
func smallLAPACK(n int) (release func()) {
	if n >= lapackThreads {
		return releaseNothing
	}
	return ownCores(1)
}

// syrkSplit computes the triangle c.Uplo of C = alpha·AᵀA + beta·C for a tall A: each
// chunk of splitRows rows its own triangle (a single-threaded dsyrk), the triangles
// added in the chunks' order, as gemmSplit adds a reduction's parts.
func syrkSplit(alpha float64, a blas64.General, beta float64, c blas64.Symmetric) {
	s := getSplitter()
	s.a, s.uplo = a, c.Uplo
	n := a.Cols
	chunks := (a.Rows + splitRows - 1) / splitRows
	s.reserveParts(chunks * n * n)
	s.run(chunks, s.syrkFn)
	for i := range n {
		lo, hi := i, n // the row's part of the triangle
		if c.Uplo == blas.Lower {
			lo, hi = 0, i+1
		}
		acc := s.parts[i*n+lo : i*n+hi]
		for ch := 1; ch < chunks; ch++ {
			for j, v := range s.parts[ch*n*n+i*n+lo : ch*n*n+i*n+hi] {
				acc[j] += v
			}
		}
		scaleInto(c.Data[i*c.Stride+lo:i*c.Stride+hi], acc, alpha, beta)
	}
	putSplitter(s)
}

func (s *splitter) syrk(lo, hi int) {
	impl := blasImpl()
	a := s.a
	n := a.Cols
	for ch := lo; ch < hi; ch++ {
		r0 := ch * splitRows
		r := min(splitRows, a.Rows-r0)
		impl.Dsyrk(s.uplo, blas.Trans, n, r, 1, a.Data[r0*a.Stride:], a.Stride, 0, s.parts[ch*n*n:], n)
	}
}
