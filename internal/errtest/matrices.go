package errtest

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// Liar is a mat.Matrix of a caller's own type that lies about its size: the i-th call
// of Dims returns Sizes[i] (the last one from then on), and At returns Value(i, j), by
// default i + j/8, and panics outside the first size's rows and columns, as a matrix
// whose storage has that size would.
type Liar struct {
	Sizes [][2]int
	Value func(i, j int) float64
	calls int
}

// Dims returns the size of the call's turn.
func (l *Liar) Dims() (r, c int) {
	s := l.Sizes[min(l.calls, len(l.Sizes)-1)]
	l.calls++
	return s[0], s[1]
}

// At returns Value(i, j), panicking outside the first size.
func (l *Liar) At(i, j int) float64 {
	if r, c := l.Sizes[0][0], l.Sizes[0][1]; i < 0 || j < 0 || i >= r || j >= c {
		panic(fmt.Sprintf("errtest.Liar: At(%d, %d) outside %d×%d", i, j, r, c))
	}
	if l.Value != nil {
		return l.Value(i, j)
	}
	return float64(i) + float64(j)/8
}

// T returns the transpose.
func (l *Liar) T() mat.Matrix { return mat.Transpose{Matrix: l} }

// Hostile is a matrix of points of dimension d that no function of the module may
// panic on or accept, and the ikpca kind of the error it must get.
type Hostile struct {
	Name string
	New  func() mat.Matrix // a fresh one: a Liar counts its calls of Dims
	Kind error
}

// Matrices returns the hostile matrices of d-dimensional points: sizes negative, beyond
// any array, or changing between calls of Dims, an At that panics, and an At that
// returns NaN. Each must be refused with the kind given, and leave a model as it was.
func Matrices(d int) []Hostile {
	liar := func(sizes ...[2]int) func() mat.Matrix {
		return func() mat.Matrix { return &Liar{Sizes: sizes} }
	}
	return []Hostile{
		{"negative rows", liar([2]int{-1, d}), ikpca.ErrArgument},
		{"negative columns", liar([2]int{3, -d}), ikpca.ErrArgument},
		{"MinInt rows", liar([2]int{math.MinInt, d}), ikpca.ErrArgument},
		{"MaxInt rows", liar([2]int{math.MaxInt, d}), ikpca.ErrArgument},
		{"2⁴⁰ rows", liar([2]int{1 << 40, d}), ikpca.ErrArgument},
		{"rows growing between calls", liar([2]int{3, d}, [2]int{1000, d}), ikpca.ErrArgument},
		{"rows turning negative", liar([2]int{3, d}, [2]int{-5, d}), ikpca.ErrArgument},
		{"columns changing", liar([2]int{3, d}, [2]int{3, d + 1}), ikpca.ErrArgument},
		{"At panics", func() mat.Matrix {
			return &Liar{Sizes: [][2]int{{3, d}}, Value: func(i, j int) float64 { panic("errtest: At refuses") }}
		}, ikpca.ErrArgument},
		{"At returns NaN", func() mat.Matrix {
			return &Liar{Sizes: [][2]int{{3, d}}, Value: func(i, j int) float64 { return math.NaN() }}
		}, ikpca.ErrNonFinite},
	}
}

// Points is a bad matrix of points and the ikpca kind of the error it must get.
type Points struct {
	What string
	X    mat.Matrix
	Kind error
}

// BadPoints returns the bad matrices of points that the error tables of the models give
// to every function that reads a matrix of points: nil and a typed-nil *mat.Dense
// (ErrArgument), an empty *mat.Dense (ErrEmpty), and withNaN, points of the model's
// dimension with a NaN entry (ErrNonFinite).
func BadPoints(withNaN mat.Matrix) []Points {
	var nilDense *mat.Dense
	return []Points{
		{"nil", nil, ikpca.ErrArgument}, {"(*mat.Dense)(nil)", nilDense, ikpca.ErrArgument},
		{"empty", &mat.Dense{}, ikpca.ErrEmpty}, {"a NaN entry", withNaN, ikpca.ErrNonFinite},
	}
}
