package oracle

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRankOneN1 checks λ = d + ρz² for n = 1.
func TestRankOneN1(t *testing.T) {
	cases := []struct{ d, z, rho float64 }{
		{0, 1, 1},
		{1, 3, -0.5},
		{-2.5, 0.75, 7},
		{1e10, 1024, 1.0 / 8},
		{3, 0.5, -1e8},
		{1, 1e-10, 1},         // root extremely close to the pole
		{-1e-300, 1e-100, -3}, // tiny everything
		{1, 0.1, 1},           // ρz² not exact in float64
	}
	for _, c := range cases {
		r, err := RankOne([]float64{c.d}, []float64{c.z}, c.rho)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		checkRankOne(t, []float64{c.d}, []float64{c.z}, c.rho, r, false)
		shift := nf().Mul(bf(c.z), bf(c.z))
		shift.Mul(shift, bf(c.rho))
		exact := nf().Add(bf(c.d), shift)
		if e := absDiff(bf(r.Lambda[0]), exact); e > ulp(r.Lambda[0]) {
			t.Errorf("%+v: Lambda = %v, exact %v", c, r.Lambda[0], toF(exact))
		}
		// d − λ = −ρz², accurate relative to itself.
		if e := absDiff(bf(r.Delta[0][0]), nf().Neg(shift)); e > ulp(r.Delta[0][0]) {
			t.Errorf("%+v: Delta = %v, exact %v", c, r.Delta[0][0], -toF(shift))
		}
		// The plain float64 formula, with one rounding where ρz² is exact.
		if f := c.d + c.rho*c.z*c.z; math.Abs(f-r.Lambda[0]) > ulp(f) {
			t.Errorf("%+v: Lambda = %v, float64 formula %v", c, r.Lambda[0], f)
		}
	}
}

// sym2 returns the eigenvalues of [[a, b], [b, e]] in big.Float with precision
// testPrec: the larger in magnitude by the quadratic formula without
// cancellation, the other as det/that.
func sym2(a, b, e *big.Float) (lo, hi *big.Float) {
	tr := nf().Add(a, e)
	det := nf().Mul(a, e)
	det.Sub(det, nf().Mul(b, b))
	diff := nf().Sub(a, e)
	disc := nf().Mul(diff, diff)
	disc.Add(disc, nf().Mul(b, b).SetMantExp(nf().Mul(b, b), 2))
	sq := nf().Sqrt(disc)
	big1 := nf()
	if tr.Sign() >= 0 {
		big1.Add(tr, sq)
	} else {
		big1.Sub(tr, sq)
	}
	big1.SetMantExp(big1, -1)
	other := nf().Quo(det, big1)
	if big1.Cmp(other) < 0 {
		return big1, other
	}
	return other, big1
}

// checkClosed compares r with the exact eigenvalues lam of a problem with
// poles d: Lambda and every Delta within one ulp.
func checkClosed(t *testing.T, name string, d []float64, r Roots, lam []*big.Float) {
	t.Helper()
	for i, l := range lam {
		if e := absDiff(bf(r.Lambda[i]), l); e > ulp(r.Lambda[i]) {
			t.Errorf("%s: Lambda[%d] = %.17g, closed form %.17g", name, i, r.Lambda[i], toF(l))
		}
		for j := range d {
			want := nf().Sub(bf(d[j]), l)
			if e := absDiff(bf(r.Delta[i][j]), want); e > ulp(r.Delta[i][j]) {
				t.Errorf("%s: Delta[%d][%d] = %.17g, closed form %.17g", name, i, j, r.Delta[i][j], toF(want))
			}
		}
	}
}

