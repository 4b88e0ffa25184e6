package kernel

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// ProjectTo sets dst to K(X, Y)·Pᵀ, the kernel block of the rows of X against the
// prepared points Y (as BlockTo computes it) times the transpose of P, whose k rows
// have Len() entries: dst[i][q] = Σⱼ k(Xᵢ, Yⱼ)·P[q][j], the projections of the points
// on k vectors of coefficients — what a Transform computes. dst is resized to
// rows(X)×k if empty and must otherwise have that shape; X must have Dim() columns.
// ProjectTo panics otherwise, and if the Cross was never Reset. dst must not share
// storage with X, Y or P.
//
// It returns the index of the first row of X with a kernel value that is not finite
// (a point with a NaN or infinite coordinate, an overflowing polynomial kernel, a Func
// that returns NaN, an RBF whose 2σ² underflows), or −1. Such a row's products are
// not finite either; the other rows' are the products of their kernel values.
//
// For an RBF kernel each row of the block is multiplied by P as soon as its
// exponentials are computed, on the goroutine that computed it, while the row is in
// the first-level cache — with OpenBLAS on AVX2 in the same vectorised pass as the
// exponentials (internal/rbfrow), otherwise by one dgemv. The block is not read
// back from memory, and the products took 7% of a Transform's processor time (perf, at
// d = 123), where one dgemm with P's few columns took a fifth of the block's time. The other kernels, blocks with points
// that are not finite, and a Cross made by NewCrossNoCopy, are a block by BlockTo, then
// one dgemm. docs/design.md, "Kernel blocks".
//
// With a BlockWork that has served a block as large, ProjectTo does not allocate; a
// nil work allocates its own.
func (c *Cross) ProjectTo(dst, X, P *mat.Dense, work *BlockWork) int {
	if work == nil {
		work = new(BlockWork)
	}
	x := c.points(X, "ProjectTo")
	if P.IsEmpty() {
		panic("kernel: Cross.ProjectTo: empty P")
	}
	p := P.RawMatrix()
	if p.Cols != c.y.Rows {
		panic("kernel: Cross.ProjectTo: P's rows are not of length Len()")
	}
	if dst.IsEmpty() {
		dst.ReuseAs(x.Rows, p.Rows)
	}
	if r, cc := dst.Dims(); r != x.Rows || cc != p.Rows {
		panic(mat.ErrShape)
	}
	b, m := x.Rows, c.y.Rows
	work.kb = resize(work.kb, b*m)
	kb := blas64.General{Rows: b, Cols: m, Stride: m, Data: work.kb}
	proj := dst.RawMatrix()
	// A Cross without the copy (NewCrossNoCopy) takes the general route: BlockTo shifts
	// its points a panel at a time, where projectRBF's dgemm takes the copy of them all.
	if c.kind == blockRBF && !c.noCopy && len(c.ybad) == 0 && c.projectRBF(proj, x, p, kb, work) {
		return work.job.first
	}
	c.block(kb, x, work)
	bad := -1
	for i := range b {
		if !vec.Finite(kb.Data[i*m : i*m+m]) {
			bad = i
			break
		}
	}
	native.Gemm(blas.NoTrans, blas.Trans, 1, kb, p, 0, proj)
	return bad
}

// projectRBF is ProjectTo for an RBF kernel: −2·X̃·Ỹᵀ by one dgemm into kb, as
// blockRBF, then each row finished (rbfRow) and projected at once (rbfProjectRows), on
// several goroutines for a large block, the first row with a kernel value that is not
// finite left in work.job.first. It returns false, having done nothing else, if a point
// of X is not finite or so large that its squared norm overflows — a non-finite ‖x̃‖²,
// which replaces a scan of X for NaN and Inf: blockRBF's path handles those points.
func (c *Cross) projectRBF(proj, x, p, kb blas64.General, work *BlockWork) bool {
	b, d, m := x.Rows, x.Cols, c.y.Rows
	work.xs = resize(work.xs, b*d)
	work.xn = resize(work.xn, b)
	shiftRows(work.xs, work.xn, x, c.mu, nil)
	if !vec.Finite(work.xn) {
		return false
	}
	xs := blas64.General{Rows: b, Cols: d, Stride: d, Data: work.xs}
	ys := blas64.General{Rows: m, Cols: d, Stride: d, Data: c.ys}
	native.Gemm(blas.NoTrans, blas.Trans, -2, xs, ys, 0, kb)
	j := &work.job
	nw := workers(b*m, 0, b)
	if nw <= 1 {
		j.first = c.rbfProjectRows(kb, x, work.xn, p, proj, 0, b)
		return true
	}
	j.p, j.proj = p, proj
	j.bad.Store(int64(b))
	j.inParallel(nw, loopRBFProject, c, kb, x, work.xn)
	j.p, j.proj = blas64.General{}, blas64.General{}
	j.first = -1
	if i := int(j.bad.Load()); i < b {
		j.first = i
	}
	return true
}

// rbfProjectRows finishes rows lo…hi−1 of an RBF block in kb (rbfRow) and writes each
// row's products with the rows of p to the same row of proj while the row is in cache.
// It returns the first of those rows with a kernel value that is not finite, or −1:
// such a value makes every product of its row NaN or infinite (IEEE arithmetic; no
// zero is skipped, neither in rbfrow.Finish's sums nor by either BLAS's dgemv), so only a
// row whose products are not all finite is searched.
func (c *Cross) rbfProjectRows(kb, x blas64.General, xn []float64, p, proj blas64.General, lo, hi int) int {
	d, m, k := x.Cols, c.y.Rows, p.Rows
	bad := -1
	for i := lo; i < hi; i++ {
		row := kb.Data[i*kb.Stride : i*kb.Stride+m]
		out := proj.Data[i*proj.Stride : i*proj.Stride+k]
		rbfRow(row, xn[i], c.yn, x.Data[i*x.Stride:i*x.Stride+d], c.y.Data, c.y.Stride, c.scale, c.coef, p, out)
		if bad < 0 && !vec.Finite(out) && !vec.Finite(row) {
			bad = i
		}
	}
	return bad
}
