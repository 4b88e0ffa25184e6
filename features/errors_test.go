package features

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/kernel"
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
		{"RFF, huge D", func() error { _, err := NewRFF(kernel.RBF{Sigma: 1}, 5, RFFOptions{Dim: huge}); return err }},
		{"RFF, MaxInt−1", func() error { _, err := NewRFF(kernel.RBF{Sigma: 1}, 5, RFFOptions{Dim: math.MaxInt - 1}); return err }},
		{"RFF, random phase, MaxInt", func() error {
			_, err := NewRFF(kernel.RBF{Sigma: 1}, 1, RFFOptions{Dim: math.MaxInt, Form: RandomPhase})
			return err
		}},
		{"RFF, huge d", func() error { _, err := NewRFF(kernel.RBF{Sigma: 1}, huge, RFFOptions{Dim: 2}); return err }},
		{"RFF, d·D/2 beyond 2³⁰", func() error { _, err := NewRFF(kernel.RBF{Sigma: 1}, 1<<16, RFFOptions{Dim: 1 << 16}); return err }},
		{"Quadrature, huge D", func() error {
			_, err := NewQuadrature(kernel.RBF{Sigma: 1}, 5, QuadratureOptions{Dim: huge})
			return err
		}},
		{"Quadrature, huge d", func() error {
			_, err := NewQuadrature(kernel.RBF{Sigma: 1}, huge, QuadratureOptions{Dim: 2})
			return err
		}},
		{"Taylor, huge D", func() error {
			_, err := NewTaylor(kernel.RBF{Sigma: 1}, 5, TaylorOptions{Degree: 2, Dim: huge})
			return err
		}},
		{"Taylor, huge d", func() error { _, err := NewTaylor(kernel.RBF{Sigma: 1}, huge, TaylorOptions{Degree: 2}); return err }},
	} {
		err := c.make()
		if !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("%s: %v, want an ErrArgument", c.name, err)
		}
	}
	_, err := NewRFF(kernel.RBF{Sigma: 1}, 5, RFFOptions{Dim: huge})
	if err == nil || !strings.Contains(err.Error(), "5×50000000000000") {
		t.Errorf("the error does not name the size: %v", err)
	}
}