// TestRankOne2x2 compares with the closed form for n = 2.
func TestRankOne2x2(t *testing.T) {
	cases := []struct {
		d, z [2]float64
		rho  float64
	}{
		{[2]float64{0, 1}, [2]float64{1, 1}, 1},
		{[2]float64{0, 1}, [2]float64{1, 1}, -1},
		{[2]float64{-3, 2.5}, [2]float64{0.3, -1.7}, 0.25},
		{[2]float64{1, 2}, [2]float64{1e-20, 1}, 1},  // λ_1 − d_1 ≈ 1e-40
		{[2]float64{1, 2}, [2]float64{1, 1e-20}, -1}, // λ_2 just below d_2
		{[2]float64{1, 1 + 0x1p-52}, [2]float64{1, 1}, 1},
		{[2]float64{1e-8, 1e8}, [2]float64{1e4, 1e-4}, -3},
	}
	for _, c := range cases {
		d, z := c.d[:], c.z[:]
		r, err := RankOne(d, z, c.rho)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		checkRankOne(t, d, z, c.rho, r, false)
		rho := bf(c.rho)
		a := nf().Mul(bf(z[0]), bf(z[0]))
		a.Mul(a, rho).Add(a, bf(d[0]))
		e := nf().Mul(bf(z[1]), bf(z[1]))
		e.Mul(e, rho).Add(e, bf(d[1]))
		b := nf().Mul(bf(z[0]), bf(z[1]))
		b.Mul(b, rho)
		lo, hi := sym2(a, b, e)
		checkClosed(t, "rank-one", d, r, []*big.Float{lo, hi})
	}
}

// TestArrow2x2 compares with the closed form for n = 1.
func TestArrow2x2(t *testing.T) {
	cases := []struct{ d, w, c float64 }{
		{0, 1, 0},
		{1, 1, 0},
		{-2, 0.5, 7},
		{1, 1e-20, 3},  // λ just below d
		{1, 1e-20, -3}, // λ just above d
		{1, 1e-20, 1},  // c = d: λ = d ± w
		{1e8, 1e-8, -1e-8},
	}
	for _, c := range cases {
		d, w := []float64{c.d}, []float64{c.w}
		r, err := Arrow(d, w, c.c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		checkArrow(t, d, w, c.c, r, false)
		lo, hi := sym2(bf(c.d), bf(c.w), bf(c.c))
		checkClosed(t, "arrow", d, r, []*big.Float{lo, hi})
	}
}

// randomPoles returns n strictly increasing normal variates.
func randomPoles(rng *rand.Rand, n int) []float64 {
	for {
		d := make([]float64, n)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		slices.Sort(d)
		if checkPoles(d) == nil {
			return d
		}
	}
}

// randomWeights returns n nonzero normal variates.
func randomWeights(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		for v[i] == 0 {
			v[i] = rng.NormFloat64()
		}
	}
	return v
}

// eigenvalues returns the eigenvalues of a computed by gonum, ascending.
func eigenvalues(t *testing.T, a *mat.SymDense) []float64 {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		t.Fatal("EigenSym failed")
	}
	return es.Values(nil)
}

// compareEig checks |Lambda_i − ev_i| ≤ 1e-12·norm.
func compareEig(t *testing.T, lam, ev []float64, norm float64) {
	t.Helper()
	for i := range lam {
		if e := math.Abs(lam[i] - ev[i]); e > 1e-12*norm {
			t.Errorf("Lambda[%d] = %.17g, EigenSym %.17g, difference %v > 1e-12·%v", i, lam[i], ev[i], e, norm)
		}
	}
}

// rankOneMatrix forms diag(d) + ρzzᵀ and a bound on its 2-norm.
func rankOneMatrix(d, z []float64, rho float64) (*mat.SymDense, float64) {
	n := len(d)
	a := mat.NewSymDense(n, nil)
	norm, zz := 0.0, 0.0
	for i := range n {
		for j := i; j < n; j++ {
			v := rho * z[i] * z[j]
			if i == j {
				v += d[i]
			}
			a.SetSym(i, j, v)
		}
		norm = max(norm, math.Abs(d[i]))
		zz += z[i] * z[i]
	}
	return a, norm + math.Abs(rho)*zz
}

