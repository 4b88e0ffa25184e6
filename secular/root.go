package secular

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// The root finder follows Ren-Cang Li's method as LAPACK implements it in dlaed4 (see
// LAPACK Working Note 89). Each root is written λ = d_o + τ for an origin pole d_o next
// to it, and the differences δⱼ = dⱼ − λ are computed from τ at every step (see evaluate). A step
// solves a model of F that interpolates its value and derivative at the current point:
//
//   - fixed weight (FW): c + z_o²/(δ_o − η) + S/(δ_p − η), where p is the other pole of
//     the interval and z_o² is the true weight of the origin pole;
//   - middle way (MW): c + δ_l²ψ'/(δ_l − η) + δ_u²φ'/(δ_u − η), both weights fitted;
//   - three poles (Gragg–Thornton–Warner): the origin pole and both neighbours, used
//     when the sum of the non-origin terms has the wrong sign for the two-pole models.
//
// FW is the default; the method switches between FW and MW when a step fails to reduce
// |F| by a factor of ten. Every step is safeguarded: Newton's step replaces a model step
// that points away from the root, and a step that leaves the bracket known to hold the
// root goes half-way to the bracket's bound (geometrically, see toward), as does, for
// interior roots, the step after two that crossed the root without halving |F| (the
// models can cycle otherwise). Iteration stops when |F| is below ε times
// a running bound on the rounding error of evaluating F, so the accuracy adapts to the
// conditioning of each root instead of a fixed tolerance.

