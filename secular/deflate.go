package secular

import "math"

// Rotation is a Givens rotation of two basis vectors, in the convention of BLAS drot:
//
//	(u_I, u_J) ← (C·u_I + S·u_J, C·u_J − S·u_I).
//
// After it, u_I is a deflated eigenvector and u_J carries the combined weight.
type Rotation struct {
	I, J int
	C, S float64
}

// Apply applies the rotation to the pair of entries I, J of x.
func (g Rotation) Apply(x []float64) {
	xi, xj := x[g.I], x[g.J]
	x[g.I] = g.C*xi + g.S*xj
	x[g.J] = g.C*xj - g.S*xi
}

// deflated is an eigenpair taken out of the secular problem: a (possibly rotated)
// basis column and its eigenvalue.
type deflated struct {
	value  float64
	column int
}

// deflate applies LAPACK's deflation rules (dlaed2 and dlaed8) to the poles d, sorted
// ascending, and the weights z, in place. The effective weight of component j is
// |rho·z[j]| (rho = 1 for arrowheads). With tol = 64·ε·σ:
//
//   - component j deflates when its effective weight is at most tol: the pair (d[j], eⱼ)
//     is an eigenpair up to a perturbation of that size;
//   - two surviving poles p < n (each compared only with the previous survivor) deflate
//     when |(d[n] − d[p])·c·s| ≤ tol for the rotation (c, s) that moves the weight of p
//     onto n: the off-diagonal element it creates is neglected. d[p] and d[n] become the
//     Rayleigh quotients of the rotated vectors.
//
// The survivors are left with strictly increasing poles and non-zero weights, the root
// finder's preconditions. Results go to s.keep, s.defl and s.rots.
func (s *Solver) deflate(d, z []float64, rho, tol float64) {
	s.keep = s.keep[:0]
	s.defl = s.defl[:0]
	s.rots = s.rots[:0]
	p := -1 // previous survivor
	for j := range d {
		if math.Abs(rho*z[j]) <= tol {
			s.defl = append(s.defl, deflated{d[j], j})
			continue
		}
		if p < 0 {
			p = j
			continue
		}
		tau := math.Hypot(z[p], z[j])
		c := z[j] / tau
		sn := -z[p] / tau
		if math.Abs((d[j]-d[p])*c*sn) <= tol {
			s.rots = append(s.rots, Rotation{I: p, J: j, C: c, S: sn})
			z[j], z[p] = tau, 0
			// The Rayleigh quotients dₚc² + dⱼs² and dₚs² + dⱼc², written so that
			// they stay in [dₚ, dⱼ] and are exact for equal poles although the
			// rounded c² + s² is not exactly 1.
			shift := (d[j] - d[p]) * sn * sn
			d[p] += shift
			d[j] -= shift
			s.defl = append(s.defl, deflated{d[p], p})
		} else {
			s.keep = append(s.keep, p)
		}
		p = j
	}
	if p >= 0 {
		s.keep = append(s.keep, p)
	}
}
