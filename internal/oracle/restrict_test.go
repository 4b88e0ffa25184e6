package oracle

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// checkRestrict runs checkCommon (root i between d[i] and d[i+1], the trace
// Σμ = Σd − zᵀDz/‖z‖² of the restricted matrix) and verifies h(μ) = 0 from
// the rounded Delta values: each Delta is within one ulp (relative 2^−52), so
// |Σ z_j²/Delta_ij| ≤ 2^−51·Σ|terms|.
func checkRestrict(t *testing.T, d, z []float64, r Roots, strict bool) {
	t.Helper()
	n := len(d)
	if !checkShape(t, r, n-1, n) {
		return
	}
	trace, zdz, zz := nf(), nf(), nf()
	for j := range d {
		trace.Add(trace, bf(d[j]))
		w := nf().Mul(bf(z[j]), bf(z[j]))
		zz.Add(zz, w)
		zdz.Add(zdz, w.Mul(w, bf(d[j])))
	}
	trace.Sub(trace, zdz.Quo(zdz, zz))
	checkCommon(t, d, r, 0, trace, strict)
	for i := range r.Lambda {
		res, mag := nf(), nf()
		for j := range d {
			term := nf().Mul(bf(z[j]), bf(z[j]))
			term.Quo(term, bf(r.Delta[i][j]))
			res.Add(res, term)
			mag.Add(mag, term.Abs(term))
		}
		if toF(nf().Abs(res)) > math.Ldexp(toF(mag), -51) {
			t.Errorf("root %d: secular residual %v exceeds 2^-51·%v", i, toF(res), toF(mag))
		}
	}
}

// TestRestrictSmall covers n = 1 (no root) and n = 2, where the only root
// is the Rayleigh quotient (z₂²d₁ + z₁²d₂)/(z₁² + z₂²) of (−z₂, z₁).
func TestRestrictSmall(t *testing.T) {
	r, err := Restrict([]float64{3}, []float64{-2})
	if err != nil || len(r.Lambda) != 0 || len(r.Delta) != 0 {
		t.Errorf("n = 1: %+v, %v", r, err)
	}
	cases := []struct{ d1, d2, z1, z2 float64 }{
		{0, 1, 1, 1},
		{-2, 5, 0.3, -7},
		{1, 1 + 0x1p-50, 1, 1e-9}, // root a tiny offset from d₂
		{-1e300, 1e300, 1e-150, 1},
		{1e-300, 2e-300, 3, 1},
	}
	for _, c := range cases {
		d, z := []float64{c.d1, c.d2}, []float64{c.z1, c.z2}
		r, err := Restrict(d, z)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		checkRestrict(t, d, z, r, false)
		z1, z2 := nf().Mul(bf(c.z1), bf(c.z1)), nf().Mul(bf(c.z2), bf(c.z2))
		num := nf().Add(nf().Mul(z2, bf(c.d1)), nf().Mul(z1, bf(c.d2)))
		want := num.Quo(num, nf().Add(z1, z2))
		checkClosed(t, "restrict", d, r, []*big.Float{want})
	}
}

// restrictedMatrix forms QᵀDQ for an orthonormal basis Q of z⊥ (a Householder
// reflection that maps z to a multiple of e₀, its last n−1 columns), and
// returns max|d|, a bound on its 2-norm.
func restrictedMatrix(d, z []float64) (*mat.SymDense, float64) {
	n := len(d)
	v := mat.NewVecDense(n, append([]float64(nil), z...))
	nz := mat.Norm(v, 2)
	v.SetVec(0, v.AtVec(0)+math.Copysign(nz, z[0]))
	h := mat.NewDense(n, n, nil)
	vv := mat.Dot(v, v)
	for i := range n {
		for j := range n {
			e := -2 * v.AtVec(i) * v.AtVec(j) / vv
			if i == j {
				e++
			}
			h.Set(i, j, e)
		}
	}
	q := h.Slice(0, n, 1, n)
	dq := mat.NewDense(n, n-1, nil)
	norm := 0.0
	for i := range n {
		for j := range n - 1 {
			dq.Set(i, j, d[i]*q.At(i, j))
		}
		norm = max(norm, math.Abs(d[i]))
	}
	var m mat.Dense
	m.Mul(q.T(), dq)
	s := mat.NewSymDense(n-1, nil)
	for i := range n - 1 {
		for j := i; j < n-1; j++ {
			s.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	return s, norm
}

// TestRestrictRandom compares with gonum's eigenvalues of the explicitly
// restricted matrix, and checks that the roots do not depend on the scale
// of z.
func TestRestrictRandom(t *testing.T) {
	for _, n := range []int{3, 10, 40} {
		for seed := uint64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewPCG(seed, 200+uint64(n)))
			d := randomPoles(rng, n)
			z := randomWeights(rng, n)
			r, err := Restrict(d, z)
			if err != nil {
				t.Fatalf("n=%d seed=%d: %v", n, seed, err)
			}
			checkRestrict(t, d, z, r, true)
			a, norm := restrictedMatrix(d, z)
			compareEig(t, r.Lambda, eigenvalues(t, a), norm)
			// h is homogeneous in z: 2⁻⁴⁰·z, exactly scaled, has the same roots.
			zs := make([]float64, n)
			for j := range z {
				zs[j] = math.Ldexp(z[j], -40)
			}
			rs, err := Restrict(d, zs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range r.Lambda {
				if r.Lambda[i] != rs.Lambda[i] {
					t.Errorf("n=%d seed=%d: root %d is %v for z and %v for 2⁻⁴⁰z", n, seed, i, r.Lambda[i], rs.Lambda[i])
				}
			}
		}
	}
}

// TestRestrictIsRankOneLimit checks the restriction against the rank-one
// problem with a huge ρ: its interior roots tend to the restriction's as ρ
// → ∞, at the rate 1/(ρ·h'(μ)).
func TestRestrictIsRankOneLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	d := randomPoles(rng, 12)
	z := randomWeights(rng, 12)
	r, err := Restrict(d, z)
	if err != nil {
		t.Fatal(err)
	}
	limit, err := RankOne(d, z, 1e200)
	if err != nil {
		t.Fatal(err)
	}
	for i, mu := range r.Lambda {
		if e := math.Abs(limit.Lambda[i] - mu); e > ulp(mu) {
			t.Errorf("root %d: restriction %.17g, rank-one with ρ = 1e200 %.17g", i, mu, limit.Lambda[i])
		}
	}
}

// TestRestrictErrors checks that invalid input is reported.
func TestRestrictErrors(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		d, z []float64
	}{
		{"empty", nil, nil},
		{"length", []float64{1, 2}, []float64{1}},
		{"d equal", []float64{1, 1}, []float64{1, 1}},
		{"d NaN", []float64{nan, 1}, []float64{1, 1}},
		{"z zero", []float64{1, 2}, []float64{0, 1}},
		{"z NaN", []float64{1, 2}, []float64{1, nan}},
	} {
		if _, err := Restrict(c.d, c.z); err == nil {
			t.Errorf("Restrict %s: no error", c.name)
		}
	}
}
