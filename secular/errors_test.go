package secular

import (
	"math"
	"testing"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/oracle"
)

// TestErrorKinds calls every exported function and method of the package that returns
// an error with zero-valued and hostile arguments, and checks that each error wraps
// exactly the ikpca kind it belongs to and the package's sentinel of it, first (and no
// call panics); and that each sentinel error does.
func TestErrorKinds(t *testing.T) {
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
	var cases errtest.Cases
	cases.Add("RankOne(nil, z)", ikpca.ErrDimension, rankOne(nil, z, 1))
	cases.Add("RankOne short z", ikpca.ErrDimension, rankOne(d, z[:2], 1))
	cases.Add("RankOne NaN ρ", ikpca.ErrNonFinite, rankOne(d, z, nan))
	cases.Add("RankOne Inf ρ", ikpca.ErrNonFinite, rankOne(d, z, -inf))
	cases.Add("RankOne NaN d", ikpca.ErrNonFinite, rankOne([]float64{1, nan, 3}, z, 1))
	cases.Add("RankOne Inf z", ikpca.ErrNonFinite, rankOne(d, []float64{1, inf, 1}, 1))
	cases.Add("RankOne unsorted", ikpca.ErrArgument, rankOne([]float64{2, 1, 3}, z, 1))
	cases.Add("RankOne overflow", ikpca.ErrNonFinite, rankOne(d, []float64{1e200, 1, 1}, 1e300))
	cases.Add("Arrow(nil, w)", ikpca.ErrDimension, arrow(nil, z, 1))
	cases.Add("Arrow NaN c", ikpca.ErrNonFinite, arrow(d, z, nan))
	cases.Add("Arrow Inf w", ikpca.ErrNonFinite, arrow(d, []float64{1, 1, inf}, 0))
	cases.Add("Arrow unsorted", ikpca.ErrArgument, arrow([]float64{3, 2, 1}, z, 0))
	cases.Add("Arrow overflow", ikpca.ErrNonFinite, arrow([]float64{1, 2, 3, 4}, []float64{1e308, 1e308, 1e308, 1e308}, 0))
	cases.Add("Restrict(nil, nil)", ikpca.ErrArgument, restrict(nil, nil))
	cases.Add("Restrict short z", ikpca.ErrDimension, restrict(d, z[:1]))
	cases.Add("Restrict z = 0", ikpca.ErrArgument, restrict(d, make([]float64, 3)))
	cases.Add("Restrict NaN z", ikpca.ErrNonFinite, restrict(d, []float64{nan, 1, 1}))
	cases.Add("Restrict unsorted", ikpca.ErrArgument, restrict([]float64{1, 3, 2}, z))
	cases.Add("RankOneRoot zero", ikpca.ErrArgument, rankOneRoot(0, nil, nil, 0, nil))
	cases.Add("RankOneRoot index", ikpca.ErrArgument, rankOneRoot(3, d, z, 1, delta))
	cases.Add("RankOneRoot ρ = 0", ikpca.ErrArgument, rankOneRoot(0, d, z, 0, delta))
	cases.Add("RankOneRoot NaN ρ", ikpca.ErrArgument, rankOneRoot(0, d, z, nan, delta))
	cases.Add("RankOneRoot short z", ikpca.ErrDimension, rankOneRoot(0, d, z[:2], 1, delta))
	cases.Add("RankOneRoot short delta", ikpca.ErrDimension, rankOneRoot(0, d, z, 1, delta[:2]))
	cases.Add("RankOneRoot equal poles", ikpca.ErrArgument, rankOneRoot(0, []float64{1, 1, 3}, z, 1, delta))
	cases.Add("RankOneRoot zero weight", ikpca.ErrArgument, rankOneRoot(0, d, []float64{1, 0, 1}, 1, delta))
	cases.Add("RankOneRoot overflow", ikpca.ErrNonFinite, rankOneRoot(0, d, []float64{1e200, 1, 1}, 1e300, delta))
	cases.Add("ArrowRoot zero, index −1", ikpca.ErrArgument, arrowRoot(-1, nil, nil, 0, nil))
	cases.Add("ArrowRoot index", ikpca.ErrArgument, arrowRoot(4, d, z, 1, delta))
	cases.Add("ArrowRoot NaN c", ikpca.ErrNonFinite, arrowRoot(0, d, z, nan, delta))
	cases.Add("ArrowRoot NaN d", ikpca.ErrNonFinite, arrowRoot(0, []float64{nan, 2, 3}, z, 1, delta))
	cases.Add("ArrowRoot short w", ikpca.ErrDimension, arrowRoot(0, d, z[:1], 1, delta))
	cases.Add("RestrictRoot zero", ikpca.ErrArgument, restrictRoot(0, nil, nil, nil))
	cases.Add("RestrictRoot index", ikpca.ErrArgument, restrictRoot(2, d, z, delta))
	cases.Add("RestrictRoot Inf z", ikpca.ErrNonFinite, restrictRoot(0, d, []float64{1, inf, 1}, delta))
	cases.Add("RestrictRoot unsorted", ikpca.ErrArgument, restrictRoot(0, []float64{3, 2, 1}, z, delta))
	// The sentinels themselves.
	cases.AddSentinels(map[error]error{
		ErrNotConverged: ikpca.ErrNotConverged, ErrNonFinite: ikpca.ErrNonFinite,
		ErrDimension: ikpca.ErrDimension, ErrArgument: ikpca.ErrArgument, ErrNotSorted: ikpca.ErrArgument,
		ErrBreakdown: ikpca.ErrNotConverged,
	})
	sentinels := errtest.Of(ErrDimension, ErrNonFinite, ErrArgument, ErrNotConverged)
	sentinels.Run(t, cases)

	// Non-convergence: the iteration cap on LAPACK issue #1166's poles.
	p := oracle.Issue1166
	s.MaxIterations = 2
	_, err := s.RankOne(p.D, p.Z, p.Rho)
	if problem := sentinels.Check(err, ikpca.ErrNotConverged); problem != "" {
		t.Errorf("RankOne with 2 iterations: %s", problem)
	}
}

// TestReserveBeyondArrays asks Reserve for orders no table holds, or negative ones: it
// takes nothing (a hint), and the solver then solves as before.
func TestReserveBeyondArrays(t *testing.T) {
	var s Solver
	for _, n := range []int{-1, math.MinInt, math.MaxInt32, 1 << 40, math.MaxInt} {
		s.Reserve(n)
	}
	d, z := []float64{1, 2, 3}, []float64{0.5, 0.5, 0.5}
	var direct Solver
	want, err := direct.RankOne(d, z, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.RankOne(d, z, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Values {
		if got.Values[i] != want.Values[i] {
			t.Errorf("root %d after the Reserves: %v, want %v", i, got.Values[i], want.Values[i])
		}
	}
}
