package check

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
)

var (
	errDim   = errors.New("dimension")
	errNaN   = errors.New("non-finite")
	errEmpty = errors.New("empty")
	errArg   = errors.New("argument")
	kinds    = Kinds{Dimension: errDim, NonFinite: errNaN, Empty: errEmpty, Argument: errArg}
)

// TestPoints: each kind of bad input gets its kind; a good matrix, dense or not, passes.
func TestPoints(t *testing.T) {
	good := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	nan := mat.DenseCopyOf(good)
	nan.Set(2, 1, math.NaN())
	inf := mat.DenseCopyOf(good)
	inf.Set(0, 0, math.Inf(-1))
	for _, c := range []struct {
		what string
		X    mat.Matrix
		want error
	}{
		{"good", good, nil},
		{"good, transposed (not a RawMatrixer)", good.T().T(), nil},
		{"a view", good.Slice(1, 3, 0, 2), nil},
		{"nil", nil, errArg},
		{"a nil *mat.Dense", (*mat.Dense)(nil), errArg},
		{"no rows", &mat.Dense{}, errEmpty},
		{"too wide", mat.NewDense(2, 3, nil), errDim},
		{"NaN", nan, errNaN},
		{"-Inf", inf, errNaN},
		{"NaN, transposed", nan.T().T(), errNaN},
	} {
		_, r, err := kinds.Points(c.X, 2)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", c.what, err, c.want)
		}
		if err == nil && r == 0 {
			t.Errorf("%s: %d rows", c.what, r)
		}
	}
	if _, r, c, err := kinds.Data(good); err != nil || r != 3 || c != 2 {
		t.Errorf("Data(good): %d×%d, %v", r, c, err)
	}
	for _, X := range []mat.Matrix{nil, &mat.Dense{}, nan} {
		if _, _, _, err := kinds.Data(X); err == nil {
			t.Errorf("Data(%v): no error", X)
		}
	}
}

func TestPointComponentsDst(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want error
	}{{[]float64{1, 2}, nil}, {[]float64{1}, errDim}, {nil, errDim}, {[]float64{math.NaN(), 1}, errNaN}} {
		if err := kinds.Point(c.x, 2); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Point(%v): %v, want %v", c.x, err, c.want)
		}
	}
	for _, c := range []struct {
		k, have int
		want    error
	}{{1, 3, nil}, {3, 3, nil}, {0, 3, errArg}, {4, 3, errArg}, {-1, 3, errArg}, {1, 0, errEmpty}} {
		if err := kinds.Components(c.k, c.have); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Components(%d, %d): %v, want %v", c.k, c.have, err, c.want)
		}
	}
	for _, c := range []struct {
		dst  *mat.Dense
		want error
	}{{&mat.Dense{}, nil}, {mat.NewDense(2, 3, nil), nil}, {nil, errArg}, {mat.NewDense(3, 2, nil), errDim}} {
		if err := kinds.Dst(c.dst, 2, 3); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Dst: %v, want %v", err, c.want)
		}
	}
}

