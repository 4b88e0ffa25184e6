package secular

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/vec"
)

// TestRootsAgainstOracle checks every root and every stored difference δⱼ = dⱼ − λ of
// the single-root functions against the high-precision oracle. The differences must be
// accurate relative to themselves, including the tiny ones next to a pole: that is what
// makes the Gu–Eisenstat vectors orthogonal.
func TestRootsAgainstOracle(t *testing.T) {
	if raceEnabled {
		t.Skip("serial sizes: checked without the race detector (see raceEnabled)")
	}
	rng := rand.New(rand.NewPCG(61, 62))
	problems := []problem{{name: "issue1166", d: oracle.Issue1166.D, z: oracle.Issue1166.Z, rho: oracle.Issue1166.Rho}}
	for _, n := range []int{2, 3, 5, 12, 40} {
		problems = append(problems, suite(rng, n)...)
	}
	worstL, worstD := 0.0, 0.0
	var iters, roots int
	for _, p := range problems {
		if !distinct(p.d, p.z) {
			continue
		}
		ref := reference(t, p)
		delta := make([]float64, len(p.d))
		for i, want := range ref.Lambda {
			var lambda float64
			var it int
			var err error
			if p.arrow {
				lambda, it, err = ArrowRoot(i, p.d, p.z, p.c, delta)
			} else {
				lambda, it, err = RankOneRoot(i, p.d, p.z, p.rho, delta)
			}
			if err != nil {
				t.Errorf("%v root %d: %v", p, i, err)
				continue
			}
			iters += it
			roots++
			// Forward error: the stopping rule bounds |F(λ̂)| by a few ε times the
			// size of F's terms, so the error is a few ε times the root's condition
			// number κ = Σ|terms|/F'(λ) (and never below the ulps of σ).
			kappa := conditionNumber(p, ref.Delta[i], want)
			el := math.Abs(lambda-want) / (vec.Roundoff * math.Max(p.scale(), kappa))
			worstL = math.Max(worstL, el)
			if el > 16 {
				t.Errorf("%v root %d: λ = %.17g, oracle %.17g (%.1f ε·max(σ, κ), κ = %.3g)", p, i, lambda, want, el, kappa)
			}
			// The differences must describe one computed root λ̂ to a few ulps each:
			// λ̂ = d_o − δ_o exactly for the origin (the smallest |δ|), and every
			// dⱼ − δⱼ within 4ε|δⱼ| of it, evaluated exactly. Against the exact root λ*
			// they then differ by |λ̂ − λ*| plus those few ulps.
			o := 0
			for j := range delta {
				if math.Abs(delta[j]) < math.Abs(delta[o]) {
					o = j
				}
			}
			hat := new(big.Float).SetPrec(2200).Sub(big.NewFloat(p.d[o]), big.NewFloat(delta[o]))
			// λ* = d_o − δ*_o: the oracle's difference is accurate to itself, its
			// rounded λ only to an ulp of λ.
			rootErr := math.Abs(ref.Delta[i][o] - delta[o])
			for j, dw := range ref.Delta[i] {
				implied := new(big.Float).SetPrec(2200).Sub(big.NewFloat(p.d[j]), big.NewFloat(delta[j]))
				gap, _ := implied.Sub(implied, hat).Float64()
				ec := math.Abs(gap) / (vec.Roundoff * math.Abs(delta[j]))
				worstD = math.Max(worstD, ec)
				if ec > 4 {
					t.Errorf("%v root %d: δ%d inconsistent with the root by %.1f ε relative", p, i, j, ec)
				}
				if diff := math.Abs(delta[j] - dw); diff > 5*vec.Roundoff*math.Abs(dw)+1.01*rootErr+0x1p-1074 {
					t.Errorf("%v root %d: δ%d = %.17g, oracle %.17g; root error %.3g", p, i, j, delta[j], dw, rootErr)
				}
			}
		}
	}
	t.Logf("%d roots, %.2f iterations per root; worst λ error %.2f ε·max(σ, κ), worst δ inconsistency %.2f ε relative",
		roots, float64(iters)/float64(roots), worstL, worstD)
	if roots < 100 { // the suite has several hundred roots with distinct poles
		t.Errorf("only %d roots compared with the oracle", roots)
	}
}

// TestRootSpecialSizes covers the closed forms: one pole (rank-one), the 2×2 arrowhead
// and the empty arrowhead.
func TestRootSpecialSizes(t *testing.T) {
	delta := make([]float64, 2)
	l, _, err := RankOneRoot(0, []float64{3}, []float64{2}, -0.25, delta)
	if err != nil || l != 2 || delta[0] != 1 {
		t.Errorf("n=1 rank-one: λ = %g, δ = %g, %v", l, delta[0], err)
	}
	l, _, err = ArrowRoot(0, nil, nil, 5, delta)
	if err != nil || l != 5 {
		t.Errorf("empty arrowhead: λ = %g, %v", l, err)
	}
	// [[1, 2], [2, 4]] has eigenvalues 0 and 5.
	for i, want := range []float64{0, 5} {
		l, _, err = ArrowRoot(i, []float64{1}, []float64{2}, 4, delta)
		if err != nil || math.Abs(l-want) > 4*vec.Roundoff*5 {
			t.Errorf("2×2 arrowhead root %d: %g, want %g (%v)", i, l, want, err)
		}
	}
}

// conditionNumber returns κ = (|a| + |b·λ| + Σ zⱼ²/|δⱼ|) / (b + Σ zⱼ²/δⱼ²) for the root λ of
// the problem's canonical equation, from the oracle's differences: the factor by which
// the rounding errors of evaluating F become an error in λ.
func conditionNumber(p problem, delta []float64, lambda float64) float64 {
	var terms, deriv float64
	if p.arrow {
		terms = math.Abs(lambda - p.c)
		deriv = 1
	} else {
		terms = 1 / math.Abs(p.rho)
	}
	for j, dj := range delta {
		if dj == 0 {
			return math.Inf(1)
		}
		t := p.z[j] * p.z[j] / dj
		terms += math.Abs(t)
		deriv += t / dj
	}
	return terms / deriv
}
