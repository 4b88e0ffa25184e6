package secular

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/vec"
)

// restriction is a test problem for Solver.Restrict: diag(d) on the hyperplane z⊥.
type restriction struct {
	name string
	d, z []float64
}

func (p restriction) String() string { return fmt.Sprintf("%s/restrict/n=%d", p.name, len(p.d)) }

func (p restriction) solve(s *Solver) (*Result, error) { return s.Restrict(p.d, p.z) }

// restrictions returns random and adversarial restriction problems of size n: the
// generators of suite, and cases of their own (all the weight on one component, a
// weight at the deflation threshold, weights spanning the exponent range).
func restrictions(rng *rand.Rand, n int) []restriction {
	var out []restriction
	seen := map[string]bool{}
	for _, p := range suite(rng, n) {
		if seen[p.name] || vec.MaxAbs(p.z) == 0 {
			continue
		}
		seen[p.name] = true
		out = append(out, restriction{p.name, p.d, p.z})
	}
	add := func(name string, d, z []float64) { out = append(out, restriction{name, d, z}) }
	{
		z := make([]float64, n)
		z[n/2] = -3 // the coordinate is an eigenvector: its eigenvalue goes
		add("one-component", uniformPoles(rng, n), z)
	}
	{
		z := make([]float64, n)
		for i := range z {
			z[i] = 1e-300 // tiny but not negligible: relative weights count
		}
		add("tiny-norm", kernelPoles(n), z)
	}
	{
		z := normalWeights(rng, n)
		z[0] = 1e-17 * vec.Norm(z) // below 64ε: deflates
		if n > 1 {
			z[n-1] = 1e-13 * vec.Norm(z) // above: stays, its root within 1e-26 of the pole
		}
		add("threshold", uniformPoles(rng, n), z)
	}
	{
		z := normalWeights(rng, n)
		for i := range z {
			z[i] = math.Ldexp(z[i], -(i*37)%600) // weights over 180 decades
		}
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Ldexp(1, 600*i/n-300) // poles over 180 decades
		}
		add("dynamic-range", d, z)
	}
	add("zero-matrix", make([]float64, n), normalWeights(rng, n))
	// Clusters of close poles that do not deflate, with weights over ten decades: the
	// roots are accurate but h(μ̂) is not zero, and vectors built from z instead of the
	// Löwner weights lose orthogonality.
	for _, c := range []struct {
		g   int
		gap float64
	}{{6, 5e-7}, {3, 2e-12}, {2, 4e-9}} {
		z := normalWeights(rng, n)
		for i := range z {
			z[i] *= math.Pow(10, -10*rng.Float64())
		}
		add(fmt.Sprintf("cluster%.0e-graded", c.gap), clusteredPoles(rng, n, c.g, c.gap), z)
	}
	return out
}

// loewnerCase is a problem found by a random search of clustered poles and graded
// weights (pairs of poles 4e-9 apart, weights from 0.47 down to 4e-10): the vectors
// (D − μ̂I)⁻¹z built from the original weights are orthogonal only to 8.6e-13, those
// from the Löwner weights to 4.4e-16. TestRestrictSuite includes it, so that a solver
// without the Löwner step fails.
var loewnerCase = restriction{
	name: "loewner",
	d: []float64{-0.9339622683943676, -0.9339622648576313, -0.8828731882063512, -0.8828731848630795,
		-0.839404233816109, -0.839404230637446, -0.7377500158650374, -0.7377500130713194,
		-0.6384317927368022, -0.6384317903191833, -0.1710891348423007, -0.17108913419441893,
		0.015490155340171397, 0.01549015571885224, 0.36105932503078964, 0.3610593263980521,
		0.4210505089349794, 0.42105051052941705, 0.4720453333156742, 0.47204533510321944,
		0.5731469865494156, 0.7531971089587925, 0.7531971118110057, 0.8370275908700657, 0.8370275940397288},
	z: []float64{0.010306974072547123, -1.2946416242997703e-06, 0.01109421336820109, 0.0009452260434993646,
		-1.2844332379931293e-05, 0.4688777026740166, -0.0028721950806424434, 0.002863411460278053,
		-1.6515633156025672e-09, 1.0900101023265102e-05, -7.3120872714838e-05, -3.54754576501975e-10,
		-9.148273796389008e-10, -0.03822290352470771, -2.9918029450065827e-05, -3.4037183063684524e-10,
		1.0356874557915166e-09, -9.544694943485625e-08, 1.3677075659951901e-09, 0.11597408032230379,
		0.0007832260985662523, 0.0001160071337470327, 2.7906864853259207e-10, 0.17766715780321526,
		-2.2005013645147235e-09},
}