// TestRoomVectors: the dst rules of Values and VectorsTo.
func TestRoomVectors(t *testing.T) {
	long := make([]float64, 5)
	if got := Room(long, 3); len(got) != 3 || &got[0] != &long[0] {
		t.Error("Room with room did not reuse dst")
	}
	short := make([]float64, 2, 10)
	if got := Room(short, 3); len(got) != 3 || &got[0] == &short[:1][0] {
		t.Error("Room without room (len 2 < 3, capacity 10) reused dst")
	}
	if got := Room(nil, 0); len(got) != 0 {
		t.Error("Room(nil, 0)")
	}
	var d mat.Dense
	if Vectors(&d, 4, 0) || !d.IsEmpty() {
		t.Error("Vectors with no columns resized dst")
	}
	if !Vectors(&d, 4, 2) {
		t.Error("Vectors of an empty dst")
	}
	if r, c := d.Dims(); r != 4 || c != 2 {
		t.Errorf("Vectors resized to %d×%d", r, c)
	}
	// Another shape: a new matrix, the old storage (here a view of a parent) untouched.
	parent := mat.NewDense(4, 4, nil)
	view := parent.Slice(0, 2, 0, 2).(*mat.Dense)
	if !Vectors(view, 3, 3) {
		t.Error("Vectors of a dst of another shape")
	}
	if r, c := view.Dims(); r != 3 || c != 3 {
		t.Errorf("Vectors of a dst of another shape: %d×%d, want 3×3", r, c)
	}
	view.Set(2, 2, 7)
	if mat.Sum(parent) != 0 {
		t.Error("Vectors wrote into the parent of a view of another shape")
	}
	same := mat.NewDense(3, 3, nil)
	if !Vectors(same, 3, 3) || same.RawMatrix().Data == nil {
		t.Error("Vectors of a dst of the right shape")
	}
	if Vectors(nil, 3, 3) {
		t.Error("Vectors(nil) has somewhere to write")
	}
	if Vectors(same, 3, 0) || !same.IsEmpty() {
		t.Error("Vectors of a non-empty dst for no columns: want it emptied")
	}
}

// TestNewKinds: each error wraps the ikpca error of its name (and no other) under the
// package's name.
func TestNewKinds(t *testing.T) {
	k := NewKinds("pkg")
	for _, c := range []struct {
		got, want error
	}{
		{k.Dimension, ikpca.ErrDimension},
		{k.NonFinite, ikpca.ErrNonFinite},
		{k.Empty, ikpca.ErrEmpty},
		{k.Argument, ikpca.ErrArgument},
	} {
		if !errors.Is(c.got, c.want) || c.got.Error() != "pkg: "+c.want.Error() {
			t.Errorf("%v does not wrap %v as pkg's", c.got, c.want)
		}
		for _, other := range []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument} {
			if other != c.want && errors.Is(c.got, other) {
				t.Errorf("%v also wraps %v", c.got, other)
			}
		}
	}
}

// TestFloats: sizes whose product fits are counted; a negative size, a product beyond
// MaxFloats and one that would overflow int are Argument errors naming the sizes.
func TestFloats(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		want  int
		ok    bool
	}{
		{nil, 1, true},
		{[]int{3, 4}, 12, true},
		{[]int{0, math.MaxInt}, 0, true},
		{[]int{MaxFloats}, MaxFloats, true},
		{[]int{MaxFloats + 1}, 0, false},
		{[]int{1 << 20, 1<<10 + 1}, 0, false},
		{[]int{math.MaxInt, math.MaxInt}, 0, false},
		{[]int{1 << 40, 1 << 40}, 0, false}, // the product wraps to 0 in int
		{[]int{5, -1}, 0, false},
	} {
		n, err := kinds.Floats("the table", c.sizes...)
		switch {
		case c.ok && (err != nil || n != c.want):
			t.Errorf("%v: %d, %v; want %d", c.sizes, n, err, c.want)
		case !c.ok && !errors.Is(err, errArg):
			t.Errorf("%v: %d, %v; want an argument error", c.sizes, n, err)
		case !c.ok && !strings.Contains(err.Error(), "the table ("):
			t.Errorf("%v: %v does not name the array and its sizes", c.sizes, err)
		}
	}
}

// TestDim: a dimension from 1 to MaxFloats is accepted; below 1 or beyond, an Argument
// error that names the dimension.
func TestDim(t *testing.T) {
	for _, d := range []int{1, 2, MaxFloats} {
		if err := kinds.Dim(d); err != nil {
			t.Errorf("Dim(%d): %v", d, err)
		}
	}
	for _, d := range []int{0, -1, math.MinInt, MaxFloats + 1, math.MaxInt} {
		err := kinds.Dim(d)
		if !errors.Is(err, errArg) || !strings.Contains(err.Error(), strconv.Itoa(d)) {
			t.Errorf("Dim(%d): %v, want an argument error naming it", d, err)
		}
	}
}

