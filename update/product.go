package update

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/native"
)

// Product is the r×n matrix P = B·U of a matrix B, whose n columns match the rows of a
// Sym's matrix, with the Sym's eigenvectors U. Sym.BorderWith keeps it current without
// B: when A is bordered and B gains a column b, the new P is [P, b]·T with T the
// update's small change of basis (docs/design.md, "Nyström"), one dgemm of P's rows
// times the non-deflated block. Incremental Nyström keeps P = K_nm·U this way.
// Sym.RemoveWith keeps it current when row and column i of A go and B loses its column i
// (a landmark removed from K_nm): P becomes P·T.
//
// Storage is double-buffered and grows geometrically, like Sym's. The zero value is a
// 0×0 product; Reset starts it empty, Mul from a matrix.
type Product struct {
	r, n     int
	p, spare []float64 // r×n, row stride n
	col      []float64 // BorderWith's new column b, when it is not contiguous
}

// Reset makes P an r×0 matrix (a negative r counts as 0): the product for the empty
// (0×0) decomposition, to be grown by BorderWith from the first point on, as Thin.Reset
// makes the empty decomposition of n rows.
func (p *Product) Reset(r int) {
	p.r, p.n, p.p = max(r, 0), 0, p.p[:0]
}

// Mul sets P = B·U for the current decomposition of s, where B is r×n with n = s.Len().
// A nil b or s is an error wrapping ErrArgument, a b of another width ErrDimension and a
// NaN or infinite entry ErrNonFinite; a b of a caller's own type is read once, and one
// that lies about its size or panics when read is an ErrArgument error
// (check.Kinds.Matrix). On error p is unchanged.
func (p *Product) Mul(b mat.Matrix, s *Sym) error {
	if check.IsNil(b) || s == nil {
		return fmt.Errorf("%w: Product.Mul: nil matrix or decomposition", ErrArgument)
	}
	b, r, c, err := kinds.Matrix(b)
	if err != nil {
		return err
	}
	if c != s.n {
		return fmt.Errorf("%w: B has %d columns, the decomposition order %d", ErrDimension, c, s.n)
	}
	if err := finiteMatrix("B", b); err != nil {
		return err
	}
	data := make([]float64, r*c, r*headroom(c))
	if r > 0 && c > 0 {
		dst := mat.NewDense(r, c, data)
		native.Mul(dst, b, s.Vectors())
	}
	p.r, p.n, p.p, p.spare = r, c, data, nil
	return nil
}

// Dims returns the dimensions of P.
func (p *Product) Dims() (r, c int) { return p.r, p.n }

// At returns the element (i, j) of P.
func (p *Product) At(i, j int) float64 {
	if uint(i) >= uint(p.r) || uint(j) >= uint(p.n) {
		panic(mat.ErrIndexOutOfRange)
	}
	return p.p[i*p.n+j]
}

// T returns the transpose of P.
func (p *Product) T() mat.Matrix { return mat.Transpose{Matrix: p} }

// RawRow returns row i of P, sharing storage: valid until the next update.
func (p *Product) RawRow(i int) []float64 {
	if uint(i) >= uint(p.r) {
		panic(mat.ErrRowAccess)
	}
	return p.p[i*p.n : i*p.n+p.n]
}

// To copies P into dst: resized if empty (and left empty when P is), otherwise it must
// be r×n (it panics otherwise, and on a nil dst, as gonum's Copy-style methods do).
func (p *Product) To(dst *mat.Dense) {
	if dst.IsEmpty() {
		if p.r == 0 || p.n == 0 {
			return
		}
		dst.ReuseAs(p.r, p.n)
	} else if r, c := dst.Dims(); r != p.r || c != p.n {
		panic(mat.ErrShape)
	}
	if p.r == 0 || p.n == 0 {
		return
	}
	dst.Copy(mat.NewDense(p.r, p.n, p.p[:p.r*p.n]))
}

// follow applies the last Border's change of basis: P ← [P, b]·T, with b a checked
// vector of p.r entries (copied into p.col when it is not contiguous).
func (p *Product) follow(tr *transform, b mat.Vector) {
	n := p.n
	nn := n + 1
	if need := p.r * nn; cap(p.spare) < need {
		p.spare = make([]float64, need, p.r*headroom(nn))
	}
	if len(p.col) < p.r && !contiguous(b) {
		p.col = make([]float64, p.r) // once: r is fixed for the product's life
	}
	out := p.spare[:p.r*nn]
	tr.apply(p.r, p.p[:p.r*n], n, vectorData(b, p.r, p.col), out, nn)
	p.p, p.spare = out, p.p
	p.n = nn
}

// followRemove applies the last Remove's change of basis: P ← P·T, r×(n−1). The
// removed column b of B would enter only through the deleted row of U·T, which is zero
// to rounding (see Sym.RemoveWith).
func (p *Product) followRemove(tr *transform) {
	nn := p.n - 1
	if need := p.r * nn; cap(p.spare) < need {
		p.spare = make([]float64, need, p.r*headroom(nn))
	}
	out := p.spare[:p.r*nn]
	tr.apply(p.r, p.p[:p.r*p.n], p.n, nil, out, nn)
	p.p, p.spare = out, p.p
	p.n = nn
}

var _ mat.Matrix = (*Product)(nil)
