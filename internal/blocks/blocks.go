// Package blocks runs the loops that take the rows of a matrix of points a block at a
// time: each block's work — its kernel values against stored points (kernel.Cross: a
// dgemm for the built-in kernels) or its features, then the scores by one dgemm, or for
// an RBF each row's scores as soon as its kernel values are computed
// (kernel.Cross.ProjectTo) — runs at matrix speed, while memory stays at one block
// whatever the number of points
// (docs/design.md, "Kernel blocks"). It is the loop of the Transform of kpca's models
// and of stream's, and of the learned pre-image map's InverseTransform (preimage), and
// NonFinite the error of kpca's and nystrom's for a point whose kernel values or scores
// are not finite.
package blocks

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/kernel"
)

// Size is the number of points in a block: 512 rows of kernel values or features
// (4 MB against 1000 points or features), enough for the dgemm to run at full speed;
// against 256 a bulk Transform gained 2–8% at d = 123 (fewer dgemm calls, each waking
// OpenBLAS's threads and packing the stored points again), and 1024 gained nothing more.
const Size = 512

// KernelBytes bounds a block of kernel values, rows × points held × 8 bytes: a block of
// Size rows is 4 KiB a point held, 287 MB against 70,000 points and 4 GB against a
// million, more than the points themselves at d < 512. Against more than 32,768 points
// (KernelRows) a block takes fewer rows, at least MinRows: each block's dgemm packs the
// points again (for 239 rows against 70,000 points of d = 784, reading them is about a
// tenth of the product's time), the price of a Transform's memory staying that of the
// model plus 128 MiB.
const (
	KernelBytes = 128 << 20
	MinRows     = 16
)

// KernelRows returns the rows of a block of kernel values against n points: Size, or
// fewer, at least MinRows, so that the block stays within KernelBytes.
func KernelRows(n int) int {
	return min(Size, max(MinRows, KernelBytes/(8*max(n, 1))))
}

// Rows calls f with the rows lo…hi−1 of X (d columns), Size at a time, as a
// *mat.Dense: a view when X is a *mat.Dense, otherwise a copy in a buffer allocated on
// the first block. It stops at f's first error and returns it.
func Rows(X mat.Matrix, d int, f func(lo, hi int, xb *mat.Dense) error) error {
	return rowsBy(X, d, Size, f)
}

// rowsBy is Rows, size rows at a time.
func rowsBy(X mat.Matrix, d, size int, f func(lo, hi int, xb *mat.Dense) error) error {
	rows, _ := X.Dims()
	x, dense := X.(*mat.Dense)
	var buf *mat.Dense
	for lo := 0; lo < rows; lo += size {
		hi := min(lo+size, rows)
		var xb *mat.Dense
		if dense {
			xb = x.Slice(lo, hi, 0, d).(*mat.Dense)
		} else {
			if buf == nil {
				buf = mat.NewDense(min(size, rows), d, nil)
			}
			xb = buf.Slice(0, hi-lo, 0, d).(*mat.Dense)
			for i := lo; i < hi; i++ {
				mat.Row(xb.RawRowView(i-lo), i, X)
			}
		}
		if err := f(lo, hi, xb); err != nil {
			return err
		}
	}
	return nil
}

// Scores sets dst to a rows×k matrix of scores of the rows of X (d columns), written by
// f a block at a time: f receives the rows lo…hi−1 as for Rows and writes their scores
// into out, rows lo…hi−1 of the result. The result goes into dst (resized if empty;
// otherwise it must be rows×k, as the callers checked) only when every block
// succeeded: at f's first error Scores returns it and dst is unchanged.
func Scores(dst *mat.Dense, X mat.Matrix, d, k int, f func(lo, hi int, xb, out *mat.Dense) error) error {
	return scoresBy(dst, X, d, k, Size, f)
}

// scoresBy is Scores, size rows at a time.
func scoresBy(dst *mat.Dense, X mat.Matrix, d, k, size int, f func(lo, hi int, xb, out *mat.Dense) error) error {
	rows, _ := X.Dims()
	res := mat.NewDense(rows, k, nil)
	err := rowsBy(X, d, size, func(lo, hi int, xb *mat.Dense) error {
		return f(lo, hi, xb, res.Slice(lo, hi, 0, k).(*mat.Dense))
	})
	if err != nil {
		return err
	}
	check.Reuse(dst, rows, k)
	dst.Copy(res)
	return nil
}

// KernelScores is Scores with f given, instead of the rows, their kernel block
// K(X[lo:hi], Y) against the points Y that c holds: a (hi−lo)×c.Len() matrix whose
// memory the next block reuses, of KernelRows(c.Len()) rows.
func KernelScores(dst *mat.Dense, c *kernel.Cross, X mat.Matrix, k int, f func(lo, hi int, kb, out *mat.Dense) error) error {
	rows, _ := X.Dims()
	n := c.Len()
	size := KernelRows(n)
	buf := mat.NewDense(min(size, rows), n, nil)
	var work kernel.BlockWork
	return scoresBy(dst, X, c.Dim(), k, size, func(lo, hi int, xb, out *mat.Dense) error {
		kb := buf.Slice(0, hi-lo, 0, n).(*mat.Dense)
		c.BlockTo(kb, xb, &work)
		return f(lo, hi, kb, out)
	})
}

// KernelProjections is Scores with f given, instead of the rows, the products
// K(X[lo:hi], Y)·Pᵀ of their kernel block against the points Y that c holds with the
// rows of P (kernel.Cross.ProjectTo: each row projected while it is in cache), already
// in out, and bad, the first of the block's rows (counted from lo) with a kernel value
// that is not finite, or −1. k is P's number of rows. The blocks have
// KernelRows(c.Len()) rows.
func KernelProjections(dst *mat.Dense, c *kernel.Cross, X mat.Matrix, P *mat.Dense, f func(lo, hi, bad int, out *mat.Dense) error) error {
	k, _ := P.Dims()
	var work kernel.BlockWork
	return scoresBy(dst, X, c.Dim(), k, KernelRows(c.Len()), func(lo, hi int, xb, out *mat.Dense) error {
		bad := c.ProjectTo(out, xb, P, &work)
		return f(lo, hi, bad, out)
	})
}

// NonFinite returns the error of a Transform for point i of X, whose kernel values
// against the points c holds (what names them: "point", "landmark") or whose scores are
// not finite, wrapping nonFinite, the package's ErrNonFinite: the first of its kernel
// values that is not finite, evaluated again as a block of one row, or else the
// overflow of its scores.
func NonFinite(nonFinite error, c *kernel.Cross, X mat.Matrix, i int, what string) error {
	x := mat.NewDense(1, c.Dim(), mat.Row(nil, i, X))
	var kx mat.Dense
	c.BlockTo(&kx, x, nil)
	for j, v := range kx.RawRowView(0) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: kernel value of point %d with %s %d is %g", nonFinite, i, what, j, v)
		}
	}
	return fmt.Errorf("%w: the scores of point %d overflow", nonFinite, i)
}
