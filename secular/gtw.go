package secular

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// Scaling thresholds of dlaed6: small1 = 2^⌊log₂(safmin)/3⌋ keeps 1/x³ representable.
const (
	small1 = 0x1p-340
	sminv1 = 0x1p340
	small2 = 0x1p-680
	sminv2 = 0x1p680
)

// gtw solves the three-pole model
//
//	h(x) = c + Σₘ zzₘ/(pₘ − x) = 0,   p₀ < p₁ < p₂,  zzₘ > 0,
//
// for its root between p₁ and p₂ (orgati) or between p₀ and p₁ (otherwise), the one on
// the side of 0 where h has the sign opposite to finit = h(0). It is the role of LAPACK's
// dlaed6: Gragg, Thornton and Warner's cubically convergent iteration, which also matches
// the second derivative, safeguarded by bisection of a bracket. h is evaluated as
// finit + x·Σ zzₘ/(pₘ(pₘ − x)) so that h(0) is exactly the caller's (more accurate) value.
// first selects dlaed6's initial guess from a two-pole model, used on a root's first step.
// ok is false when the iteration does not converge.
func gtw(first, orgati bool, c float64, p, zz *[3]float64, finit float64) (x float64, ok bool) {
	var lbd, ubd float64
	if orgati {
		lbd, ubd = p[1], p[2]
	} else {
		lbd, ubd = p[0], p[1]
	}
	if finit < 0 {
		lbd = 0
	} else {
		ubd = 0
	}

	tau := 0.0
	if first {
		// Freeze the far pole at the midpoint of the interval and solve the two-pole
		// model c'(pₗ−x)(pᵤ−x) + zzₗ(pᵤ−x) + zzᵤ(pₗ−x) = 0.
		var a, b, cc float64
		if orgati {
			temp := (p[2] - p[1]) / 2
			cc = c + zz[0]/((p[0]-p[1])-temp)
			a = cc*(p[1]+p[2]) + zz[1] + zz[2]
			b = cc*p[1]*p[2] + zz[1]*p[2] + zz[2]*p[1]
		} else {
			temp := (p[0] - p[1]) / 2
			cc = c + zz[2]/((p[2]-p[1])-temp)
			a = cc*(p[0]+p[1]) + zz[0] + zz[1]
			b = cc*p[0]*p[1] + zz[0]*p[1] + zz[1]*p[0]
		}
		if scale := math.Max(math.Abs(a), math.Max(math.Abs(b), math.Abs(cc))); scale > 0 {
			a, b, cc = a/scale, b/scale, cc/scale
		}
		tau = smallRoot(a, b, cc)
		if !(tau >= lbd && tau <= ubd) {
			tau = (lbd + ubd) / 2
		}
		if tau == p[0] || tau == p[1] || tau == p[2] {
			tau = 0
		} else {
			f := finit + tau*(zz[0]/(p[0]*(p[0]-tau))+zz[1]/(p[1]*(p[1]-tau))+zz[2]/(p[2]*(p[2]-tau)))
			if f <= 0 {
				lbd = tau
			} else {
				ubd = tau
			}
			if math.Abs(finit) <= math.Abs(f) {
				tau = 0
			}
		}
	}

	// When the root is extremely close to a pole, 1/(p−x)³ could overflow: scale the
	// poles and weights up by a power of two (exact; c and finit are unchanged since
	// zz/(p−x) is invariant).
	var ps, zs [3]float64
	near := math.Min(math.Abs(p[0]-tau), math.Abs(p[1]-tau))
	if orgati {
		near = math.Min(math.Abs(p[1]-tau), math.Abs(p[2]-tau))
	}
	fac, inv := 1.0, 1.0
	if near <= small1 {
		fac, inv = sminv1, small1
		if near <= small2 {
			fac, inv = sminv2, small2
		}
	}
	for m := range 3 {
		ps[m] = p[m] * fac
		zs[m] = zz[m] * fac
	}
	tau *= fac
	lbd *= fac
	ubd *= fac

	eval := func(tau float64) (f, df, ddf, bound float64) {
		var fc, absfc float64
		for m := range 3 {
			r := 1 / (ps[m] - tau)
			t1 := zs[m] * r
			t2 := t1 * r
			t4 := t1 / ps[m]
			fc += t4
			absfc += math.Abs(t4)
			df += t2
			ddf += t2 * r
		}
		f = finit + tau*fc
		bound = 8*(math.Abs(finit)+math.Abs(tau)*absfc) + math.Abs(tau)*df
		return f, df, ddf, bound
	}

	f, df, ddf, _ := eval(tau)
	if f == 0 {
		return tau * inv, true
	}
	if f <= 0 {
		lbd = tau
	} else {
		ubd = tau
	}
	for range 39 { // dlaed6 allows 40 evaluations
		var t1, t2 float64
		if orgati {
			t1, t2 = ps[1]-tau, ps[2]-tau
		} else {
			t1, t2 = ps[0]-tau, ps[1]-tau
		}
		a := (t1+t2)*f - t1*t2*df
		b := t1 * t2 * f
		cc := f - (t1+t2)*df + t1*t2*ddf
		if scale := math.Max(math.Abs(a), math.Max(math.Abs(b), math.Abs(cc))); scale > 0 {
			a, b, cc = a/scale, b/scale, cc/scale
		}
		eta := smallRoot(a, b, cc)
		if f*eta >= 0 {
			eta = -f / df
		}
		tau += eta
		if !(tau >= lbd && tau <= ubd) {
			tau = (lbd + ubd) / 2
		}
		var bound float64
		f, df, ddf, bound = eval(tau)
		if math.Abs(f) <= vec.Roundoff*bound {
			return tau * inv, true
		}
		if f <= 0 {
			lbd = tau
		} else {
			ubd = tau
		}
	}
	return 0, false
}