// TestIsNil: nil and every typed nil are nil, without allocating; a value, a non-nil
// pointer and an empty but non-nil slice or map are not.
func TestIsNil(t *testing.T) {
	type fn func()
	var (
		nilDense *mat.Dense
		nilSlice []float64
		nilMap   map[int]int
		nilFunc  fn
		nilChan  chan int
		nilIface mat.Matrix
	)
	for _, c := range []struct {
		what string
		x    any
		want bool
	}{
		{"nil", nil, true},
		{"a nil interface", nilIface, true},
		{"(*mat.Dense)(nil)", nilDense, true},
		{"a nil *mat.Dense in a mat.Matrix", mat.Matrix(nilDense), true},
		{"a nil slice", nilSlice, true},
		{"a nil map", nilMap, true},
		{"a nil func", nilFunc, true},
		{"a nil chan", nilChan, true},
		{"&mat.Dense{}", &mat.Dense{}, false},
		{"an empty slice", []float64{}, false},
		{"an empty map", map[int]int{}, false},
		{"a struct", struct{}{}, false},
		{"zero", 0, false},
		{"a func", TestIsNil, false},
	} {
		if got := IsNil(c.x); got != c.want {
			t.Errorf("IsNil(%s) = %v, want %v", c.what, got, c.want)
		}
	}
	var X mat.Matrix = mat.NewDense(1, 1, nil)
	if n := testing.AllocsPerRun(100, func() { IsNil(X) }); n != 0 {
		t.Errorf("IsNil allocates %v times", n)
	}
}

// rawLiar is a matrix of a caller's own type whose RawMatrix has fewer entries than
// its Dims promise: Matrix must read it through At, never its storage.
type rawLiar struct{ errtest.Liar }

func (r *rawLiar) RawMatrix() blas64.General {
	return blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{1, 2}}
}

// TestMatrixHostile: every hostile matrix (errtest.Matrices) is refused by Points,
// Data and Transform with its kind and without a panic; gonum's own types come back as
// they are, and a caller's type as a copy of what its At returns.
func TestMatrixHostile(t *testing.T) {
	own := NewKinds("own")
	for _, h := range errtest.Matrices(2) {
		for what, call := range map[string]func() error{
			"Points":    func() error { _, _, err := own.Points(h.New(), 2); return err },
			"Data":      func() error { _, _, _, err := own.Data(h.New()); return err },
			"Transform": func() error { _, _, err := own.Transform(&mat.Dense{}, h.New(), 2, 1, 1); return err },
		} {
			err := errtest.Try(t, h.Name, call)
			if err == errtest.ErrPanicked {
				continue
			}
			if !errors.Is(err, h.Kind) || !strings.HasPrefix(fmt.Sprint(err), "own: ") {
				t.Errorf("%s of %s: %v, want an own error wrapping %v", what, h.Name, err, h.Kind)
			}
		}
	}
	good := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	for _, X := range []mat.Matrix{good, good.T(), mat.NewSymDense(2, nil), mat.NewDiagDense(2, []float64{1, 2})} {
		if Y, _, _, err := own.Matrix(X); err != nil || Y != X {
			t.Errorf("Matrix(%T): %v, %v; want it as it is", X, Y, err)
		}
	}
	// A caller's type, honest in Dims and At but not in RawMatrix: copied through At.
	Y, r, c, err := own.Matrix(&rawLiar{errtest.Liar{Sizes: [][2]int{{3, 2}}}})
	if err != nil || r != 3 || c != 2 {
		t.Fatalf("Matrix of an honest caller's type: %d×%d, %v", r, c, err)
	}
	if _, ok := Y.(*mat.Dense); !ok || Y.At(2, 1) != 2+1.0/8 {
		t.Errorf("Matrix of a caller's type: %T with Y[2,1] = %v, want a *mat.Dense copy of At (2.125)", Y, Y.At(2, 1))
	}
	// A transpose of a caller's type is the caller's too: copied, and its lies caught.
	if _, _, _, err := own.Matrix(mat.Transpose{Matrix: &errtest.Liar{Sizes: [][2]int{{-1, 2}}}}); !errors.Is(err, own.Argument) {
		t.Errorf("Matrix of a transposed liar: %v, want an Argument error", err)
	}
	if _, _, _, err := own.Matrix(mat.Transpose{}); !errors.Is(err, own.Argument) {
		t.Errorf("Matrix of a transpose of nothing: %v, want an Argument error", err)
	}
}

