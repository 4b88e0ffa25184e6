package secular

import (
	"errors"
	"math"
	"testing"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/oracle"
)

// TestErrorKinds calls every exported function and method of the package that returns
// an error with zero-valued and hostile arguments, and checks that each error wraps the
// ikpca kind it belongs to (and no call panics); and that each sentinel error wraps its
// kind.
func TestErrorKinds(t *testing.T) {
	for _, c := range []struct {
		err, kind error
	}{
		{ErrNotConverged, ikpca.ErrNotConverged},
		{ErrNonFinite, ikpca.ErrNonFinite},
		{ErrDimension, ikpca.ErrDimension},
		{ErrArgument, ikpca.ErrArgument},
		{ErrNotSorted, ikpca.ErrArgument},
		{ErrBreakdown, ikpca.ErrNotConverged},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%v does not wrap %v", c.err, c.kind)
		}
	}

	nan, inf := math.NaN(), math.Inf(1)
	delta := make([]float64, 8)
	d, z := []float64{1, 2, 3}, []float64{0.5, 0.5, 0.5}
	var s Solver
	rankOne := func(d, z []float64, rho float64) func() error {
		return func() error { _, err := s.RankOne(d, z, rho); return err }
	}
	arrow := func(d, w []float64, c float64) func() error {
		return func() error { _, err := s.Arrow(d, w, c); return err }
	}
	restrict := func(d, z []float64) func() error {
		return func() error { _, err := s.Restrict(d, z); return err }
	}
	rankOneRoot := func(i int, d, z []float64, rho float64, delta []float64) func() error {
		return func() error { _, _, err := RankOneRoot(i, d, z, rho, delta); return err }
	}
	arrowRoot := func(i int, d, w []float64, c float64, delta []float64) func() error {
		return func() error { _, _, err := ArrowRoot(i, d, w, c, delta); return err }
	}
	restrictRoot := func(i int, d, z, delta []float64) func() error {
		return func() error { _, _, err := RestrictRoot(i, d, z, delta); return err }
	}
	cases := []struct {
		name string
		call func() error
		kind error
	}{
		{"RankOne(nil, z)", rankOne(nil, z, 1), ikpca.ErrDimension},
		{"RankOne short z", rankOne(d, z[:2], 1), ikpca.ErrDimension},
		{"RankOne NaN ρ", rankOne(d, z, nan), ikpca.ErrNonFinite},
		{"RankOne Inf ρ", rankOne(d, z, -inf), ikpca.ErrNonFinite},
		{"RankOne NaN d", rankOne([]float64{1, nan, 3}, z, 1), ikpca.ErrNonFinite},
		{"RankOne Inf z", rankOne(d, []float64{1, inf, 1}, 1), ikpca.ErrNonFinite},
		{"RankOne unsorted", rankOne([]float64{2, 1, 3}, z, 1), ikpca.ErrArgument},
		{"RankOne overflow", rankOne(d, []float64{1e200, 1, 1}, 1e300), ikpca.ErrNonFinite},
		{"Arrow(nil, w)", arrow(nil, z, 1), ikpca.ErrDimension},
		{"Arrow NaN c", arrow(d, z, nan), ikpca.ErrNonFinite},
		{"Arrow Inf w", arrow(d, []float64{1, 1, inf}, 0), ikpca.ErrNonFinite},
		{"Arrow unsorted", arrow([]float64{3, 2, 1}, z, 0), ikpca.ErrArgument},
		{"Arrow overflow", arrow([]float64{1, 2, 3, 4}, []float64{1e308, 1e308, 1e308, 1e308}, 0), ikpca.ErrNonFinite},
		{"Restrict(nil, nil)", restrict(nil, nil), ikpca.ErrArgument},
		{"Restrict short z", restrict(d, z[:1]), ikpca.ErrDimension},
		{"Restrict z = 0", restrict(d, make([]float64, 3)), ikpca.ErrArgument},
		{"Restrict NaN z", restrict(d, []float64{nan, 1, 1}), ikpca.ErrNonFinite},
		{"Restrict unsorted", restrict([]float64{1, 3, 2}, z), ikpca.ErrArgument},
		{"RankOneRoot zero", rankOneRoot(0, nil, nil, 0, nil), ikpca.ErrArgument},
		{"RankOneRoot index", rankOneRoot(3, d, z, 1, delta), ikpca.ErrArgument},
		{"RankOneRoot ρ = 0", rankOneRoot(0, d, z, 0, delta), ikpca.ErrArgument},
		{"RankOneRoot NaN ρ", rankOneRoot(0, d, z, nan, delta), ikpca.ErrArgument},
		{"RankOneRoot short z", rankOneRoot(0, d, z[:2], 1, delta), ikpca.ErrDimension},
		{"RankOneRoot short delta", rankOneRoot(0, d, z, 1, delta[:2]), ikpca.ErrDimension},
		{"RankOneRoot equal poles", rankOneRoot(0, []float64{1, 1, 3}, z, 1, delta), ikpca.ErrArgument},
		{"RankOneRoot zero weight", rankOneRoot(0, d, []float64{1, 0, 1}, 1, delta), ikpca.ErrArgument},
		{"RankOneRoot overflow", rankOneRoot(0, d, []float64{1e200, 1, 1}, 1e300, delta), ikpca.ErrNonFinite},
		{"ArrowRoot zero, index −1", arrowRoot(-1, nil, nil, 0, nil), ikpca.ErrArgument},
		{"ArrowRoot index", arrowRoot(4, d, z, 1, delta), ikpca.ErrArgument},
		{"ArrowRoot NaN c", arrowRoot(0, d, z, nan, delta), ikpca.ErrNonFinite},
		{"ArrowRoot NaN d", arrowRoot(0, []float64{nan, 2, 3}, z, 1, delta), ikpca.ErrNonFinite},
		{"ArrowRoot short w", arrowRoot(0, d, z[:1], 1, delta), ikpca.ErrDimension},
		{"RestrictRoot zero", restrictRoot(0, nil, nil, nil), ikpca.ErrArgument},
		{"RestrictRoot index", restrictRoot(2, d, z, delta), ikpca.ErrArgument},
		{"RestrictRoot Inf z", restrictRoot(0, d, []float64{1, inf, 1}, delta), ikpca.ErrNonFinite},
		{"RestrictRoot unsorted", restrictRoot(0, []float64{3, 2, 1}, z, delta), ikpca.ErrArgument},
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", c.name, r)
				}
			}()
			return c.call()
		}()
		if !errors.Is(err, c.kind) {
			t.Errorf("%s = %v, want an error wrapping %v", c.name, err, c.kind)
		}
	}

	// Non-convergence: the iteration cap on LAPACK issue #1166's poles.
	p := oracle.Issue1166
	s.MaxIterations = 2
	if _, err := s.RankOne(p.D, p.Z, p.Rho); !errors.Is(err, ikpca.ErrNotConverged) {
		t.Errorf("RankOne with 2 iterations = %v, want an error wrapping ikpca.ErrNotConverged", err)
	}
}
