// Package check holds the argument checks every model package makes — a point's
// dimension and finiteness, a matrix of points, a number of components, a destination's
// shape — once, so that kpca, chinsuter and stream reject bad input alike and with the
// error kinds of package ikpca (docs/design.md, "Layout").
//
// A check reports through a package's own sentinel errors (Kinds), each of which wraps
// the ikpca kind of the same name, so that errors.Is holds with both.
package check

import (
	"fmt"
	"math"
	"reflect"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/vec"
)

// Kinds are one package's sentinel errors, each wrapping the ikpca error of the same
// name (for example kpca.ErrDimension wraps ikpca.ErrDimension).
type Kinds struct {
	Dimension, NonFinite, Empty, Argument, Encoding, NotConverged error

	pkg string // the package's name, which begins its errors
}

// NewKinds returns the sentinel errors of package pkg: each wraps the ikpca error of the
// same name under the package's name ("kpca: dimension mismatch" wraps
// ikpca.ErrDimension). The package exports them as its own ErrDimension, ErrNonFinite,
// ErrEmpty, ErrArgument, ErrEncoding and ErrNotConverged, those it can return.
func NewKinds(pkg string) Kinds {
	return Kinds{
		Dimension:    fmt.Errorf("%s: %w", pkg, ikpca.ErrDimension),
		NonFinite:    fmt.Errorf("%s: %w", pkg, ikpca.ErrNonFinite),
		Empty:        fmt.Errorf("%s: %w", pkg, ikpca.ErrEmpty),
		Argument:     fmt.Errorf("%s: %w", pkg, ikpca.ErrArgument),
		Encoding:     fmt.Errorf("%s: %w", pkg, ikpca.ErrEncoding),
		NotConverged: fmt.Errorf("%s: %w", pkg, ikpca.ErrNotConverged),
		pkg:          pkg,
	}
}

// Point reports a point whose length is not d (Dimension) or with a NaN or infinite
// coordinate (NonFinite).
func (e Kinds) Point(x []float64, d int) error {
	if len(x) != d {
		return fmt.Errorf("%w: point has dimension %d, want %d", e.Dimension, len(x), d)
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: coordinate %d is %g", e.NonFinite, j, v)
		}
	}
	return nil
}

// Points checks the rows of X as points of dimension d and returns the matrix to read
// them from (Matrix) and their number: a nil X (nil or a typed nil, IsNil) or one that
// lies about its size is an Argument error, an X without rows Empty, a number of
// columns other than d Dimension, and a NaN or infinite entry NonFinite.
func (e Kinds) Points(X mat.Matrix, d int) (mat.Matrix, int, error) {
	X, r, c, err := e.Matrix(X)
	if err != nil {
		return nil, 0, err
	}
	if r == 0 {
		return nil, 0, fmt.Errorf("%w: no points", e.Empty)
	}
	if c != d {
		return nil, 0, fmt.Errorf("%w: points have dimension %d, the model %d", e.Dimension, c, d)
	}
	if err := e.finite(X, r, c); err != nil {
		return nil, 0, err
	}
	return X, r, nil
}

// Data checks the rows of X as the first points of a model, which set its dimension,
// and returns the matrix to read them from (Matrix) and its size: a nil X or one that
// lies about its size is an Argument error, an X without rows or columns Empty, and a
// NaN or infinite entry NonFinite.
func (e Kinds) Data(X mat.Matrix) (Y mat.Matrix, r, c int, err error) {
	X, r, c, err = e.Matrix(X)
	if err != nil {
		return nil, 0, 0, err
	}
	if r == 0 || c == 0 {
		return nil, 0, 0, fmt.Errorf("%w: points are %d×%d", e.Empty, r, c)
	}
	if err := e.finite(X, r, c); err != nil {
		return nil, 0, 0, err
	}
	return X, r, c, nil
}