// TestRows: Rows copies the rows picked, in pick's order, and reads no other row of X
// (a sample of a large matrix costs the sample); it refuses what Matrix refuses, a nil
// pick and a row outside X, with an Argument error and without a panic.
func TestRows(t *testing.T) {
	own := NewKinds("own")
	read := map[int]bool{}
	X := &errtest.Liar{Sizes: [][2]int{{1000, 3}}, Value: func(i, j int) float64 {
		read[i] = true
		return float64(10*i + j)
	}}
	Y, r, c, err := own.Rows(X, func(r int) []int { return []int{7, 2, r - 1} })
	if err != nil || r != 1000 || c != 3 {
		t.Fatalf("Rows: %d×%d, %v; want 1000×3", r, c, err)
	}
	want := mat.NewDense(3, 3, []float64{70, 71, 72, 20, 21, 22, 9990, 9991, 9992})
	if !mat.Equal(Y, want) {
		t.Errorf("Rows = %v, want %v", mat.Formatted(Y), mat.Formatted(want))
	}
	if len(read) != 3 {
		t.Errorf("Rows read %d rows of X, want the 3 picked", len(read))
	}
	dense := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	if Y, _, _, err := own.Rows(dense, func(int) []int { return []int{1} }); err != nil || !mat.Equal(Y, mat.NewDense(1, 2, []float64{3, 4})) {
		t.Errorf("Rows of a *mat.Dense: %v, %v; want its row 1", Y, err)
	}
	if Y, r, c, err := own.Rows(&mat.Dense{}, nil); err == nil || Y != nil {
		t.Errorf("Rows with a nil pick: %v, %d×%d, %v; want an Argument error", Y, r, c, err)
	}
	for _, pick := range [][]int{{-1}, {3}, {0, 1 << 40}} {
		_, _, _, err := own.Rows(dense, func(int) []int { return pick })
		if !errors.Is(err, own.Argument) {
			t.Errorf("Rows picking %v of 3 rows: %v, want an Argument error", pick, err)
		}
	}
	if Y, r, c, err := own.Rows(&mat.Dense{}, func(int) []int { panic("called") }); err != nil || r != 0 || c != 0 || !Y.IsEmpty() {
		t.Errorf("Rows of an empty matrix: %v, %d×%d, %v; want an empty matrix, pick not called", Y, r, c, err)
	}
	huge := map[string]bool{"MaxInt rows": true, "2⁴⁰ rows": true}
	for _, h := range errtest.Matrices(2) {
		err := errtest.Try(t, h.Name, func() error {
			_, _, _, err := own.Rows(h.New(), func(r int) []int { return []int{0, min(r, 3) - 1} })
			return err
		})
		if err == errtest.ErrPanicked || h.Kind != ikpca.ErrArgument {
			continue // NaN is the caller's to find
		}
		if huge[h.Name] {
			// Sizes beyond any array, whose At answers: a lazy matrix, whose rows picked
			// are read like any other's.
			if err != nil {
				t.Errorf("Rows of %s: %v, want its rows 0 and 2", h.Name, err)
			}
			continue
		}
		if !errors.Is(err, own.Argument) {
			t.Errorf("Rows of %s: %v, want an Argument error", h.Name, err)
		}
	}
}
