package native

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
)

// The functions of this file are the BLAS and LAPACK routines the library's hot paths
// need, in the idiom of gonum's blas64 and lapack64 packages (same arguments, same
// semantics), but calling the compiled-in backend directly: OpenBLAS in the openblas
// build, gonum's pure-Go code otherwise, whether or not [Use] was called. Like blas64's,
// they panic on inconsistent dimensions: they are for callers that have checked their
// arguments.

// blasImpl is the BLAS every function of this package calls: the compiled-in one, or
// gonum's while a test runs internal/backend.WithGonum.
func blasImpl() blas.Float64 {
	if backend.Gonum() {
		return gonumblas.Implementation{}
	}
	return compiledBLAS()
}

// lapackImpl is the LAPACK that Gesvd calls, chosen like blasImpl.
func lapackImpl() lapack.Float64 {
	if backend.Gonum() {
		return gonumlapack.Implementation{}
	}
	return compiledLAPACK()
}

// Gemm computes C = alpha*op(A)*op(B) + beta*C, where op(X) is X or Xᵀ
// according to tA and tB, with the compiled-in backend called directly
// (OpenBLAS dgemm in the openblas build, gonum's Dgemm otherwise),
// independently of [Use]. Like blas64.Gemm, the sizes are taken from a and b,
// and inconsistent dimensions panic.
//
// A product of a tall matrix — C = op(A)·op(B) with C's rows, or for C = Aᵀ·op(B) the
// inner dimension, in the thousands and at least eight times its other dimensions — is
// split into chunks of rows computed on several goroutines, each a single-threaded call
// (docs/design.md, "Who owns the cores"). The chunks do not depend on the number of
// threads, nor therefore does the result.
func Gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	var m, n, k int
	if tA == blas.NoTrans {
		m, k = a.Rows, a.Cols
	} else {
		m, k = a.Cols, a.Rows
	}
	if tB == blas.NoTrans {
		n = b.Cols
	} else {
		n = b.Rows
	}
	if c.Rows != m || c.Cols != n {
		panic(fmt.Sprintf("native: Gemm: C is %d×%d, want %d×%d", c.Rows, c.Cols, m, n))
	}
	if kind := splitOf(tA, m, n, k); kind != splitNone && alpha != 0 {
		gemmSplit(kind, tA, tB, alpha, a, b, beta, c, k)
		return
	}
	blasImpl().Dgemm(tA, tB, m, n, k, alpha, a.Data, a.Stride, b.Data, b.Stride, beta, c.Data, c.Stride)
}

// Gemv computes y = alpha*op(A)*x + beta*y, where op(A) is A or Aᵀ according to t,
// like blas64.Gemv but with the compiled-in backend (dgemv). A tall A is split into
// chunks of rows on several goroutines, as Gemm splits its products.
func Gemv(t blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector) {
	if splitVector(a.Rows, a.Cols, x.Inc, y.Inc) && alpha != 0 {
		gemvSplit(t, alpha, a, x.Data, beta, y.Data)
		return
	}
	blasImpl().Dgemv(t, a.Rows, a.Cols, alpha, a.Data, a.Stride, x.Data, x.Inc, beta, y.Data, y.Inc)
}

// Ger performs the rank-one update A += alpha*x*yᵀ, like blas64.Ger but with the
// compiled-in backend (dger). A tall A is split into chunks of rows on several
// goroutines, as Gemm splits its products.
func Ger(alpha float64, x, y blas64.Vector, a blas64.General) {
	if splitVector(a.Rows, a.Cols, x.Inc, y.Inc) && alpha != 0 {
		gerSplit(alpha, x.Data, y.Data, a)
		return
	}
	blasImpl().Dger(a.Rows, a.Cols, alpha, x.Data, x.Inc, y.Data, y.Inc, a.Data, a.Stride)
}

// Symv computes y = alpha*A*x + beta*y for the symmetric matrix A, like blas64.Symv
// but with the compiled-in backend (dsymv).
func Symv(alpha float64, a blas64.Symmetric, x blas64.Vector, beta float64, y blas64.Vector) {
	blasImpl().Dsymv(a.Uplo, a.N, alpha, a.Data, a.Stride, x.Data, x.Inc, beta, y.Data, y.Inc)
}

// Syr performs the symmetric rank-one update A += alpha*x*xᵀ on the triangle a.Uplo
// of A, like blas64.Syr but with the compiled-in backend (dsyr).
func Syr(alpha float64, x blas64.Vector, a blas64.Symmetric) {
	blasImpl().Dsyr(a.Uplo, a.N, alpha, x.Data, x.Inc, a.Data, a.Stride)
}