// Matrix returns a matrix the caller may read X through, and its size, once X has been
// found to be one: a nil X is an Argument error. A matrix of gonum's own dense, banded,
// triangular, symmetric or diagonal types (or their mat.Transpose) is returned as it
// is, for gonum's types keep to their Dims. Any other type is the caller's own, which
// may report a negative or absurd size, change its size between calls, or panic in At:
// it is read once, through Dims and At, into a *mat.Dense whose size is checked
// (Floats), and a negative size, a size that changes while it is read, or a panic is an
// Argument error naming the type. Only that copy is then read, so that no later Dims
// or At of the caller's type can make a model index out of range (docs/design.md,
// "Hostile input"). An X without rows or columns comes back as an empty *mat.Dense
// with its size, for the caller to refuse.
func (e Kinds) Matrix(X mat.Matrix) (Y mat.Matrix, r, c int, err error) {
	if IsNil(X) {
		return nil, 0, 0, fmt.Errorf("%w: nil points", e.Argument)
	}
	if trusted(X) {
		r, c = X.Dims()
		return X, r, c, nil
	}
	D, r, c, err := e.read(X, nil)
	if err != nil {
		return nil, 0, 0, err
	}
	return D, r, c, nil
}

// Rows returns a copy of the rows of X that pick names, in pick's order, and the size
// of X: pick is given the number of rows r and returns indices in [0, r). X is read as
// Matrix reads a caller's type, gonum's types included, so that a hostile X is refused
// alike, but only the rows picked are copied: a sample of a large matrix costs the
// sample, not the matrix. An X without rows or columns gives an empty *mat.Dense and
// its size, without calling pick.
func (e Kinds) Rows(X mat.Matrix, pick func(r int) []int) (Y *mat.Dense, r, c int, err error) {
	if IsNil(X) {
		return nil, 0, 0, fmt.Errorf("%w: nil points", e.Argument)
	}
	if pick == nil {
		return nil, 0, 0, fmt.Errorf("%w: Rows: nil pick", e.Argument)
	}
	return e.read(X, pick)
}

// read copies the rows of X that pick names (every row for a nil pick) into a new
// *mat.Dense through Dims and At, guarded: a negative size, a size that changes while
// X is read, more values than a slice may hold (Floats) or a panic in X's methods is an
// Argument error naming X's type.
func (e Kinds) read(X mat.Matrix, pick func(r int) []int) (Y *mat.Dense, r, c int, err error) {
	defer func() {
		if p := recover(); p != nil {
			Y, r, c, err = nil, 0, 0, fmt.Errorf("%w: the matrix (%T) panicked when read: %v", e.Argument, X, p)
		}
	}()
	r, c = X.Dims()
	if r < 0 || c < 0 {
		return nil, 0, 0, fmt.Errorf("%w: the matrix (%T) reports %d×%d", e.Argument, X, r, c)
	}
	if r == 0 || c == 0 {
		return &mat.Dense{}, r, c, nil
	}
	n := r
	var rows []int
	if pick != nil {
		rows = pick(r)
		n = len(rows)
		for _, i := range rows {
			if i < 0 || i >= r {
				return nil, 0, 0, fmt.Errorf("%w: row %d picked of a %d×%d matrix", e.Argument, i, r, c)
			}
		}
		if n == 0 {
			return &mat.Dense{}, r, c, nil
		}
	}
	if _, err := e.Floats(fmt.Sprintf("the matrix (%T)", X), n, c); err != nil {
		return nil, 0, 0, err
	}
	D := mat.NewDense(n, c, nil)
	raw := D.RawMatrix()
	for p := range n {
		i := p
		if rows != nil {
			i = rows[p]
		}
		row := raw.Data[p*raw.Stride : p*raw.Stride+c]
		for j := range row {
			row[j] = X.At(i, j)
		}
	}
	if r2, c2 := X.Dims(); r2 != r || c2 != c {
		return nil, 0, 0, fmt.Errorf("%w: the matrix (%T) changed its size from %d×%d to %d×%d while it was read",
			e.Argument, X, r, c, r2, c2)
	}
	return D, r, c, nil
}