// TestRankOneRandom compares with gonum on random problems.
func TestRankOneRandom(t *testing.T) {
	for _, n := range []int{3, 10, 40} {
		for seed := uint64(1); seed <= 4; seed++ {
			for _, sgn := range []float64{1, -1} {
				rng := rand.New(rand.NewPCG(seed, uint64(n)))
				d := randomPoles(rng, n)
				z := randomWeights(rng, n)
				rho := sgn * (0.1 + 2*rng.Float64())
				r, err := RankOne(d, z, rho)
				if err != nil {
					t.Fatalf("n=%d seed=%d rho=%v: %v", n, seed, rho, err)
				}
				checkRankOne(t, d, z, rho, r, true)
				a, norm := rankOneMatrix(d, z, rho)
				compareEig(t, r.Lambda, eigenvalues(t, a), norm)
			}
		}
	}
}

// arrowMatrix forms [[diag(d), w], [wᵀ, c]] and a bound on its 2-norm.
func arrowMatrix(d, w []float64, c float64) (*mat.SymDense, float64) {
	n := len(d)
	a := mat.NewSymDense(n+1, nil)
	norm, ww := math.Abs(c), 0.0
	for i := range n {
		a.SetSym(i, i, d[i])
		a.SetSym(i, n, w[i])
		norm = max(norm, math.Abs(d[i]))
		ww += w[i] * w[i]
	}
	a.SetSym(n, n, c)
	return a, norm + math.Sqrt(ww)
}

// TestArrowRandom compares with gonum on random problems.
func TestArrowRandom(t *testing.T) {
	for _, n := range []int{0, 1, 5, 30} {
		for seed := uint64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewPCG(seed, 100+uint64(n)))
			d := randomPoles(rng, n)
			w := randomWeights(rng, n)
			c := rng.NormFloat64()
			r, err := Arrow(d, w, c)
			if err != nil {
				t.Fatalf("n=%d seed=%d: %v", n, seed, err)
			}
			checkArrow(t, d, w, c, r, true)
			a, norm := arrowMatrix(d, w, c)
			compareEig(t, r.Lambda, eigenvalues(t, a), norm)
		}
	}
}

// nearestRoot returns the index of the root closest to pole j, the one
// minimizing |Delta[i][j]|.
func nearestRoot(r Roots, j int) int {
	best := 0
	for i := range r.Delta {
		if math.Abs(r.Delta[i][j]) < math.Abs(r.Delta[best][j]) {
			best = i
		}
	}
	return best
}

// TestClustered puts a tiny weight on the middle one of three clustered
// poles. The root next to that pole is at a distance of about 1e-28; first
// order perturbation theory gives its offset, which the oracle must match in
// sign and, closely, in magnitude.
func TestClustered(t *testing.T) {
	d := []float64{1, 1 + 1e-12, 1 + 2e-12}
	z := []float64{1, 1e-10, 1}
	const k = 1 // the pole with the tiny weight
	for _, rho := range []float64{1, -1, 1e-6, -1e6} {
		r, err := RankOne(d, z, rho)
		if err != nil {
			t.Fatal(err)
		}
		checkRankOne(t, d, z, rho, r, false)
		// f = 1 + ρz_k²/(d_k−λ) + ρΣ_{j≠k} z_j²/(d_j−λ) = 0 with λ = d_k+τ
		// gives τ ≈ ρz_k²/F, F = 1 + ρΣ_{j≠k} z_j²/(d_j − d_k).
		f := bf(1)
		for j := range d {
			if j != k {
				q := nf().Mul(bf(z[j]), bf(z[j]))
				q.Mul(q, bf(rho)).Quo(q, nf().Sub(bf(d[j]), bf(d[k])))
				f.Add(f, q)
			}
		}
		tau := nf().Mul(bf(z[k]), bf(z[k]))
		tau.Mul(tau, bf(rho)).Quo(tau, f)
		checkTinyOffset(t, "rank-one", r, k, toF(tau))
	}

	w := z
	for _, c := range []float64{0, 1 + 1e-12, 5, -5} {
		r, err := Arrow(d, w, c)
		if err != nil {
			t.Fatal(err)
		}
		checkArrow(t, d, w, c, r, false)
		// g = c − λ − w_k²/(d_k − λ) − Σ_{j≠k} ... = 0 with λ = d_k+τ gives
		// τ ≈ −w_k²/G, G = c − d_k − Σ_{j≠k} w_j²/(d_j − d_k).
		g := nf().Sub(bf(c), bf(d[k]))
		for j := range d {
			if j != k {
				q := nf().Mul(bf(w[j]), bf(w[j]))
				g.Sub(g, q.Quo(q, nf().Sub(bf(d[j]), bf(d[k]))))
			}
		}
		tau := nf().Mul(bf(w[k]), bf(w[k]))
		tau.Quo(tau, g).Neg(tau)
		checkTinyOffset(t, "arrow", r, k, toF(tau))
	}
}

