//go:build cgo && openblas

package secular

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ikpca/ikpca/internal/lapackref"
	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/vec"
)

// unit returns z/‖z‖ and ‖z‖: dlaed4 takes a unit z.
func unit(z []float64) ([]float64, float64) {
	zn := vec.Norm(z)
	u := make([]float64, len(z))
	for j := range z {
		u[j] = z[j] / zn
	}
	return u, zn
}

// TestAgainstDlaed4 compares RankOneRoot with LAPACK's own root finder, dlaed4 from
// OpenBLAS, root by root. dlaed4 handles ρ > 0 with ‖z‖ = 1 only: the problems are
// normalised, and ρ < 0 is compared through the mirrored problem.
func TestAgainstDlaed4(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	problems := []problem{{name: "issue1166", d: oracle.Issue1166.D, z: oracle.Issue1166.Z, rho: oracle.Issue1166.Rho}}
	for _, n := range []int{3, 4, 9, 30, 100} {
		for _, p := range suite(rng, n) {
			if !p.arrow {
				problems = append(problems, p)
			}
		}
	}
	var roots, within4, lapackFailed int
	worst := 0.0
	for _, p := range problems {
		if !distinct(p.d, p.z) {
			continue
		}
		n := len(p.d)
		// The problem dlaed4 sees: ρ > 0, unit z.
		lz, zn := unit(p.z)
		ld, lrho := slices.Clone(p.d), math.Abs(p.rho)*zn*zn
		if p.rho < 0 {
			for j := range n {
				ld[j], lz[j] = -p.d[n-1-j], p.z[n-1-j]/zn
			}
		}
		maxd := vec.MaxAbs(p.d)
		var ref oracle.Roots
		if n <= 30 {
			ref = reference(t, p)
		}
		delta := make([]float64, n)
		for i := range n {
			lambda, _, err := RankOneRoot(i, p.d, p.z, p.rho, delta)
			if err != nil {
				t.Errorf("%v root %d: %v", p, i, err)
				continue
			}
			li := i
			if p.rho < 0 {
				li = n - 1 - i
			}
			ll, _, info := lapackref.Dlaed4(li, ld, lz, lrho)
			if p.rho < 0 {
				ll = -ll
			}
			if info != 0 {
				lapackFailed++
				t.Logf("%v root %d: dlaed4 failed (info %d); ours %.17g", p, i, info, lambda)
				continue
			}
			roots++
			diff := math.Abs(lambda - ll)
			if diff <= 4*vec.Roundoff*maxd {
				within4++
			}
			// Both finders stop on the same criterion: they agree to a few ε times
			// the larger of max|d| and the root's condition number.
			kappa := p.scale()
			if ref.Lambda != nil {
				kappa = conditionNumber(p, ref.Delta[i], ref.Lambda[i])
			}
			e := diff / (vec.Roundoff * math.Max(math.Max(maxd, p.scale()), kappa))
			worst = math.Max(worst, e)
			if e > 16 {
				t.Errorf("%v root %d: ours %.17g, dlaed4 %.17g (%.1f ε·max(|d|, σ, κ))", p, i, lambda, ll, e)
			}
		}
	}
	t.Logf("%d roots compared: %d (%.1f%%) within 4ε·max|d| of dlaed4, worst %.2f ε·max(|d|, σ, κ); dlaed4 failed on %d",
		roots, within4, 100*float64(within4)/float64(roots), worst, lapackFailed)
	if roots < 100 { // the suite has several hundred roots with distinct poles
		t.Errorf("only %d roots compared with dlaed4", roots)
	}
}
