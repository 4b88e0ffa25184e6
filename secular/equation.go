package secular

import "math"

const (
	// maxIter caps the iterations spent on one root, as in dlaed4, unless
	// Solver.MaxIterations says otherwise.
	maxIter = 30
)

// equation is the canonical secular equation solved by the root finder,
//
//	F(λ) = a + b·λ + Σⱼ zⱼ²/(dⱼ − λ) = 0,
//
// with the poles d strictly increasing, every zⱼ ≠ 0 and b ≥ 0. Its derivative
// F'(λ) = b + Σ zⱼ²/(dⱼ − λ)² is positive, so F increases from −∞ to +∞ between
// consecutive poles and has exactly one root there.
//
// The rank-one problem D + ρzzᵀ with ρ > 0 is F with a = 1/ρ, b = 0: F tends to 1/ρ > 0
// at ±∞, so besides the k−1 interior roots there is exactly one root above the last pole
// and none below the first. The arrowhead [[D, w], [wᵀ, c]] is −g, F with a = −c, b = 1
// and zⱼ = wⱼ: F tends to ±∞ at ±∞, so there is one root below the first pole and one
// above the last, k+1 in all. The root below the first pole is found as the root above
// the last pole of the mirrored equation (see mirror).
type equation struct {
	d, z []float64
	a, b float64
	// top bounds the largest root: it lies in (d[k−1], d[k−1]+top].
	top float64
	// limit caps the iterations per root; 0 means maxIter.
	limit int
}

func (e *equation) maxIter() int {
	if e.limit > 0 {
		return e.limit
	}
	return maxIter
}

// sums holds the parts of F and F' accumulated around an origin pole o: ψ over the
// poles below o, φ over the poles above, and dlaed4's running bound on the rounding
// error of the two recursive sums.
type sums struct {
	psi, dpsi, phi, dphi, err float64
}

// evaluate evaluates the sums of F and F' at λ = d_o + τ below and above the origin
// pole o, with dlaed4's running bound on the rounding error of the two recursive sums,
// and writes recip[j] = 1/δⱼ for the differences δⱼ = (dⱼ − d_o) − τ. The reciprocals
// are what the eigenvectors need (entries ẑⱼ/δⱼ, Löwner ratios δⱼ/(dⱼ − dᵢ)), and the
// sums need them anyway: one division per pole.
//
// dlaed4 instead stores the differences and updates them by each step (δⱼ −= η). That
// adds an error of ε·|δⱼ| at every step with δⱼ as it was then, so an iterate that
// wanders far from the root before converging (LAPACK issue #1166) leaves differences to
// the poles near the root with large relative errors, which Löwner's formula turns into
// a loss of orthogonality. Computed afresh from τ, with the origin the pole nearer the
// root, every δⱼ is within 3ε of itself: |δⱼ| ≥ |dⱼ − d_o|/2 for j ≠ o, and δ_o = −τ
// exactly. λ itself is never formed (docs/design.md, "The root finder").
func (e *equation) evaluate(o int, tau float64, recip []float64) sums {
	k := len(recip)
	d, z := e.d[:k], e.z[:k]
	do := d[o]
	// Local accumulators: kept in registers, where fields of a result struct would
	// put a memory round trip into every loop-carried dependency.
	var psi, dpsi, erretm float64
	dl, zl, rl := d[:o], z[:o], recip[:o]
	for j := range rl {
		r := 1 / ((dl[j] - do) - tau)
		rl[j] = r
		t := zl[j] * r
		psi += zl[j] * t
		dpsi += t * t
		erretm += psi
	}
	erretm = math.Abs(erretm)
	recip[o] = -1 / tau
	var phi, dphi float64
	du, zu, ru := d[o+1:], z[o+1:len(d)], recip[o+1:]
	for j := len(ru) - 1; j >= 0; j-- {
		r := 1 / ((du[j] - do) - tau)
		ru[j] = r
		t := zu[j] * r
		phi += zu[j] * t
		dphi += t * t
		erretm += phi
	}
	return sums{psi: psi, dpsi: dpsi, phi: phi, dphi: dphi, err: erretm}
}

// diff returns δⱼ = (dⱼ − d_o) − τ, exactly as evaluate computes it.
func (e *equation) diff(j, o int, tau float64) float64 {
	return (e.d[j] - e.d[o]) - tau
}

// differences writes δⱼ = (dⱼ − d_o) − τ for all poles.
func (e *equation) differences(o int, tau float64, delta []float64) {
	for j := range delta {
		delta[j] = e.diff(j, o, tau)
	}
}

// toward returns the point a safeguarded step moves to from tau when the model step
// leaves the bracket: half-way to bound, measured geometrically when tau and bound have
// the same sign and differ by more than a factor of four. A root a few ulps from a pole
// can sit many orders of magnitude below the bracket's other end; arithmetic halving
// would need one step per factor of two, geometric halving one per halving of the
// exponent range. A bound of zero (the origin pole) is replaced by tau·2⁻³⁰ for this
// purpose.
func toward(tau, bound float64) float64 {
	if bound == 0 {
		bound = tau * 0x1p-30
	}
	if tau == 0 || (tau > 0) != (bound > 0) {
		return (tau + bound) / 2
	}
	a, b := math.Abs(tau), math.Abs(bound)
	if math.Max(a, b) <= 4*math.Min(a, b) {
		return (tau + bound) / 2
	}
	return math.Copysign(math.Sqrt(a)*math.Sqrt(b), tau)
}

// rest returns the non-pole part a + b·λ of F at λ = d_o + τ, evaluated as
// (a + b·d_o) + b·τ so that the small offset τ enters last, and a bound on its size
// for the error estimate.
func (e *equation) rest(o int, tau float64) (r, size float64) {
	do := e.d[o]
	r = (e.a + e.b*do) + e.b*tau
	size = math.Abs(e.a) + e.b*(math.Abs(do)+math.Abs(tau))
	return r, size
}

// smallRoot returns the root of c·x² − a·x + b = 0 that dlaed4 and dlaed6 take as the
// step: written without cancellation, and b/a when c = 0.
func smallRoot(a, b, c float64) float64 {
	switch {
	case c == 0:
		return b / a
	case a <= 0:
		return (a - math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
	default:
		return 2 * b / (a + math.Sqrt(math.Abs(a*a-4*b*c)))
	}
}

// mirror writes into m the equation satisfied by μ = −λ: with d̃ⱼ = −d_{k−1−j},
// z̃ⱼ = z_{k−1−j}, F̃(μ) = −F(−μ) = −a + b·μ + Σ z̃ⱼ²/(d̃ⱼ − μ). The roots of F below
// its first pole are the roots of F̃ above its last pole, negated. d and z are the
// caller's scratch slices of length k.
func (e *equation) mirror(m *equation, d, z []float64, top float64) {
	k := len(e.d)
	for j := range k {
		d[j] = -e.d[k-1-j]
		z[j] = e.z[k-1-j]
	}
	*m = equation{d: d, z: z, a: -e.a, b: e.b, top: top, limit: e.limit}
}

// unmirror converts differences δ̃ of the mirrored equation (order reversed), or their
// reciprocals, into those of the original one: δⱼ = dⱼ − λ = −(d̃_{k−1−j} − μ).
func unmirror(delta []float64) {
	k := len(delta)
	for j := 0; j < k/2; j++ {
		delta[j], delta[k-1-j] = -delta[k-1-j], -delta[j]
	}
	if k%2 == 1 {
		delta[k/2] = -delta[k/2]
	}
}