// interior finds the root of e between poles i and i+1 (0 ≤ i < k−1). It returns the
// root as an offset tau from the origin pole o (i or i+1), with recip[j] = 1/(d[j] − λ),
// and the number of iterations. ok is false if the iteration cap was reached.
func (e *equation) interior(i int, recip []float64) (tau float64, o, iter int, ok bool) {
	d, z := e.d, e.z
	k := len(d)
	ip1 := i + 1

	// Initial guess: evaluate the far terms at the midpoint of the interval, freeze
	// them, and solve the two-pole model exactly (dlaed4's quadratic).
	del := d[ip1] - d[i]
	mid := del / 2
	psi := farSum(d[:i], z[:i], d[i], mid)
	phi := farSum(d[ip1+1:k], z[ip1+1:k], d[i], mid)
	c := e.a + e.b*(d[i]+mid) + psi + phi
	zi2, zp2 := z[i]*z[i], z[ip1]*z[ip1]
	w := c + zi2/(-mid) + zp2/((d[ip1]-d[i])-mid)

	// F(midpoint) > 0 puts the root in the lower half: measure it from dᵢ. Otherwise
	// it is in the upper half: measure it from dᵢ₊₁ (τ < 0).
	orgati := w > 0
	var lb, ub float64
	if orgati {
		o, lb, ub = i, 0, mid
		a := c*del + zi2 + zp2
		b := zi2 * del
		if a > 0 {
			tau = 2 * b / (a + math.Sqrt(math.Abs(a*a-4*b*c)))
		} else {
			tau = (a - math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
		}
		if !(tau > 0 && tau <= mid) {
			tau = mid / 2
		}
	} else {
		o, lb, ub = ip1, -mid, 0
		a := c*del - zi2 - zp2
		b := zp2 * del
		if a < 0 {
			tau = 2 * b / (a - math.Sqrt(math.Abs(a*a+4*b*c)))
		} else {
			tau = -(a + math.Sqrt(math.Abs(a*a+4*b*c))) / (2 * c)
		}
		if !(tau >= -mid && tau < 0) {
			tau = -mid / 2
		}
	}

	s := e.evaluate(o, tau, recip)
	w, w0, dw, bound := e.value(o, tau, &s, recip)

	// The three-pole step is needed when the non-origin part w0 has the sign that
	// makes the two-pole models overshoot; it needs a pole on each side of the origin.
	swtch3 := (orgati && w0 < 0) || (!orgati && w0 > 0)
	if o == 0 || o == k-1 {
		swtch3 = false
	}
	swtch := false // false: fixed weight; true: middle way
	// overshoots counts the consecutive steps that crossed the root without halving |F|.
	// The models can cycle between two points on either side of the root, each step
	// landing where the one before started: with a = b = 0 (a restriction) and a tiny
	// origin weight, F near the origin pole is a sum of far terms that cancel to
	// rounding, and the models see no slope there. After two such steps in a row, a step
	// of geometric bisection breaks the cycle. (One alone is common on the way to
	// convergence and left to the models.)
	overshoots := 0

	for iter = 1; ; iter++ {
		if math.Abs(w) <= vec.Roundoff*bound {
			return tau, o, iter, true
		}
		if iter > e.maxIter() {
			return tau, o, iter, false
		}
		if w <= 0 {
			lb = math.Max(lb, tau)
		} else {
			ub = math.Min(ub, tau)
		}

		var eta float64
		stepped := false
		overshot := overshoots >= 2
		if !overshot && swtch3 {
			eta, stepped = e.threePole(o, tau, orgati, swtch, iter == 1, w, w0, &s)
		}
		if !overshot && !stepped {
			// Also the fallback when the three-pole iteration fails: a two-pole step is
			// always available, and the safeguards below keep it inside the bracket.
			eta = e.twoPole(i, o, tau, orgati, swtch, w, dw, &s)
		}
		if !overshot && w*eta >= 0 {
			// Rounding made the model step point away from the root: Newton instead.
			eta = -w / dw
		}
		if next := tau + eta; overshot || !(next >= lb && next <= ub) {
			if w < 0 {
				eta = toward(tau, ub) - tau
			} else {
				eta = toward(tau, lb) - tau
			}
		}

		prew := w
		tau += eta
		s = e.evaluate(o, tau, recip)
		w, w0, dw, bound = e.value(o, tau, &s, recip)
		if w*prew < 0 && math.Abs(w) > math.Abs(prew)/2 && !overshot {
			overshoots++
		} else {
			overshoots = 0
		}

		// dlaed4's switching rule: after the first step take MW if F still has the
		// sign it had (insufficient progress toward the origin side); afterwards toggle
		// whenever a step fails to reduce |F| tenfold without crossing the root.
		if iter == 1 {
			if orgati {
				swtch = -w > math.Abs(prew)/10
			} else {
				swtch = w > math.Abs(prew)/10
			}
		} else if w*prew > 0 && math.Abs(w) > math.Abs(prew)/10 {
			swtch = !swtch
		}
	}
}

// value assembles F, F' and the error bound at λ = d_o + τ from the sums around o.
// It returns w = F(λ), w0 = F(λ) without the origin term, dw = F'(λ) and the bound
// (dlaed4's ERRETM for interior roots). The derivative b of the linear term is added
// to s.dphi: it behaves like a pole at +∞ and the middle-way model fits it with the
// poles above the root.
func (e *equation) value(o int, tau float64, s *sums, recip []float64) (w, w0, dw, bound float64) {
	r, rsize := e.rest(o, tau)
	s.dphi += e.b
	t := e.z[o] * recip[o]
	ot := e.z[o] * t
	w0 = r + s.psi + s.phi
	w = w0 + ot
	dw = s.dpsi + s.dphi + t*t
	bound = 8*(s.phi-s.psi) + s.err + 2*rsize + 3*math.Abs(ot) + math.Abs(tau)*dw
	return w, w0, dw, bound
}

// twoPole returns the fixed-weight or middle-way step for the root between poles i and
// i+1 (dlaed4): the smaller root of the quadratic c·η² − a·η + b = 0 obtained by
// clearing the denominators of the model.
func (e *equation) twoPole(i, o int, tau float64, orgati, middle bool, w, dw float64, s *sums) float64 {
	d, z := e.d, e.z
	ip1 := i + 1
	di, dp := e.diff(i, o, tau), e.diff(ip1, o, tau)
	dpsi, dphi := s.dpsi, s.dphi
	var c float64
	if !middle {
		if orgati {
			t := z[i] / di
			c = w - dp*dw - (d[i]-d[ip1])*t*t
		} else {
			t := z[ip1] / dp
			c = w - di*dw - (d[ip1]-d[i])*t*t
		}
	} else {
		t := z[o] / -tau // δ_o = −τ
		if orgati {
			dpsi += t * t
		} else {
			dphi += t * t
		}
		c = w - di*dpsi - dp*dphi
	}
	a := (di+dp)*w - di*dp*dw
	b := di * dp * w
	if c == 0 && a == 0 {
		// Degenerate model: keep the quadratic's linear coefficient from the parts that
		// cannot vanish (dlaed4).
		switch {
		case middle:
			a = di*di*dpsi + dp*dp*dphi
		case orgati:
			a = z[i]*z[i] + dp*dp*(s.dpsi+s.dphi)
		default:
			a = z[ip1]*z[ip1] + di*di*(s.dpsi+s.dphi)
		}
	}
	return smallRoot(a, b, c)
}

// threePole returns the step from the model with the origin pole and both of its
// neighbours (dlaed4 with dlaed6). ok is false if the model is unusable or its
// iteration does not converge; the caller then takes a two-pole step.
func (e *equation) threePole(o int, tau float64, orgati, middle, first bool, w, w0 float64, s *sums) (float64, bool) {
	d, z := e.d, e.z
	lo, hi := o-1, o+1
	dlo, dhi := e.diff(lo, o, tau), e.diff(hi, o, tau)
	var c float64
	var zz [3]float64
	switch {
	case middle:
		c = w0 - dlo*s.dpsi - dhi*s.dphi
		zz[0] = dlo * dlo * s.dpsi
		zz[2] = dhi * dhi * s.dphi
	case orgati:
		t := z[lo] / dlo
		t *= t
		c = w0 - dhi*(s.dpsi+s.dphi) - (d[lo]-d[hi])*t
		zz[0] = z[lo] * z[lo]
		zz[2] = dhi * dhi * ((s.dpsi - t) + s.dphi)
	default:
		t := z[hi] / dhi
		t *= t
		c = w0 - dlo*(s.dpsi+s.dphi) - (d[hi]-d[lo])*t
		zz[0] = dlo * dlo * (s.dpsi + (s.dphi - t))
		zz[2] = z[hi] * z[hi]
	}
	zz[1] = z[o] * z[o]
	if !(zz[0] > 0 && zz[2] > 0) {
		return 0, false
	}
	p := [3]float64{dlo, -tau, dhi}
	return gtw(first, orgati, c, &p, &zz, w)
}

// outer finds the root of e above its last pole (k ≥ 2), which lies in
// (d[k−1], d[k−1]+e.top]. The origin is the last pole; the result is the offset tau,
// with recip[j] = 1/(d[j] − λ).
func (e *equation) outer(recip []float64) (tau float64, iter int, ok bool) {
	d, z := e.d, e.z
	k := len(d)
	n, nm1 := k-1, k-2
	top := e.top

	// Initial guess from the two-pole model with the other terms frozen at the
	// midpoint of (0, top] (dlaed4, case I = N).
	mid := top / 2
	psi := farSum(d[:nm1], z[:nm1], d[n], mid)
	c := e.a + e.b*(d[n]+mid) + psi
	zm2, zn2 := z[nm1]*z[nm1], z[n]*z[n]
	w := c + zm2/((d[nm1]-d[n])-mid) + zn2/(-mid)
	del := d[n] - d[nm1]
	var lb, ub float64
	if w <= 0 {
		// The root is in [mid, top]. If even the frozen model is negative at top,
		// start there.
		lb, ub = mid, top
		if c <= zm2/(del+top)+zn2/top {
			tau = top
		} else {
			tau = outerGuess(c, del, zm2, zn2)
		}
	} else {
		lb, ub = 0, mid
		tau = outerGuess(c, del, zm2, zn2)
	}
	if !(tau >= lb && tau <= ub) || tau <= 0 {
		tau = (lb + ub) / 2
	}

	s := e.evaluate(n, tau, recip)
	w, dpsi, dphi, bound := e.outerValue(tau, &s, recip)

	for iter = 1; ; iter++ {
		if math.Abs(w) <= vec.Roundoff*bound {
			return tau, iter, true
		}
		if iter > e.maxIter() {
			return tau, iter, false
		}
		if w <= 0 {
			lb = math.Max(lb, tau)
		} else {
			ub = math.Min(ub, tau)
		}
		// Middle-way model with the last two poles.
		dm, dn := e.diff(nm1, n, tau), -tau
		c := w - dm*dpsi - dn*dphi
		a := (dm+dn)*w - dm*dn*(dpsi+dphi)
		b := dm * dn * w
		if iter == 1 && c < 0 {
			c = -c
		}
		var eta float64
		switch {
		case c == 0:
			// Newton rather than a jump to the bound (LAPACK PR #655, R.-C. Li).
			eta = -w / (dpsi + dphi)
		case a >= 0:
			eta = (a + math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
		default:
			eta = 2 * b / (a - math.Sqrt(math.Abs(a*a-4*b*c)))
		}
		if w*eta > 0 {
			eta = -w / (dpsi + dphi)
		}
		if next := tau + eta; !(next >= lb && next <= ub) {
			if w < 0 {
				eta = toward(tau, ub) - tau
			} else {
				eta = toward(tau, lb) - tau
			}
		}
		tau += eta
		s = e.evaluate(n, tau, recip)
		w, dpsi, dphi, bound = e.outerValue(tau, &s, recip)
	}
}

// outerValue assembles F, the split derivative and dlaed4's error bound for the root
// above the last pole, whose term is the origin term.
func (e *equation) outerValue(tau float64, s *sums, recip []float64) (w, dpsi, dphi, bound float64) {
	n := len(recip) - 1
	r, rsize := e.rest(n, tau)
	t := e.z[n] * recip[n]
	phi := e.z[n] * t
	dpsi = s.dpsi
	dphi = t*t + e.b
	w = r + s.psi + phi
	bound = 8*(-phi-s.psi) + s.err - phi + rsize + math.Abs(tau)*(dpsi+dphi)
	return w, dpsi, dphi, bound
}

// outerGuess solves the frozen two-pole model c − zm2/(del+τ) − zn2/τ = 0 for τ > 0.
func outerGuess(c, del, zm2, zn2 float64) float64 {
	a := -c*del + zm2 + zn2
	b := zn2 * del
	if a < 0 {
		return 2 * b / (math.Sqrt(a*a+4*b*c) - a)
	}
	return (a + math.Sqrt(a*a+4*b*c)) / (2 * c)
}

// farSum returns Σⱼ zⱼ²/((dⱼ − do) − tau): the terms frozen in the initial guess.
func farSum(d, z []float64, do, tau float64) float64 {
	z = z[:len(d)]
	var s float64
	for j, dj := range d {
		s += z[j] * z[j] / ((dj - do) - tau)
	}
	return s
}
