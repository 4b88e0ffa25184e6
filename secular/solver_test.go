package secular

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/vec"
)

// suite returns random and adversarial problems of the given size, in all three forms
// (ρ > 0, ρ < 0, arrowhead).
func suite(rng *rand.Rand, n int) []problem {
	type gen struct {
		name string
		d, z []float64
	}
	var gens []gen
	add := func(name string, d, z []float64) { gens = append(gens, gen{name, d, z}) }

	add("uniform", uniformPoles(rng, n), normalWeights(rng, n))
	add("cluster1e-9", clusteredPoles(rng, n, 5, 1e-9), normalWeights(rng, n))
	add("cluster1e-12", clusteredPoles(rng, n, 5, 1e-12), normalWeights(rng, n))
	add("cluster1e-15", clusteredPoles(rng, n, 4, 1e-15), normalWeights(rng, n))
	add("kernel", kernelPoles(n), normalWeights(rng, n))
	{
		z := normalWeights(rng, n)
		for i := range z {
			z[i] *= math.Pow(10, -float64(i%17)) // graded: 1 down to 1e-16
		}
		add("graded-weights", uniformPoles(rng, n), z)
	}
	{
		z := normalWeights(rng, n)
		for i := 0; i < n; i += 2 {
			z[i] = 0 // zero weights
		}
		add("zero-weights", uniformPoles(rng, n), z)
	}
	{
		d := uniformPoles(rng, n)
		for i := 1; i < n; i += 3 {
			d[i] = d[i-1] // equal poles
		}
		add("equal-poles", d, normalWeights(rng, n))
	}
	{
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Ldexp(1, i-n/2) // geometric: many binades
		}
		add("geometric", d, normalWeights(rng, n))
	}
	{
		d := make([]float64, n) // all poles equal
		for i := range d {
			d[i] = 0.5
		}
		add("all-equal", d, normalWeights(rng, n))
	}

	var out []problem
	for _, g := range gens {
		for _, rho := range []float64{1, -1, 1e-13, -1e8} {
			out = append(out, problem{name: g.name, d: g.d, z: g.z, rho: rho})
		}
		for _, c := range []float64{0, 0.7, -3, 1e9} {
			out = append(out, problem{name: g.name, arrow: true, d: g.d, z: g.z, c: c})
		}
	}
	return out
}

func TestSolverSuite(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var s Solver
	worstR, worstO := 0.0, 0.0
	for _, n := range []int{1, 2, 3, 4, 5, 8, 17, 40, 120} {
		for _, p := range suite(rng, n) {
			res, err := p.solve(&s)
			if err != nil {
				t.Errorf("%v: %v", p, err)
				continue
			}
			r, o := checkResult(t, p, res)
			worstR, worstO = math.Max(worstR, r), math.Max(worstO, o)
			if res.Stats.MaxIterations > 20 {
				t.Errorf("%v: a root needed %d iterations", p, res.Stats.MaxIterations)
			}
		}
	}
	t.Logf("worst residual %.3g, worst orthogonality %.3g (ε = %.3g)", worstR, worstO, vec.Roundoff)
}

// TestSolverLarge covers sizes where the roots are solved by several goroutines.
func TestSolverLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	solveLarge(t, &Solver{}, func(n int) []problem { return suite(rng, n)[:16] },
		func(p problem, res *Result) { checkResult(t, p, res) })
}