// TestBatchErrors: Transform's bad arguments get their kinds — a nil destination or
// nil points ErrArgument, no points ErrEmpty, a dimension mismatch (of the points or a
// destination) ErrDimension, NaN ErrNonFinite — and leave dst as it was.
func TestBatchErrors(t *testing.T) {
	rff, err := NewRFF(kernel.RBF{Sigma: 1}, 2, RFFOptions{Dim: 4})
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

// TestErrorKinds: every exported function and method of the package that returns an
// error, given zero-valued and hostile arguments — the zero kernel and zero options,
// kernels Validate refuses (σ and γ both set, negative, NaN, infinite, beyond the
// range), d ≤ 0, nil, empty and NaN points, destinations of the wrong size — returns an
// error that wraps the ikpca kind named and no other, and the package's sentinel of it,
// first; and none panics. The table calls every exported function and method that
// returns an error (Cover reads the source).
func TestErrorKinds(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	rbf := kernel.RBF{Sigma: 1}
	rff, err := NewRFF(rbf, 2, RFFOptions{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	tay, err := NewTaylor(rbf, 2, TaylorOptions{Degree: 2})
	if err != nil {
		t.Fatal(err)
	}
	gq, err := NewQuadrature(rbf, 2, QuadratureOptions{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	type mapper interface {
		Map(dst, x []float64) error
		Transform(dst *mat.Dense, X mat.Matrix) error
		OutDim() int
	}
	var cases errtest.Cases
	add := cases.Add
	badKernels := map[string]kernel.RBF{
		"the zero kernel": {}, "σ and γ": {Sigma: 1, Gamma: 1}, "σ < 0": {Sigma: -1}, "σ NaN": {Sigma: nan},
		"σ infinite": {Sigma: inf}, "γ NaN": {Gamma: nan}, "γ < 0": {Gamma: -2}, "γ infinite": {Gamma: inf},
		"σ = 1e-200": {Sigma: 1e-200}, "γ = 1e308": {Gamma: 1e308},
	}
	for what, k := range badKernels {
		add("NewRFF, "+what, ikpca.ErrArgument, func() error { _, err := NewRFF(k, 2, RFFOptions{Dim: 4}); return err })
		add("NewTaylor, "+what, ikpca.ErrArgument, func() error { _, err := NewTaylor(k, 2, TaylorOptions{Degree: 2}); return err })
		add("NewQuadrature, "+what, ikpca.ErrArgument, func() error {
			_, err := NewQuadrature(k, 2, QuadratureOptions{Dim: 4})
			return err
		})
	}
	for _, d := range []int{0, -1, math.MinInt} {
		add("NewRFF, d ≤ 0", ikpca.ErrArgument, func() error { _, err := NewRFF(rbf, d, RFFOptions{Dim: 4}); return err })
		add("NewTaylor, d ≤ 0", ikpca.ErrArgument, func() error { _, err := NewTaylor(rbf, d, TaylorOptions{Degree: 2}); return err })
		add("NewQuadrature, d ≤ 0", ikpca.ErrArgument, func() error { _, err := NewQuadrature(rbf, d, QuadratureOptions{Dim: 4}); return err })
	}
	add("NewRFF, zero options", ikpca.ErrArgument, func() error { _, err := NewRFF(rbf, 2, RFFOptions{}); return err })
	add("NewRFF, D < 0", ikpca.ErrArgument, func() error { _, err := NewRFF(rbf, 2, RFFOptions{Dim: -4}); return err })
	add("NewRFF, form −1", ikpca.ErrArgument, func() error { _, err := NewRFF(rbf, 2, RFFOptions{Dim: 4, Form: -1}); return err })
	add("NewTaylor, zero options", ikpca.ErrArgument, func() error { _, err := NewTaylor(rbf, 2, TaylorOptions{}); return err })
	add("NewTaylor, Dim < 0", ikpca.ErrArgument, func() error {
		_, err := NewTaylor(rbf, 2, TaylorOptions{Degree: 2, Dim: -1})
		return err
	})
	add("NewQuadrature, odd D", ikpca.ErrArgument, func() error { _, err := NewQuadrature(rbf, 2, QuadratureOptions{Dim: 3}); return err })
	add("NewQuadrature, D < 0", ikpca.ErrArgument, func() error { _, err := NewQuadrature(rbf, 2, QuadratureOptions{Dim: -2}); return err })
	add("NewQuadrature, points < 0", ikpca.ErrArgument, func() error {
		_, err := NewQuadrature(rbf, 2, QuadratureOptions{Dim: 4, Points: -1})
		return err
	})
	for name, m := range map[string]mapper{"RFF": rff, "Taylor": tay, "Quadrature": gq} {
		D := m.OutDim()
		add(name+".Map, nil dst and x", ikpca.ErrDimension, func() error { return m.Map(nil, nil) })
		add(name+".Map, nil x", ikpca.ErrDimension, func() error { return m.Map(make([]float64, D), nil) })
		add(name+".Map, short dst", ikpca.ErrDimension, func() error { return m.Map(make([]float64, D-1), []float64{1, 2}) })
		add(name+".Map, NaN", ikpca.ErrNonFinite, func() error { return m.Map(make([]float64, D), []float64{nan, 2}) })
		add(name+".Map, infinite", ikpca.ErrNonFinite, func() error { return m.Map(make([]float64, D), []float64{1, -inf}) })
		add(name+".Transform, nil dst", ikpca.ErrArgument, func() error { return m.Transform(nil, mat.NewDense(1, 2, nil)) })
		add(name+".Transform, nil X", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, nil) })
		add(name+".Transform, nil *mat.Dense", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, (*mat.Dense)(nil)) })
		add(name+".Transform, zero X", ikpca.ErrEmpty, func() error { return m.Transform(&mat.Dense{}, &mat.Dense{}) })
		add(name+".Transform, wide X", ikpca.ErrDimension, func() error { return m.Transform(&mat.Dense{}, mat.NewDense(1, 3, nil)) })
		add(name+".Transform, NaN", ikpca.ErrNonFinite, func() error {
			return m.Transform(&mat.Dense{}, mat.NewDense(1, 2, []float64{0, nan}))
		})
		add(name+".Transform, wrong dst", ikpca.ErrDimension, func() error {
			return m.Transform(mat.NewDense(1, D+1, nil), mat.NewDense(1, 2, nil))
		})
	}
	errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrNotConverged).Run(t, cases)
	cases.Cover(t, 3)
}

// badMap is a call of a feature map's constructor that must be refused: the kernel, the
// input dimension and options of type O.
type badMap[O any] struct {
	k    kernel.RBF
	d    int
	opts O
}

// refuses checks that newMap, the constructor name, refuses each call of bad with an
// ErrArgument: the tables of TestNewRFFErrors, TestNewTaylorErrors and
// TestNewQuadratureErrors.
func refuses[O any](t *testing.T, name string, newMap func(kernel.RBF, int, O) error, bad []badMap[O]) {
	t.Helper()
	for _, c := range bad {
		if err := newMap(c.k, c.d, c.opts); !errors.Is(err, ErrArgument) {
			t.Errorf("%s(%v, %d, %+v): %v, want ErrArgument", name, c.k, c.d, c.opts, err)
		}
	}
}