// checkTinyOffset checks that the root nearest to pole k has
// Delta = d_k − λ = −τ with τ the first-order estimate, to 1e-9 relative.
func checkTinyOffset(t *testing.T, name string, r Roots, k int, tau float64) {
	t.Helper()
	i := nearestRoot(r, k)
	got := r.Delta[i][k]
	t.Logf("%s: root %d = %.17g, Delta[%d][%d] = %.6e, first-order −τ = %.6e", name, i, r.Lambda[i], i, k, got, -tau)
	if got == 0 || sign(got) != -sign(tau) {
		t.Errorf("%s: Delta[%d][%d] = %v, want sign of %v", name, i, k, got, -tau)
	}
	if math.Abs(got+tau) > 1e-9*math.Abs(tau) {
		t.Errorf("%s: Delta[%d][%d] = %v, first-order estimate %v", name, i, k, got, -tau)
	}
}

// TestIssue1166 solves the problem of LAPACK issue #1166.
func TestIssue1166(t *testing.T) {
	p := Issue1166
	r, err := RankOne(p.D, p.Z, p.Rho)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Lambda) != 29 {
		t.Fatalf("got %d roots, want 29", len(r.Lambda))
	}
	// Interlacing is checked strictly through the signs of Delta, but only
	// non-strictly on Lambda: λ_28 − d_28 ≈ 2.5e-17 is below half an ulp
	// of d_28 ≈ 1, so Lambda[28] == d[28] in float64.
	checkRankOne(t, p.D, p.Z, p.Rho, r, false)
	for i := 1; i < len(r.Lambda); i++ {
		if !(r.Lambda[i-1] < r.Lambda[i]) {
			t.Errorf("Lambda not strictly ascending at %d", i)
		}
	}
	t.Logf("Issue1166 root 28: Lambda = %.17g, d_28 − λ = %.17g", r.Lambda[28], r.Delta[28][28])
	a, norm := rankOneMatrix(p.D, p.Z, p.Rho)
	compareEig(t, r.Lambda, eigenvalues(t, a), norm)
	t.Logf("Issue1166 root 22 (LAPACK I = 23): %.17g", r.Lambda[22])
	t.Logf("Issue1166 root 22: d_22 − λ = %.17g, d_23 − λ = %.17g", r.Delta[22][22], r.Delta[22][23])
}