// TestValuesAgainstOracle compares eigenvalues with the high-precision oracle on
// problems without deflation.
func TestValuesAgainstOracle(t *testing.T) {
	if raceEnabled {
		t.Skip("serial sizes: checked without the race detector (see raceEnabled)")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	var s Solver
	worst := 0.0
	compared := 0
	for _, n := range []int{2, 3, 6, 25, 50} {
		for _, p := range suite(rng, n) {
			if !distinct(p.d, p.z) {
				continue
			}
			ref := reference(t, p)
			res, err := p.solve(&s)
			if err != nil {
				t.Errorf("%v: %v", p, err)
				continue
			}
			// The root finder is accurate to a few ε·σ; deflation may move a value by
			// up to its tolerance, 64ε·σ.
			tol := 8.0
			if res.Stats.Deflated > 0 {
				tol = 96
			}
			compared++
			for i, want := range ref.Lambda {
				e := math.Abs(res.Values[i]-want) / (vec.Roundoff * p.scale())
				if res.Stats.Deflated == 0 {
					worst = math.Max(worst, e)
				}
				if e > tol {
					t.Errorf("%v: λ%d = %.17g, oracle %.17g (%.1f ε·σ, %d deflated)", p, i, res.Values[i], want, e, res.Stats.Deflated)
				}
			}
		}
	}
	t.Logf("%d problems, worst eigenvalue error without deflation %.2f ε·σ", compared, worst)
	if compared < 100 { // most of the suite's problems (280 today) have distinct poles
		t.Errorf("only %d problems compared with the oracle", compared)
	}
}

// TestIssue1166 is the problem of LAPACK issue #1166, on which dlaed4 fails to
// converge for root 22 (LAPACK's I = 23). All roots must converge and match the oracle,
// and the vectors must be orthogonal despite the cluster of poles near 1.3686e-4.
func TestIssue1166(t *testing.T) {
	p := problem{name: "issue1166", d: oracle.Issue1166.D, z: oracle.Issue1166.Z, rho: oracle.Issue1166.Rho}
	ref, err := oracle.RankOne(p.d, p.z, p.rho)
	if err != nil {
		t.Fatal(err)
	}
	var s Solver
	res, err := s.RankOne(p.d, p.z, p.rho)
	if err != nil {
		t.Fatal(err)
	}
	r, o := checkResult(t, p, res)
	t.Logf("residual %.3g, orthogonality %.3g, iterations %d (max %d), deflated %d",
		r, o, res.Stats.Iterations, res.Stats.MaxIterations, res.Stats.Deflated)
	if o > 1e-14 {
		t.Errorf("orthogonality %.3g", o)
	}
	for i, want := range ref.Lambda {
		if d := math.Abs(res.Values[i] - want); d > 4*vec.Roundoff*p.scale() {
			t.Errorf("λ%d = %.17g, oracle %.17g", i, res.Values[i], want)
		}
	}
	delta := make([]float64, len(p.d))
	lambda, iters, err := RankOneRoot(22, p.d, p.z, p.rho, delta)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("root 22: %.17g in %d iterations (oracle %.17g)", lambda, iters, ref.Lambda[22])
	if lambda != ref.Lambda[22] {
		t.Errorf("root 22 = %.17g, oracle %.17g", lambda, ref.Lambda[22])
	}
}

// TestScaleInvariance multiplies problems by 2^±300: eigenvalues must scale exactly and
// the vectors and deflation decisions must not change.
func TestScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var s1, s2 Solver
	for _, p := range suite(rng, 30) {
		res1, err := p.solve(&s1)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []int{300, -300} {
			f := math.Ldexp(1, e)
			q := p
			q.d = scaled(p.d, f)
			if p.arrow {
				q.z = scaled(p.z, f)
				q.c = p.c * f
			} else {
				q.rho = p.rho * f
			}
			res2, err := q.solve(&s2)
			if err != nil {
				t.Fatalf("%v ×2^%d: %v", p, e, err)
			}
			checkScaled(t, p, e, res1, res2, f)
		}
	}
}

func scaled(x []float64, f float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * f
	}
	return y
}

// TestParallelDeterminism checks that the goroutine split does not change a single bit.
func TestParallelDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	serial := Solver{Workers: 1}
	parallel := Solver{Workers: 4, Serial: 1}
	for _, p := range suite(rng, 97)[:24] {
		checkSplit(t, p, &serial, &parallel)
	}
}

