//go:build cgo && openblas

package secular

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/internal/lapackref"
	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/vec"
)

// TestRestrictAgainstDlaed4 compares RestrictRoot with LAPACK's dlaed4 from OpenBLAS.
// dlaed4 solves 1/ρ + Σ zⱼ²/(dⱼ − λ) = 0 for ρ > 0 and ‖z‖ = 1; with ρ = 1e300 the
// constant 1/ρ moves an interior root by (1/ρ)/h'(μ) ≤ 1e-300·4·max|d|² (h' ≥
// 1/(2·max|d|)² for a unit z), far below an ulp, so its k−1 interior roots are the
// restriction's. Both finders stop on the same criterion: they agree to a few ε times
// the larger of max|d| and the root's condition number (see TestAgainstDlaed4).
func TestRestrictAgainstDlaed4(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	problems := []restriction{{"issue1166", oracle.Issue1166.D, oracle.Issue1166.Z}, loewnerCase}
	for _, n := range []int{3, 4, 9, 30, 100} {
		problems = append(problems, restrictions(rng, n)...)
	}
	var roots, lapackFailed int
	worst := 0.0
	for _, p := range problems {
		if !distinct(p.d, p.z) {
			continue
		}
		n := len(p.d)
		lz, zn := unit(p.z)
		if zn == 0 || math.IsInf(zn, 0) || vec.MaxAbs(p.d) > 1e150 {
			continue // dlaed4 is given z/‖z‖ and ρ = 1e300: both must be representable
		}
		maxd := vec.MaxAbs(p.d)
		var ref []float64
		if n <= 30 {
			r, err := oracle.Restrict(p.d, p.z)
			if err != nil {
				t.Fatalf("%v: oracle: %v", p, err)
			}
			// κ from the oracle's differences, as for the rank-one comparison.
			for i := range r.Lambda {
				ref = append(ref, restrictCondition(lz, r.Delta[i])) // κ does not depend on the scale of z
			}
		}
		delta := make([]float64, n)
		for i := range n - 1 {
			mu, _, err := RestrictRoot(i, p.d, p.z, delta)
			if err != nil {
				// Weights that deflation would remove are outside RestrictRoot's domain
				// (see TestRestrictAgainstOracle); the Solver deflates them.
				continue
			}
			ll, _, info := lapackref.Dlaed4(i, p.d, lz, 1e300)
			if info != 0 {
				lapackFailed++
				t.Logf("%v root %d: dlaed4 failed (info %d); ours %.17g", p, i, info, mu)
				continue
			}
			roots++
			kappa := maxd
			if ref != nil {
				kappa = math.Max(kappa, ref[i])
			}
			e := math.Abs(mu-ll) / (vec.Roundoff * kappa)
			worst = math.Max(worst, e)
			if !(e <= 16) {
				t.Errorf("%v root %d: ours %.17g, dlaed4 %.17g (%.1f ε·max(|d|, κ))", p, i, mu, ll, e)
			}
		}
	}
	if roots == 0 {
		t.Fatal("no roots compared")
	}
	t.Logf("%d roots compared, worst difference %.2f ε·max(|d|, κ); dlaed4 failed on %d", roots, worst, lapackFailed)
}

// restrictCondition returns κ = Σ|zⱼ²/δⱼ| / Σ zⱼ²/δⱼ² for a root of the restriction,
// from its differences δ.
func restrictCondition(z, delta []float64) float64 {
	var terms, deriv float64
	for j, dj := range delta {
		if dj == 0 {
			return math.Inf(1)
		}
		t := z[j] * z[j] / dj
		terms += math.Abs(t)
		deriv += t / dj
	}
	return terms / deriv
}
