package features

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// TestHugeSizes: a feature dimension, or input dimension, whose arrays could not be
// allocated (or whose byte count overflows int) is an ErrArgument naming the size, never
// a panic; so are the other bad options, with the ikpca kind.
func TestHugeSizes(t *testing.T) {
	const huge = 100_000_000_000_000
	for _, c := range []struct {
		name string
		make func() error
	}{
		{"RFF, huge D", func() error { _, err := NewRFF(5, RFFOptions{Dim: huge, Sigma: 1}); return err }},
		{"RFF, MaxInt−1", func() error { _, err := NewRFF(5, RFFOptions{Dim: math.MaxInt - 1, Sigma: 1}); return err }},
		{"RFF, random phase, MaxInt", func() error {
			_, err := NewRFF(1, RFFOptions{Dim: math.MaxInt, Sigma: 1, Form: RandomPhase})
			return err
		}},
		{"RFF, huge d", func() error { _, err := NewRFF(huge, RFFOptions{Dim: 2, Sigma: 1}); return err }},
		{"RFF, d·D/2 beyond 2³⁰", func() error { _, err := NewRFF(1<<16, RFFOptions{Dim: 1 << 16, Sigma: 1}); return err }},
		{"Quadrature, huge D", func() error {
			_, err := NewQuadrature(5, QuadratureOptions{Dim: huge, Sigma: 1})
			return err
		}},
		{"Quadrature, huge d", func() error {
			_, err := NewQuadrature(huge, QuadratureOptions{Dim: 2, Sigma: 1})
			return err
		}},
		{"Taylor, huge D", func() error { _, err := NewTaylor(5, TaylorOptions{Degree: 2, Sigma: 1, Dim: huge}); return err }},
		{"Taylor, huge d", func() error { _, err := NewTaylor(huge, TaylorOptions{Degree: 2, Sigma: 1}); return err }},
	} {
		err := c.make()
		if !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("%s: %v, want an ErrArgument", c.name, err)
		}
	}
	_, err := NewRFF(5, RFFOptions{Dim: huge, Sigma: 1})
	if err == nil || !strings.Contains(err.Error(), "5×50000000000000") {
		t.Errorf("the error does not name the size: %v", err)
	}
}

// TestBatchErrors: Transform's bad arguments get their kinds — a nil destination or
// nil points ErrArgument, no points ErrEmpty, a dimension mismatch (of the points or a
// destination) ErrDimension, NaN ErrNonFinite — and leave dst as it was.
func TestBatchErrors(t *testing.T) {
	rff, err := NewRFF(2, RFFOptions{Dim: 4, Sigma: 1})
	if err != nil {
		t.Fatal(err)
	}
	good := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	nan := mat.NewDense(1, 2, []float64{1, math.NaN()})
	for _, c := range []struct {
		name string
		dst  *mat.Dense
		X    mat.Matrix
		want error
	}{
		{"nil destination", nil, good, ErrArgument},
		{"nil points", &mat.Dense{}, nil, ErrArgument},
		{"a nil *mat.Dense", &mat.Dense{}, (*mat.Dense)(nil), ErrArgument},
		{"no points", &mat.Dense{}, &mat.Dense{}, ErrEmpty},
		{"wide points", &mat.Dense{}, mat.NewDense(2, 3, nil), ErrDimension},
		{"a destination of the wrong shape", mat.NewDense(2, 3, nil), good, ErrDimension},
		{"NaN", &mat.Dense{}, nan, ErrNonFinite},
	} {
		if err := rff.Transform(c.dst, c.X); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if c.dst != nil && !c.dst.IsEmpty() && mat.Norm(c.dst, 1) != 0 {
			t.Errorf("%s: the destination changed", c.name)
		}
	}
	if err := rff.Map(make([]float64, 3), []float64{1, 2}); !errors.Is(err, ErrDimension) {
		t.Errorf("Map, short destination: %v", err)
	}
	if err := rff.Map(make([]float64, 4), []float64{1, math.Inf(1)}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("Map, infinite coordinate: %v", err)
	}
}