// restrictedSpace assembles the n×(n−1) eigenvector matrix Q described by res, in the
// order of res.Values.
func restrictedSpace(res *Result, n int) *mat.Dense {
	return assembleCols(res, n, max(n-1, 1), false)
}

// restrictMeasures returns, for a restriction's result, the residual
// ‖P·D·Q − Q·M‖_F/max|d| of the restricted operator (P = I − uuᵀ, u = z/‖z‖), the
// orthogonality max|QᵀQ − I| and the largest |uᵀq| over the vectors: the entry each
// eigenvector has along the removed direction.
func restrictMeasures(p restriction, res *Result) (residual, orth, along float64) {
	n := len(p.d)
	q := restrictedSpace(res, n)
	// u = z/‖z‖ and the poles scaled exactly as the solver does, so that tiny z stay
	// representable and the residual's squares do not overflow.
	u, d := make([]float64, n), make([]float64, n)
	scale := restrictScale(p.d, p.z, d, u)
	var ss float64
	for c := range n - 1 {
		var dot float64
		for i := range n {
			dot += u[i] * q.At(i, c)
		}
		along = math.Max(along, math.Abs(dot))
		// r = D·q − μ·q − u·(uᵀD·q): the restricted operator's residual.
		var udq float64
		for i := range n {
			udq += u[i] * d[i] * q.At(i, c)
		}
		mu := res.Values[c] / scale
		for i := range n {
			r := d[i]*q.At(i, c) - mu*q.At(i, c) - u[i]*udq
			ss += r * r
		}
	}
	residual = math.Sqrt(ss) / math.Max(vec.MaxAbs(d), math.SmallestNonzeroFloat64)
	if n > 1 {
		var qtq mat.Dense
		qtq.Mul(q.T(), q)
		for i := range n - 1 {
			for j := range n - 1 {
				v := qtq.At(i, j)
				if i == j {
					v--
				}
				orth = math.Max(orth, math.Abs(v))
			}
		}
	}
	return residual, orth, along
}

// restrictTrace is the trace of the restricted matrix, Σd − zᵀDz/‖z‖², in high
// precision.
func restrictTrace(d, z []float64) float64 {
	sum, zdz, zz := new(big.Float).SetPrec(4096), new(big.Float).SetPrec(4096), new(big.Float).SetPrec(4096)
	for j := range d {
		sum.Add(sum, big.NewFloat(d[j]))
		w := new(big.Float).SetPrec(4096).Mul(big.NewFloat(z[j]), big.NewFloat(z[j]))
		zz.Add(zz, w)
		zdz.Add(zdz, w.Mul(w, big.NewFloat(d[j])))
	}
	sum.Sub(sum, zdz.Quo(zdz, zz))
	f, _ := sum.Float64()
	return f
}