// TestDeflation checks the deflation rules on hand-made cases.
func TestDeflation(t *testing.T) {
	var s Solver
	// A negligible update changes nothing.
	d := []float64{1, 2, 3}
	res, err := s.RankOne(d, []float64{1, 1, 1}, 1e-30)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Values, d) || res.K != 0 || res.Stats.Deflated != 3 {
		t.Errorf("negligible update: values %v, K %d, deflated %d", res.Values, res.K, res.Stats.Deflated)
	}
	// A zero weight deflates its pole unchanged, unrotated.
	res, err = s.RankOne(d, []float64{1, 0, 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Deflated != 1 || res.Stats.Rotated != 0 || !slices.Contains(res.Values, 2.0) {
		t.Errorf("zero weight: %+v, values %v", res.Stats, res.Values)
	}
	// Two equal poles: one rotation, one deflated eigenvalue at the pole.
	res, err = s.RankOne([]float64{1, 2, 2, 3}, []float64{1, 1, 1, 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Rotated != 1 || res.Stats.Deflated != 1 || !slices.Contains(res.Values, 2.0) {
		t.Errorf("equal poles: %+v, values %v", res.Stats, res.Values)
	}
	checkResult(t, problem{name: "equal", d: []float64{1, 2, 2, 3}, z: []float64{1, 1, 1, 1}, rho: 1}, res)
	// An arrowhead with w = 0 is diagonal: all poles deflate and c is the last root.
	res, err = s.Arrow([]float64{-1, 5}, []float64{0, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Values, []float64{-1, 2, 5}) || res.K != 1 {
		t.Errorf("diagonal arrowhead: %v, K %d", res.Values, res.K)
	}
	// The empty arrowhead is [c].
	res, err = s.Arrow(nil, nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Values, []float64{7}) || res.Vectors[0] != 1 {
		t.Errorf("empty arrowhead: %v", res.Values)
	}
	// The empty rank-one problem.
	res, err = s.RankOne(nil, nil, 3)
	if err != nil || len(res.Values) != 0 {
		t.Errorf("empty rank-one: %v %v", res, err)
	}
}

func TestSolverErrors(t *testing.T) {
	var s Solver
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		run  func() error
		want error
	}{
		{"length", func() error { _, err := s.RankOne([]float64{1, 2}, []float64{1}, 1); return err }, ErrDimension},
		{"unsorted", func() error { _, err := s.RankOne([]float64{2, 1}, []float64{1, 1}, 1); return err }, ErrNotSorted},
		{"nan-d", func() error { _, err := s.RankOne([]float64{nan, 1}, []float64{1, 1}, 1); return err }, ErrNonFinite},
		{"inf-z", func() error { _, err := s.RankOne([]float64{0, 1}, []float64{1, inf}, 1); return err }, ErrNonFinite},
		{"nan-rho", func() error { _, err := s.RankOne([]float64{0, 1}, []float64{1, 1}, nan); return err }, ErrNonFinite},
		{"overflow", func() error { _, err := s.RankOne([]float64{0, 1}, []float64{1e200, 1e200}, 1e100); return err }, ErrNonFinite},
		{"arrow-length", func() error { _, err := s.Arrow([]float64{1, 2}, []float64{1}, 1); return err }, ErrDimension},
		{"arrow-nan-c", func() error { _, err := s.Arrow([]float64{1}, []float64{1}, nan); return err }, ErrNonFinite},
		{"arrow-inf-w", func() error { _, err := s.Arrow([]float64{1}, []float64{-inf}, 0); return err }, ErrNonFinite},
		{"arrow-unsorted", func() error { _, err := s.Arrow([]float64{1, 0}, []float64{1, 1}, 0); return err }, ErrNotSorted},
		{"root-index", func() error {
			_, _, err := RankOneRoot(2, []float64{0, 1}, []float64{1, 1}, 1, make([]float64, 2))
			return err
		}, ErrArgument},
		{"root-rho0", func() error {
			_, _, err := RankOneRoot(0, []float64{0, 1}, []float64{1, 1}, 0, make([]float64, 2))
			return err
		}, ErrArgument},
		{"root-zero-weight", func() error {
			_, _, err := RankOneRoot(0, []float64{0, 1}, []float64{1, 0}, 1, make([]float64, 2))
			return err
		}, ErrArgument},
		{"root-equal-poles", func() error {
			_, _, err := RankOneRoot(0, []float64{1, 1}, []float64{1, 1}, 1, make([]float64, 2))
			return err
		}, ErrNotSorted},
		{"root-short-delta", func() error {
			_, _, err := RankOneRoot(0, []float64{0, 1}, []float64{1, 1}, 1, make([]float64, 1))
			return err
		}, ErrDimension},
		{"arrow-root-index", func() error {
			_, _, err := ArrowRoot(3, []float64{0, 1}, []float64{1, 1}, 0, make([]float64, 2))
			return err
		}, ErrArgument},
		{"arrow-root-nan", func() error {
			_, _, err := ArrowRoot(0, []float64{0, 1}, []float64{1, 1}, nan, make([]float64, 2))
			return err
		}, ErrNonFinite},
	}
	for _, c := range cases {
		err := c.run()
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

// TestNotConverged forces the iteration cap and checks that the failure is reported.
func TestNotConverged(t *testing.T) {
	s := Solver{MaxIterations: 1}
	p := problem{d: oracle.Issue1166.D, z: oracle.Issue1166.Z, rho: oracle.Issue1166.Rho}
	if _, err := p.solve(&s); !errors.Is(err, ErrNotConverged) {
		t.Errorf("rank-one: got %v, want ErrNotConverged", err)
	}
	p.arrow, p.c = true, 1e-4
	if _, err := p.solve(&s); !errors.Is(err, ErrNotConverged) {
		t.Errorf("arrow: got %v, want ErrNotConverged", err)
	}
	// The same solver recovers with the default cap.
	s.MaxIterations = 0
	res, err := p.solve(&s)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, p, res)
}

// TestSolverAllocations checks that repeated solves of one size allocate nothing.
func TestSolverAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	d, z := uniformPoles(rng, 400), normalWeights(rng, 400)
	s := Solver{Workers: 2, Serial: 64}
	if _, err := s.Arrow(d, z, 0.5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RankOne(d, z, -0.5); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := s.Arrow(d, z, 0.5); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RankOne(d, z, -0.5); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per solve pair", allocs)
	}
}

// TestReserveAllocations checks that after Reserve(n) the very first solves of order n
// (rank-one) and n+1 (arrowhead on n poles) allocate nothing: Reserve sizes the K×K
// table too.
func TestReserveAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	d, z := uniformPoles(rng, 300), normalWeights(rng, 300)
	var s Solver
	s.Workers = 1
	s.Reserve(300)
	allocs := testing.AllocsPerRun(1, func() {
		if _, err := s.Arrow(d, z, 0.5); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RankOne(d, z, -0.5); err != nil {
			t.Fatal(err)
		}
	})
	// AllocsPerRun warms up with one call first; count that one too.
	first := fewestFirstMallocs(t, func() func() error {
		fresh := &Solver{Workers: 1}
		fresh.Reserve(300)
		return func() error { _, err := fresh.Arrow(d, z, 0.5); return err }
	})
	if allocs != 0 || first != 0 {
		t.Errorf("after Reserve: %v allocations per solve pair, %d in the first arrowhead solve",
			allocs, first)
	}
}