// TestExtreme covers a wide exponent range, where the working precision
// must grow, and offsets far below the size of their poles (1e-200 relative
// to the pole at 1, 1e-20 relative to the pole at 1e300).
func TestExtreme(t *testing.T) {
	d := []float64{-1e-300, 1e-300, 1, 1e300}
	z := []float64{1e-150, 1e-150, 1e-100, 1e140}
	for _, rho := range []float64{1, -1, 1e-5, -0.5} {
		r, err := RankOne(d, z, rho)
		if err != nil {
			t.Fatalf("rho=%v: %v", rho, err)
		}
		checkRankOne(t, d, z, rho, r, false)
	}
	w := []float64{1e-150, 1e-150, 1e-100, 1e150}
	for _, c := range []float64{0, 1e-300, 1, 3, -2} {
		r, err := Arrow(d, w, c)
		if err != nil {
			t.Fatalf("c=%v: %v", c, err)
		}
		checkArrow(t, d, w, c, r, false)
	}
	// A root exactly at zero, midway between its poles: the middle
	// eigenvalue of [[−1, 0, 1], [0, 1, 1], [1, 1, 0]].
	r, err := Arrow([]float64{-1, 1}, []float64{1, 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lambda[1] != 0 {
		t.Errorf("symmetric arrow: middle root %v, want 0", r.Lambda[1])
	}
	// A root near zero, far from its poles, must still be accurate
	// relative to itself. With d = ±1, w = 1 and corner c,
	// g(λ) = c − λ − 2λ/(1 − λ²), so for tiny c the middle root is
	// λ = c/3·(1 + O(c²)).
	const c = 3e-30
	r, err = Arrow([]float64{-1, 1}, []float64{1, 1}, c)
	if err != nil {
		t.Fatal(err)
	}
	checkArrow(t, []float64{-1, 1}, []float64{1, 1}, c, r, false)
	want := nf().Quo(bf(c), bf(3))
	if e := absDiff(bf(r.Lambda[1]), want); e > ulp(r.Lambda[1]) {
		t.Errorf("near-zero root %.17g, want %.17g", r.Lambda[1], toF(want))
	}
}

// TestErrors checks that invalid input is reported, not panicked on.
func TestErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	rank := []struct {
		name string
		d, z []float64
		rho  float64
	}{
		{"empty", nil, nil, 1},
		{"length", []float64{1, 2}, []float64{1}, 1},
		{"rho zero", []float64{1}, []float64{1}, 0},
		{"rho NaN", []float64{1}, []float64{1}, nan},
		{"rho Inf", []float64{1}, []float64{1}, -inf},
		{"d equal", []float64{1, 1}, []float64{1, 1}, 1},
		{"signed zeros", []float64{math.Copysign(0, -1), 0}, []float64{1, 1}, 1},
		{"d decreasing", []float64{2, 1}, []float64{1, 1}, 1},
		{"d NaN", []float64{nan}, []float64{1}, 1},
		{"d Inf", []float64{1, inf}, []float64{1, 1}, 1},
		{"z zero", []float64{1, 2}, []float64{1, 0}, 1},
		{"z NaN", []float64{1, 2}, []float64{nan, 1}, 1},
		{"z Inf", []float64{1, 2}, []float64{1, -inf}, 1},
		{"overflow", []float64{1e308}, []float64{1e200}, 1},
	}
	for _, c := range rank {
		if _, err := RankOne(c.d, c.z, c.rho); err == nil {
			t.Errorf("RankOne %s: no error", c.name)
		} else {
			t.Logf("RankOne %s: %v", c.name, err)
		}
	}
	arrow := []struct {
		name string
		d, w []float64
		c    float64
	}{
		{"length", []float64{1}, nil, 0},
		{"c NaN", nil, nil, nan},
		{"c Inf", []float64{1}, []float64{1}, inf},
		{"d equal", []float64{1, 1}, []float64{1, 1}, 0},
		{"d NaN", []float64{nan}, []float64{1}, 0},
		{"w zero", []float64{1}, []float64{0}, 0},
		{"w Inf", []float64{1}, []float64{inf}, 0},
		{"overflow", []float64{-1e308}, []float64{1e308}, 1e308},
	}
	for _, c := range arrow {
		if _, err := Arrow(c.d, c.w, c.c); err == nil {
			t.Errorf("Arrow %s: no error", c.name)
		} else {
			t.Logf("Arrow %s: %v", c.name, err)
		}
	}
}

// TestLargeProblem checks a rank-one problem with n = 100 (the size the oracle is meant
// for) in both signs of ρ. Its cost is measured by BenchmarkRankOne100, not asserted:
// wall-clock limits do not belong in unit tests.
func TestLargeProblem(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 100
	d := randomPoles(rng, n)
	z := randomWeights(rng, n)
	for _, rho := range []float64{0.5, -0.5} {
		r, err := RankOne(d, z, rho)
		if err != nil {
			t.Fatal(err)
		}
		checkRankOne(t, d, z, rho, r, true)
	}
}

// BenchmarkRankOne100 measures RankOne for n = 100.
func BenchmarkRankOne100(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	d := randomPoles(rng, 100)
	z := randomWeights(rng, 100)
	for b.Loop() {
		if _, err := RankOne(d, z, 0.5); err != nil {
			b.Fatal(err)
		}
	}
}