// checkRestrictResult asserts the invariants of a restriction: n−1 ascending values,
// residual and orthogonality of order n·ε, vectors orthogonal to z, the trace and
// interlacing with the poles. Tolerances: deflation neglects up to 128ε·max|d| per
// component (see Restrict), the roots and vectors add O(nε) relative to max|d|.
func checkRestrictResult(t *testing.T, p restriction, res *Result) (residual, orth, along float64) {
	t.Helper()
	n := len(p.d)
	if len(res.Values) != n-1 || len(res.Source) != n-1 {
		t.Fatalf("%v: %d values, %d sources, want %d", p, len(res.Values), len(res.Source), n-1)
	}
	if res.K != len(res.Keep)-1 || res.Stride != len(res.Keep) || res.Stats.Size != n-1 ||
		res.Stats.Secular+res.Stats.Deflated != n-1 {
		t.Errorf("%v: K %d, Stride %d, Keep %d, stats %+v", p, res.K, res.Stride, len(res.Keep), res.Stats)
	}
	if !slices.IsSorted(res.Values) {
		t.Errorf("%v: values not ascending: %v", p, res.Values)
	}
	residual, orth, along = restrictMeasures(p, res)
	const tiny = 0x1p-1074
	dmax := vec.MaxAbs(p.d)
	floor := 8 * float64(n) * tiny / math.Max(dmax, tiny)
	tol := float64(n+128)*4*vec.Roundoff + floor
	if !(residual <= tol) {
		t.Errorf("%v: residual %.3g > %.3g", p, residual, tol)
	}
	if !(orth <= float64(n+8)*4*vec.Roundoff) {
		t.Errorf("%v: orthogonality %.3g > %.3g", p, orth, float64(n+8)*4*vec.Roundoff)
	}
	// A deflated vector keeps its weight (≤ 64ε) along z; a secular vector's is the
	// backward error of its Löwner weights, O(nε).
	if !(along <= 64*vec.Roundoff+float64(n+8)*4*vec.Roundoff) {
		t.Errorf("%v: an eigenvector has %.3g along z", p, along)
	}
	var sum float64
	for _, v := range res.Values {
		sum += v
	}
	if d := math.Abs(sum - restrictTrace(p.d, p.z)); d > float64(n+128)*4*vec.Roundoff*dmax*math.Sqrt(float64(n))+8*float64(n)*tiny {
		t.Errorf("%v: Σμ = %.17g, trace %.17g", p, sum, restrictTrace(p.d, p.z))
	}
	slack := 128*vec.Roundoff*dmax + 0x1p-1070
	for i, v := range res.Values {
		if p.d[i] > v+slack || v > p.d[i+1]+slack {
			t.Errorf("%v: interlacing fails at %d: %g ≤ %g ≤ %g", p, i, p.d[i], v, p.d[i+1])
		}
	}
	return residual, orth, along
}

func TestRestrictSuite(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	var s Solver
	var worstR, worstO, worstA float64
	for _, n := range []int{1, 2, 3, 4, 5, 8, 17, 40, 120} {
		problems := restrictions(rng, n)
		if n == 1 {
			problems = append(problems, loewnerCase)
		}
		for _, p := range problems {
			res, err := s.Restrict(p.d, p.z)
			if err != nil {
				t.Errorf("%v: %v", p, err)
				continue
			}
			r, o, a := checkRestrictResult(t, p, res)
			worstR, worstO, worstA = math.Max(worstR, r), math.Max(worstO, o), math.Max(worstA, a)
			if res.Stats.MaxIterations > 20 {
				t.Errorf("%v: a root needed %d iterations", p, res.Stats.MaxIterations)
			}
		}
	}
	t.Logf("worst residual %.3g, orthogonality %.3g, component along z %.3g (ε = %.3g)", worstR, worstO, worstA, vec.Roundoff)
}

// TestRestrictLarge covers sizes where the roots are solved by several goroutines.
func TestRestrictLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	solveLarge(t, &Solver{Workers: 2}, func(n int) []restriction { return restrictions(rng, n) },
		func(p restriction, res *Result) { checkRestrictResult(t, p, res) })
}

