package update

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// transform applies the change of basis of the last update to rows of a matrix whose
// columns follow the old eigenvectors: for an update of order n to nn, the new vectors
// are [U, 0; 0, 1]·T (Border) or U·T (RankOne; Remove too, with T of n×(n−1), before it
// deletes a row), and a row x of any matrix expressed in the old basis becomes
// [x, tip]·T, with tip the row's component along the new coordinate (Border only). The
// columns of T are, in the order of the new eigenvalues, either a secular eigenvector
// (a row of res.Vectors over the kept columns and the tip) or a deflated column after
// the deflation rotations.
//
// Without deflation that is one dgemm, written straight into the output. With
// deflation, a pass over the input rows applies the rotations and moves the kept columns
// to the front, the dgemm writes the secular vectors to the front of each output row,
// and a second pass spreads them to their sorted positions, filling the deflated columns
// in between. The dgemm covers only the kept block: k×k instead of n×n.
type transform struct {
	res   *secular.Result
	n     int
	order []int     // basis columns in permuted order: kept first, then deflated
	place []int     // place[c]: position of deflated column c in the permuted order
	row   []float64 // one row, for the permutation pass
}

// reserve makes room for updates of order up to n.
func (t *transform) reserve(n int) {
	if cap(t.order) < n {
		t.order = make([]int, n, headroom(n))
		t.place = make([]int, n, headroom(n))
		t.row = make([]float64, n, headroom(n))
	}
}

// setup prepares the transformation of res, an update of order n.
func (t *transform) setup(res *secular.Result, n int) {
	t.res, t.n = res, n
	t.reserve(n)
	t.order, t.place, t.row = t.order[:n], t.place[:n], t.row[:n]
	copy(t.order, res.Keep)
	p := len(res.Keep)
	for _, src := range res.Source {
		if src < 0 {
			c := -1 - src
			t.place[c] = p
			t.order[p] = c
			p++
		}
	}
}

// headroom is the capacity allocated for n elements: 25 % more, so that a size growing
// one by one reallocates only now and then.
func headroom(n int) int { return n + n/4 + 16 }

// deflates reports whether the update deflated anything.
func (t *transform) deflates() bool {
	return len(t.res.Rotations) > 0 || len(t.res.Keep) < t.n
}

// apply writes [in_i, tip_i]·T into row i of out, for the rows of in (rows × n, row
// stride inStride; its contents are destroyed when the update deflated). tip may be nil
// (all zero). out has room for rows × len(res.Values) with row stride outStride.
func (t *transform) apply(rows int, in []float64, inStride int, tip []float64, out []float64, outStride int) {
	t.applyFrom(0, rows, in, inStride, tip, out, outStride)
}

// applyFrom is apply restricted to the columns of T from position from on (the
// largest eigenvalues: a truncation keeps them), written to columns 0, 1, … of out,
// which needs room for len(res.Values) − from of them. Only the secular vectors among
// those columns enter the dgemm.
func (t *transform) applyFrom(from, rows int, in []float64, inStride int, tip []float64, out []float64, outStride int) {
	if rows == 0 {
		return
	}
	res := t.res
	k := len(res.Keep)
	r0 := t.firstRoot(from)
	K, stride := res.K-r0, res.Stride
	v := res.Vectors[r0*stride:]
	arrow := stride > k // the rows of res.Vectors end with the tip component
	dst := blas64.General{Rows: rows, Cols: K, Stride: outStride, Data: out}
	deflates := t.deflates()
	if deflates {
		t.permute(rows, in, inStride)
	}
	if k > 0 && K > 0 {
		native.Gemm(blas.NoTrans, blas.Trans, 1,
			blas64.General{Rows: rows, Cols: k, Stride: inStride, Data: in},
			blas64.General{Rows: K, Cols: k, Stride: stride, Data: v},
			0, dst)
	} else {
		for i := range rows {
			clear(out[i*outStride : i*outStride+K])
		}
	}
	if arrow && tip != nil && K > 0 {
		// The tip column of the input: out += tip·(tip components of the vectors)ᵀ.
		native.Ger(1, blas64.Vector{N: rows, Inc: 1, Data: tip},
			blas64.Vector{N: K, Inc: stride, Data: v[k:]}, dst)
	}
	if deflates {
		t.spread(from, r0, rows, in, inStride, out, outStride)
	}
}

// firstRoot returns the first secular root among the columns of T from position from
// on: the roots ascend with the positions, so the kept roots are r0, …, K−1 (r0 = K
// when none is kept).
func (t *transform) firstRoot(from int) int {
	for _, src := range t.res.Source[from:] {
		if src >= 0 {
			return src
		}
	}
	return t.res.K
}

// tipRow writes the row of T for the new coordinate of a Border: the tip component of
// each secular vector, zero in the deflated columns.
func (t *transform) tipRow(dst []float64) { t.tipRowFrom(0, dst) }

// tipRowFrom is tipRow for the columns of T from position from on.
func (t *transform) tipRowFrom(from int, dst []float64) {
	res := t.res
	k, stride := len(res.Keep), res.Stride
	for q, src := range res.Source[from:] {
		if src >= 0 {
			dst[q] = res.Vectors[src*stride+k]
		} else {
			dst[q] = 0
		}
	}
}

// permute applies the deflation rotations to every row of in and reorders its columns:
// the kept columns first, in the order of res.Keep, then the deflated ones. Working row
// by row keeps all of it in cache; the rotations are column operations, identical on
// every row.
func (t *transform) permute(rows int, in []float64, inStride int) {
	n := t.n
	row := t.row[:n]
	for i := range rows {
		x := in[i*inStride : i*inStride+n]
		for _, g := range t.res.Rotations {
			g.Apply(x)
		}
		for q, c := range t.order {
			row[q] = x[c]
		}
		copy(x, row)
	}
}

// spread moves, in every output row, the secular vectors from the front to their sorted
// positions and fills the deflated columns from the permuted input, for the positions
// from on (output column q − from; the front holds the roots r0, r0+1, …). It works from
// the last position down: root s, at position q, never moves left (s − r0 counts the
// roots at the positions from, …, q−1, so s − r0 ≤ q − from), so nothing is
// overwritten before it is read.
func (t *transform) spread(from, r0, rows int, in []float64, inStride int, out []float64, outStride int) {
	src := t.res.Source[from:]
	nn := len(src)
	for i := range rows {
		o := out[i*outStride : i*outStride+nn]
		x := in[i*inStride:]
		for q := nn - 1; q >= 0; q-- {
			if s := src[q]; s >= 0 {
				o[q] = o[s-r0]
			} else {
				o[q] = x[t.place[-1-s]]
			}
		}
	}
}