// Syrk performs the symmetric rank-k update C = alpha*A*Aᵀ + beta*C (t == NoTrans) or
// C = alpha*Aᵀ*A + beta*C (t == Trans) on the triangle c.Uplo of C, like blas64.Syrk
// but with the compiled-in backend (dsyrk). The Gram matrix Aᵀ·A of a tall A — its
// rows in the thousands and at least eight times its columns — is split as Gemm splits
// a reduction: chunks of rows on several goroutines, each chunk's triangle a
// single-threaded dsyrk of its own, the triangles then added in their order, so that
// the result does not depend on the number of threads. It is half the flops of the
// dgemm Aᵀ·A: of 19,020×64, 2.7–2.9 ms against 4.0–4.2 ms on one thread with OpenBLAS,
// 12 ms against 18.6 ms in pure Go.
func Syrk(t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric) {
	n, k := a.Rows, a.Cols
	if t != blas.NoTrans {
		n, k = a.Cols, a.Rows
	}
	if c.N != n {
		panic(fmt.Sprintf("native: Syrk: C is %d×%d, want %d×%d", c.N, c.N, n, n))
	}
	if t != blas.NoTrans && splitOf(blas.Trans, n, n, k) == splitInner && alpha != 0 {
		syrkSplit(alpha, a, beta, c)
		return
	}
	blasImpl().Dsyrk(c.Uplo, t, n, k, alpha, a.Data, a.Stride, beta, c.Data, c.Stride)
}

// Gesvd computes the singular value decomposition A = U·Σ·Vᵀ of the m×n matrix a,
// like lapack64.Gesvd (same jobs, storage, workspace query with lwork == -1, and a
// destroyed a) but with the compiled-in backend: LAPACK dgesvd in the openblas build,
// gonum's Dgesvd otherwise. It returns whether the decomposition converged.
func Gesvd(jobU, jobVT lapack.SVDJob, a, u, vt blas64.General, s, work []float64, lwork int) (ok bool) {
	return lapackImpl().Dgesvd(jobU, jobVT, a.Rows, a.Cols, a.Data, max(1, a.Stride), s,
		u.Data, max(1, u.Stride), vt.Data, max(1, vt.Stride), work, lwork)
}

// Mul sets dst = a·b with one dgemm of the compiled-in backend, like
// (*mat.Dense).Mul, which goes through the blas64 registry: an empty dst is resized,
// otherwise its dimensions must match (Mul panics with mat.ErrShape otherwise, as
// mat does). Operands that are *mat.Dense, or transposes of one, are used in place;
// other mat.Matrix values are copied first. dst may share storage with a or b.
func Mul(dst *mat.Dense, a, b mat.Matrix) {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ac != br {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(ar, bc)
	} else if r, c := dst.Dims(); r != ar || c != bc {
		panic(mat.ErrShape)
	}
	ga, ta := rawOf(a)
	gb, tb := rawOf(b)
	gc := dst.RawMatrix()
	if overlaps(gc, ga) || overlaps(gc, gb) {
		var tmp mat.Dense
		Mul(&tmp, a, b)
		dst.Copy(&tmp)
		return
	}
	if ac == 0 {
		dst.Zero()
		return
	}
	Gemm(ta, tb, 1, ga, gb, 0, gc)
}

// rawOf returns m's storage and whether it is to be read transposed, copying m when it
// is neither a *mat.Dense nor the transpose of one.
func rawOf(m mat.Matrix) (blas64.General, blas.Transpose) {
	if d, ok := m.(*mat.Dense); ok {
		return d.RawMatrix(), blas.NoTrans
	}
	if t, ok := m.(mat.Transpose); ok {
		if d, ok := t.Matrix.(*mat.Dense); ok {
			return d.RawMatrix(), blas.Trans
		}
	}
	return mat.DenseCopyOf(m).RawMatrix(), blas.NoTrans
}

// overlaps reports whether a and b may share storage: whether their slices have the
// same backing array (the same last element of their capacity). Disjoint parts of one
// array count as shared, which only costs Mul a temporary.
func overlaps(a, b blas64.General) bool {
	if cap(a.Data) == 0 || cap(b.Data) == 0 {
		return false
	}
	return &a.Data[:cap(a.Data)][cap(a.Data)-1] == &b.Data[:cap(b.Data)][cap(b.Data)-1]
}