// TestRestrictAgainstOracle compares eigenvalues with the high-precision oracle on
// problems without deflation, and RestrictRoot's roots and differences with it. The
// root's condition number κ = Σ|zⱼ²/δⱼ|/Σ zⱼ²/δⱼ² is at most 1/√h'(μ) ≤ 2·max|d| for a
// unit z (Cauchy–Schwarz), so the root finder's stopping rule bounds the error by a
// few ε·max|d| — as for the rank-one problem.
func TestRestrictAgainstOracle(t *testing.T) {
	if raceEnabled {
		t.Skip("serial sizes: checked without the race detector (see raceEnabled)")
	}
	rng := rand.New(rand.NewPCG(85, 86))
	var s Solver
	var worst, worstD float64
	var roots, iters int
	problems := []restriction{{"issue1166", oracle.Issue1166.D, oracle.Issue1166.Z}}
	for _, n := range []int{2, 3, 6, 25, 50} {
		problems = append(problems, restrictions(rng, n)...)
	}
	for _, p := range problems {
		if !distinct(p.d, p.z) {
			continue
		}
		n := len(p.d)
		ref, err := oracle.Restrict(p.d, p.z)
		if err != nil {
			t.Fatalf("%v: oracle: %v", p, err)
		}
		res, err := s.Restrict(p.d, p.z)
		if err != nil {
			t.Errorf("%v: %v", p, err)
			continue
		}
		dmax := vec.MaxAbs(p.d)
		tol := 8.0
		if res.Stats.Deflated > 0 {
			tol = 160 // deflation moves a value by up to 2·64ε·max|d|
		}
		for i, want := range ref.Lambda {
			e := math.Abs(res.Values[i]-want) / (vec.Roundoff * dmax)
			if res.Stats.Deflated == 0 {
				worst = math.Max(worst, e)
			}
			if e > tol {
				t.Errorf("%v: μ%d = %.17g, oracle %.17g (%.1f ε·max|d|, %d deflated)", p, i, res.Values[i], want, e, res.Stats.Deflated)
			}
		}
		if res.Stats.Deflated > 0 {
			// The single-root function expects what deflation leaves: it is not meant for
			// weights that deflation would remove (with weights 1e-150·‖z‖ a root lies
			// 1e-300 from its pole and needs more than 30 iterations to get there).
			continue
		}
		// The single-root function, root by root, with its differences.
		delta := make([]float64, n)
		for i, want := range ref.Lambda {
			mu, it, err := RestrictRoot(i, p.d, p.z, delta)
			if err != nil {
				t.Errorf("%v root %d: %v", p, i, err)
				continue
			}
			roots++
			iters += it
			if e := math.Abs(mu-want) / (vec.Roundoff * dmax); e > 8 {
				t.Errorf("%v root %d: μ = %.17g, oracle %.17g (%.1f ε·max|d|)", p, i, mu, want, e)
			}
			// The differences describe one root to a few ulps each (see
			// TestRootsAgainstOracle): against the oracle's, they differ by the root's
			// own error plus those ulps.
			o := 0
			for j := range delta {
				if math.Abs(delta[j]) < math.Abs(delta[o]) {
					o = j
				}
			}
			rootErr := math.Abs(ref.Delta[i][o] - delta[o])
			for j, dw := range ref.Delta[i] {
				ec := (math.Abs(delta[j]-dw) - 1.01*rootErr) / (vec.Roundoff * math.Abs(dw))
				worstD = math.Max(worstD, ec)
				if ec > 5 {
					t.Errorf("%v root %d: δ%d = %.17g, oracle %.17g; root error %.3g", p, i, j, delta[j], dw, rootErr)
				}
			}
		}
	}
	t.Logf("worst eigenvalue error without deflation %.2f ε·max|d|; %d single roots, %.2f iterations each, worst δ error beyond the root's %.2f ε relative",
		worst, roots, float64(iters)/float64(roots), worstD)
}