// trusted reports whether X is of one of gonum's matrix types, whose Dims are those of
// their storage and whose At stays in it (a transpose of one included).
func trusted(X mat.Matrix) bool {
	switch x := X.(type) {
	case *mat.Dense, *mat.SymDense, *mat.TriDense, *mat.VecDense, *mat.DiagDense, *mat.BandDense,
		*mat.SymBandDense, *mat.TriBandDense, *mat.Tridiag:
		return !IsNil(x)
	case mat.Transpose:
		return !IsNil(x.Matrix) && trusted(x.Matrix)
	}
	return false
}

// finite reports the first NaN or infinite entry of X, r×c (NonFinite).
func (e Kinds) finite(X mat.Matrix, r, c int) error {
	if raw, ok := X.(mat.RawMatrixer); ok {
		// The common case, a *mat.Dense: read its rows directly rather than through
		// At's bounds checks, with vec.Finite's branch-free sums, and look for the
		// culprit only in a row that fails (it was 1.5% of a bulk Transform at d = 123).
		m := raw.RawMatrix()
		for i := range r {
			row := m.Data[i*m.Stride : i*m.Stride+c]
			if vec.Finite(row) {
				continue
			}
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: point %d, coordinate %d is %g", e.NonFinite, i, j, v)
				}
			}
		}
		return nil
	}
	for i := range r {
		for j := range c {
			if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: point %d, coordinate %d is %g", e.NonFinite, i, j, v)
			}
		}
	}
	return nil
}

// Components checks a number k of components requested of a model that has have: a
// model without components is Empty, and k outside [1, have] an Argument error.
func (e Kinds) Components(k, have int) error {
	if have == 0 {
		return fmt.Errorf("%w: the model has no components yet", e.Empty)
	}
	if k < 1 || k > have {
		return fmt.Errorf("%w: %d components requested of %d", e.Argument, k, have)
	}
	return nil
}

// Dst checks a destination matrix for an r×c result: nil is an Argument error, and a
// non-empty dst of another shape a Dimension error. An empty dst passes; Reuse sizes
// it once every check has passed, so that an error leaves it as it was.
func (e Kinds) Dst(dst *mat.Dense, r, c int) error {
	if dst == nil {
		return fmt.Errorf("%w: nil destination", e.Argument)
	}
	if dst.IsEmpty() {
		return nil
	}
	if rr, cc := dst.Dims(); rr != r || cc != c {
		return fmt.Errorf("%w: destination is %d×%d, want %d×%d", e.Dimension, rr, cc, r, c)
	}
	return nil
}

// Transform makes the checks of ikpca.Model.Transform in its order — the points X
// (Points, of dimension d), the number k of components of the have the model holds
// (Components), the destination for the result (Dst) — and returns the matrix to read
// the points from and their number.
func (e Kinds) Transform(dst *mat.Dense, X mat.Matrix, d, k, have int) (mat.Matrix, int, error) {
	X, rows, err := e.Points(X, d)
	if err != nil {
		return nil, 0, err
	}
	if err := e.Components(k, have); err != nil {
		return nil, 0, err
	}
	return X, rows, e.Dst(dst, rows, k)
}

// Vectors prepares dst for an r×c result of a method that cannot fail (VectorsTo,
// Points): a dst of that shape is written in place; an empty dst is resized; a non-empty
// dst of another shape is replaced by a new r×c matrix, as Values allocates a new slice
// for a dst without room — its old storage, and any matrix it was a view of, are left
// untouched, and nothing panics (docs/design.md, "Hostile input"). Vectors returns false,
// with nothing to write, for a nil dst and for an r×c without entries (r or c zero),
// which leaves dst empty.
func Vectors(dst *mat.Dense, r, c int) bool {
	if dst == nil {
		return false
	}
	if !dst.IsEmpty() {
		if rr, cc := dst.Dims(); rr == r && cc == c {
			return true
		}
		*dst = mat.Dense{} // not Reset: a view's storage runs on into its parent's
	}
	if r <= 0 || c <= 0 {
		return false
	}
	dst.ReuseAs(r, c)
	return true
}