// TestRestrictSpecialCases checks the closed forms and the structural cases by hand.
func TestRestrictSpecialCases(t *testing.T) {
	var s Solver
	// n = 1: nothing is left.
	res, err := s.Restrict([]float64{4}, []float64{-0.5})
	if err != nil || len(res.Values) != 0 || res.K != 0 {
		t.Errorf("n = 1: %v, %v", res, err)
	}
	// n = 2: the eigenvector is (−z₂, z₁)/‖z‖, the value its Rayleigh quotient.
	res, err = s.Restrict([]float64{1, 3}, []float64{1, 1})
	if err != nil || !slices.Equal(res.Values, []float64{2}) {
		t.Fatalf("n = 2: %v, %v", res, err)
	}
	if v := res.Vectors[:2]; math.Abs(v[0]+v[1]) > vec.Roundoff || math.Abs(math.Abs(v[0])-math.Sqrt(0.5)) > vec.Roundoff {
		t.Errorf("n = 2: vector %v", v)
	}
	// All the weight on one coordinate: its pole goes, the others stay, unrotated.
	d := []float64{-1, 0.5, 2, 7}
	res, err = s.Restrict(d, []float64{0, 0, 5, 0})
	if err != nil || !slices.Equal(res.Values, []float64{-1, 0.5, 7}) || res.K != 0 || res.Stats.Rotated != 0 {
		t.Errorf("one component: %v, K %d, %+v, %v", res.Values, res.K, res.Stats, err)
	}
	// Equal poles: the restriction of 2·I₂ inside the problem keeps the value 2 once.
	d = []float64{1, 2, 2, 3}
	res, err = s.Restrict(d, []float64{1, 1, 1, 1})
	if err != nil || res.Stats.Rotated != 1 || !slices.Contains(res.Values, 2.0) {
		t.Errorf("equal poles: %v, %+v, %v", res.Values, res.Stats, err)
	}
	checkRestrictResult(t, restriction{"equal", d, []float64{1, 1, 1, 1}}, res)
	// A multiple of the identity restricted is the same multiple, on any hyperplane.
	res, err = s.Restrict([]float64{3, 3, 3, 3, 3}, []float64{1, -2, 0.5, 0, 4})
	if err != nil || !slices.Equal(res.Values, []float64{3, 3, 3, 3}) || res.K != 0 {
		t.Errorf("3·I: %v, %v", res.Values, err)
	}
	// D = 0 with subnormal weights (found by FuzzRemove): they deflate as usual, instead
	// of entering rotations that are not orthogonal.
	p := restriction{"zero-subnormal", make([]float64, 4), []float64{-3.947899146e-315, 0, -2.64098661269693e-310, -1}}
	res, err = s.Restrict(p.d, p.z)
	if err != nil {
		t.Fatal(err)
	}
	checkRestrictResult(t, p, res)
	// A tiny weight on a pole at the centre of two others of equal weight (found by
	// FuzzRemove): near it the far terms cancel to rounding, and the root finder's models
	// cycled between two points 1e-17 and 0.064 from the pole until a step of geometric
	// bisection was added. The roots are ±√(z₁²/4) to first order: ±9.4228e-10.
	p = restriction{"cancelling", []float64{-0.5000000897575827, 3.495108202064753e-77, 0.5000000897575827},
		[]float64{0.7071067811865474, 1.8845585092464034e-09, 0.7071067811865474}}
	res, err = s.Restrict(p.d, p.z)
	if err != nil {
		t.Fatal(err)
	}
	checkRestrictResult(t, p, res)
	ref, err := oracle.Restrict(p.d, p.z)
	if err != nil {
		t.Fatal(err)
	}
	delta := make([]float64, 3)
	for i, want := range ref.Lambda {
		mu, _, err := RestrictRoot(i, p.d, p.z, delta)
		if err != nil || math.Abs(mu-want) > 4*vec.Roundoff || math.Abs(res.Values[i]-want) > 4*vec.Roundoff {
			t.Errorf("cancelling: root %d: %.17g and %.17g, oracle %.17g (%v)", i, mu, res.Values[i], want, err)
		}
	}
	// The same as a rank-one problem with ρ too large for 1/ρ to register.
	if _, _, err := RankOneRoot(0, p.d, p.z, 1e30, delta); err != nil {
		t.Errorf("cancelling, rank-one with ρ = 1e30: %v", err)
	}
	// The weight rule: |zⱼ| ≤ 64ε·‖z‖ deflates, a little more does not.
	// (‖z‖ = 1 in floating point; the poles are far enough apart that the small weight
	// is not rotated away instead.)
	res, err = s.Restrict([]float64{-3, 0, 3}, []float64{0.6, 64 * vec.Roundoff, 0.8})
	if err != nil || res.Stats.Deflated != 1 || res.Stats.Rotated != 0 {
		t.Errorf("weight 64ε: %+v, %v", res.Stats, err)
	}
	res, err = s.Restrict([]float64{-3, 0, 3}, []float64{0.6, 65 * vec.Roundoff, 0.8})
	if err != nil || res.Stats.Deflated != 0 {
		t.Errorf("weight 65ε: %+v, %v", res.Stats, err)
	}
}

// TestRestrictScaleInvariance multiplies d by 2^±300 and z by 2^±500: eigenvalues must
// scale exactly, and the deflation decisions and vectors must not change.
func TestRestrictScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(87, 88))
	var s1, s2 Solver
	for _, p := range restrictions(rng, 30) {
		res1, err := s1.Restrict(p.d, p.z)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range [][2]int{{300, -500}, {-300, 500}} {
			f := math.Ldexp(1, e[0])
			q := restriction{p.name, scaled(p.d, f), scaled(p.z, math.Ldexp(1, e[1]))}
			if !exactlyScaled(p.d, q.d, f) || !exactlyScaled(p.z, q.z, math.Ldexp(1, e[1])) {
				continue // the scaled problem under- or overflows: a different problem
			}
			res2, err := s2.Restrict(q.d, q.z)
			if err != nil {
				t.Fatalf("%v ×2^%v: %v", p, e, err)
			}
			checkScaled(t, p, e, res1, res2, f)
		}
	}
}