// Reuse sizes an empty dst to r×c (a dst that passed Dst already has that shape).
func Reuse(dst *mat.Dense, r, c int) {
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
	}
}

// Room returns dst[:n] if dst has room for n values (len(dst) ≥ n), and a new slice of
// length n otherwise: the rule of ikpca.Model.Values.
func Room(dst []float64, n int) []float64 {
	if len(dst) >= n {
		return dst[:n]
	}
	return make([]float64, n)
}

// IsNil reports whether x is nil, or holds a nil pointer, map, slice, function or
// channel (a typed nil such as (*mat.Dense)(nil) or (*bytes.Buffer)(nil)), whose
// methods would panic or see nothing. It does not allocate.
func IsNil(x any) bool {
	if x == nil {
		return true
	}
	switch v := reflect.ValueOf(x); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return v.IsNil()
	}
	return false
}

// MaxFloats bounds the number of float64 values in one array that a constructor
// allocates from sizes its caller chose (a number of features, of components, of a
// sketch's rows): 2³⁰ values, 8 GiB, or on a 32-bit platform as many as its int can count
// in bytes. Beyond it a size is an Argument error naming it (Floats), never a makeslice
// panic, an overflowing byte count or an out-of-memory crash of the whole process
// (docs/design.md, "Sizes").
const MaxFloats = min(1<<30, math.MaxInt/8)

// Floats returns the number of float64 values, the product of sizes, of the array what
// (as "the components"). A negative size, or a product that exceeds MaxFloats (found
// without overflow), is an Argument error naming what and the sizes.
func (e Kinds) Floats(what string, sizes ...int) (int, error) {
	n := 1
	for _, s := range sizes {
		if s < 0 {
			return 0, fmt.Errorf("%w: %s (%s): a negative size", e.Argument, what, dims(sizes))
		}
		if s != 0 && n > MaxFloats/s {
			return 0, fmt.Errorf("%w: %s (%s) would hold more than %d numbers (%d GiB)",
				e.Argument, what, dims(sizes), MaxFloats, MaxFloats>>27)
		}
		n *= s
	}
	return n, nil
}

// Dim reports a dimension d of points that no model can have: below 1 (a point has at
// least one coordinate) or beyond MaxFloats (a point no array holds, docs/design.md,
// "Sizes"), an Argument error either way.
func (e Kinds) Dim(d int) error {
	if d < 1 {
		return fmt.Errorf("%w: dimension %d, want ≥ 1", e.Argument, d)
	}
	_, err := e.Floats("a point", d)
	return err
}

// dims writes sizes as "3×4".
func dims(sizes []int) string {
	var b []byte
	for i, s := range sizes {
		if i > 0 {
			b = append(b, "×"...)
		}
		b = fmt.Append(b, s)
	}
	return string(b)
}

// PreImage checks the arguments of a model's fixed-point PreImage(dst, X, start, k, opts)
// for points of dimension d and a model of have components: opts (its Validate, as an
// Argument error), X as points (Points), k (Components), dst of X's rows × d (Dst), and
// start, if not nil, as many points as X. It returns X and start as read (a caller's own
// matrix type copied once: Matrix), start being X when nil: what the iteration starts
// from.
func (e Kinds) PreImage(dst *mat.Dense, X, start mat.Matrix, d, k, have int, opts interface{ Validate() error }) (mat.Matrix, mat.Matrix, error) {
	if err := opts.Validate(); err != nil {
		return nil, nil, e.Wrap(err, "")
	}
	X, rows, err := e.Points(X, d)
	if err != nil {
		return nil, nil, err
	}
	if err := e.Components(k, have); err != nil {
		return nil, nil, err
	}
	if err := e.Dst(dst, rows, d); err != nil {
		return nil, nil, err
	}
	if start == nil || IsNil(start) {
		return X, X, nil
	}
	start, sr, err := e.Points(start, d)
	if err != nil {
		return nil, nil, err
	}
	if sr != rows {
		return nil, nil, fmt.Errorf("%w: %d starting points for %d points", e.Dimension, sr, rows)
	}
	return X, start, nil
}