// exactlyScaled reports whether y = f·x holds exactly for a power of two f, with no
// entry lost to underflow or overflow.
func exactlyScaled(x, y []float64, f float64) bool {
	for i := range x {
		if y[i]/f != x[i] || math.IsInf(y[i], 0) {
			return false
		}
	}
	return true
}

// TestRestrictParallelDeterminism: the goroutine split does not change a single bit.
func TestRestrictParallelDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(89, 90))
	serial := Solver{Workers: 1}
	parallel := Solver{Workers: 4, Serial: 1}
	for _, p := range restrictions(rng, 97) {
		checkSplit(t, p, &serial, &parallel)
	}
}

func TestRestrictErrors(t *testing.T) {
	var s Solver
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		run  func() error
		want error
	}{
		{"length", func() error { _, err := s.Restrict([]float64{1, 2}, []float64{1}); return err }, ErrDimension},
		{"unsorted", func() error { _, err := s.Restrict([]float64{2, 1}, []float64{1, 1}); return err }, ErrNotSorted},
		{"nan-d", func() error { _, err := s.Restrict([]float64{nan, 1}, []float64{1, 1}); return err }, ErrNonFinite},
		{"inf-z", func() error { _, err := s.Restrict([]float64{0, 1}, []float64{1, inf}); return err }, ErrNonFinite},
		{"zero-z", func() error { _, err := s.Restrict([]float64{0, 1}, []float64{0, 0}); return err }, ErrArgument},
		{"empty", func() error { _, err := s.Restrict(nil, nil); return err }, ErrArgument},
		{"root-index", func() error {
			_, _, err := RestrictRoot(1, []float64{0, 1}, []float64{1, 1}, make([]float64, 2))
			return err
		}, ErrArgument},
		{"root-n1", func() error {
			_, _, err := RestrictRoot(0, []float64{0}, []float64{1}, make([]float64, 1))
			return err
		}, ErrArgument},
		{"root-zero-weight", func() error {
			_, _, err := RestrictRoot(0, []float64{0, 1}, []float64{1, 0}, make([]float64, 2))
			return err
		}, ErrArgument},
		{"root-equal-poles", func() error {
			_, _, err := RestrictRoot(0, []float64{1, 1}, []float64{1, 1}, make([]float64, 2))
			return err
		}, ErrNotSorted},
		{"root-short-delta", func() error {
			_, _, err := RestrictRoot(0, []float64{0, 1, 2}, []float64{1, 1, 1}, make([]float64, 2))
			return err
		}, ErrDimension},
	}
	for _, c := range cases {
		if err := c.run(); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	// A failure to converge is reported, and the same Solver recovers.
	s.MaxIterations = 1
	p := oracle.Issue1166
	if _, err := s.Restrict(p.D, p.Z); !errors.Is(err, ErrNotConverged) {
		t.Errorf("iteration cap 1: got %v, want ErrNotConverged", err)
	}
	s.MaxIterations = 0
	res, err := s.Restrict(p.D, p.Z)
	if err != nil {
		t.Fatal(err)
	}
	checkRestrictResult(t, restriction{"issue1166", p.D, p.Z}, res)
}

// TestRestrictAllocations: after Reserve(n), restrictions of order n allocate nothing,
// the first one included, with one goroutine or two.
func TestRestrictAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	d, z := uniformPoles(rng, 300), normalWeights(rng, 300)
	for _, w := range []int{1, 2} {
		// The first call of a fresh solver (fewestFirstMallocs). A new Solver each
		// time, never a new value in the old one's place: the shared workers may still
		// read the old one's team (internal/parallel).
		var s *Solver
		first := fewestFirstMallocs(t, func() func() error {
			s = &Solver{Workers: w, Serial: 64}
			s.Reserve(300)
			return func() error { _, err := s.Restrict(d, z); return err }
		})
		allocs := testing.AllocsPerRun(5, func() {
			if _, err := s.Restrict(d, z); err != nil {
				t.Fatal(err)
			}
		})
		// Starting the shared workers allocates, once per process (internal/parallel).
		if allocs != 0 || (w == 1 && first != 0) {
			t.Errorf("workers %d: %v allocations per Restrict, %d in the first", w, allocs, first)
		}
	}
}
