// Package oracle computes reference roots of secular equations in
// arbitrary precision. It exists only to check the fast float64 secular
// equation solver in tests, so it is written to be simple and evidently
// correct rather than fast: every root is found by bisection, in
// math/big.Float arithmetic with at least 256 bits, on the signs of a
// function that is proved (below) to be strictly increasing on the bracket.
//
// # Problems
//
// RankOne finds the n eigenvalues of diag(d) + ρ·z·zᵀ, the roots of
//
//	f(λ) = 1 + ρ Σ_j z_j²/(d_j − λ).
//
// Arrow finds the n+1 eigenvalues of the arrowhead matrix
// [[diag(d), w], [wᵀ, c]], the roots of
//
//	g(λ) = c − λ − Σ_j w_j²/(d_j − λ).
//
// Restrict finds the n−1 eigenvalues of diag(d) restricted to the
// hyperplane orthogonal to z (the eigenvalues left when row and column i of
// U·diag(d)·Uᵀ are deleted, with z the row i of U), the roots of
//
//	h(λ) = Σ_j z_j²/(d_j − λ).
//
// # Monotone form
//
// All are handled through one function that is increasing in λ between
// consecutive poles:
//
//	rank-one:    H(λ) = sign(ρ)·f(λ) = sign(ρ) + Σ_j s_j/(d_j − λ),  s_j = |ρ|·z_j²,
//	arrowhead:   H(λ) = −g(λ)        = λ − c  + Σ_j s_j/(d_j − λ),  s_j = w_j²,
//	restriction: H(λ) = h(λ)         =          Σ_j s_j/(d_j − λ),  s_j = z_j².
//
// H has the same roots as f (resp. g), because sign(ρ) ≠ 0. Its derivative is
//
//	rank-one, restriction: H'(λ) = Σ_j s_j/(d_j − λ)²,
//	arrowhead:             H'(λ) = 1 + Σ_j s_j/(d_j − λ)²,
//
// which is strictly positive wherever H is defined, since every s_j > 0
// (z_j ≠ 0, w_j ≠ 0, ρ ≠ 0). So H is strictly increasing on each open
// interval between consecutive poles, and on the two unbounded end
// intervals. Near a pole d_k, the term s_k/(d_k − λ) dominates: H → +∞ as
// λ → d_k from the left and H → −∞ as λ → d_k from the right. Hence every
// interior interval (d_k, d_{k+1}) contains exactly one root. On the end
// intervals the limits at ±∞ decide: for the rank-one function
// H → sign(ρ) at ±∞, so (d_n, +∞) holds one root when ρ > 0 and
// (−∞, d_1) holds one when ρ < 0, and the other end interval holds none;
// for the arrowhead H → ±∞ at ±∞, so both end intervals hold one root;
// for the restriction every term is positive below d_1 and negative above
// d_n, so neither end interval holds a root. This gives n roots for
// RankOne, n+1 for Arrow and n−1 for Restrict, as required.
//
// # Offsets and bisection
//
// Each root λ is written as λ = p + σ·t with p the pole of its interval
// that is nearest to it, σ = +1 if the root lies to the right of p and
// σ = −1 if it lies to the left, and t > 0. (For an interior interval the
// nearer pole is found from the sign of H at the exact midpoint of the
// interval; for an end interval there is only one pole.) Then
//
//	φ(t) = σ·sign(H(p + σ·t))
//
// is a non-decreasing step function of t on the bracket: it is −1 for t
// between 0 and the root and +1 beyond it, because H increases in λ and
// λ moves in direction σ as t grows; at t → 0+ it is −1 by the pole limits
// above. Bisection keeps a bracket 0 ≤ a < t* < b with φ(a) < 0 < φ(b)
// (a = 0 stands for the pole itself) and replaces one end by a point m
// strictly inside with the same sign of φ as that end. Any such m keeps the
// invariant, so the choice of m affects only speed, never correctness:
//
//   - while a = 0, m = b·2^(−K) (exact in binary), with K = 1 at first and
//     doubled each time the root turns out to lie below m, so that a root
//     extremely close to its pole is reached in a few steps;
//   - while b > 8a > 0, m is a power of two strictly between a and b, near
//     the geometric mean (bisection of the exponent);
//   - otherwise m = (a + b)/2.
//
// Bisection stops when b − a ≤ 2^(−80)·a (the offset is known to 80 bits
// relative to itself) and also b − a ≤ 2^(−80)·|λ| for every λ in the
// bracket, the latter being waived once b − a ≤ 2^(−(prec−48))·|p| (this
// only matters when λ nearly cancels against p, i.e. |λ| ≪ |p|). An
// iteration cap turns any failure to converge into an error.
//
// # Accuracy
//
// The working precision prec is at least 256 bits and is raised, when the
// binary exponents of d (and c) span more than 128 bits, so that all
// input-derived constants are exact: the pole differences d_j − p, the
// weights |ρ|·z_j² or w_j², and p − c. Each evaluation of H(p + σ·t) then
// has an absolute error of at most about (n+3)·2^(−prec)·S, where S is the
// sum of the absolute values of the terms of H. A sign can therefore be
// wrong only within about E = (n+3)·2^(−prec)·S/H' of the root, and the
// final offset t (the midpoint of the last bracket) satisfies
//
//	|t − t*| ≤ 2^(−81)·t* + E.
//
// E/t* = (n+3)·2^(−prec)·κ with κ = S/(t*·H') the relative condition number
// of the offset. The statements below assume E ≤ 2^(−90)·t*, i.e.
// κ ≤ 2^(prec−90)/(n+3); for prec = 256 and n ≤ 1000 this admits κ up to
// about 10^46, which covers every problem with float64 data that is not
// absurdly ill-conditioned.
//
// Delta: for every j, |d_j − λ| ≥ t*, because poles on the far side of λ are
// farther than p, and a pole on the same side as the offset direction is at
// least twice as far from p as λ is (p is the nearer pole of the interval).
// Delta[i][j] = (d_j − p) − σ·t is computed with one rounding at prec bits,
// so before its final rounding to float64 it has relative error below
// 2^(−80). Hence every Delta[i][j] is within one ulp of the exact
// d_j − λ_i (and is its correctly rounded value unless the exact value lies
// within a relative 2^(−79) of a rounding boundary), however close λ_i is to
// d_j, provided the result is a normal float64. Its sign is always exact; a
// value below the float64 range becomes a zero with the right sign bit.
//
// Lambda: Lambda[i] = p + σ·t is likewise within one ulp of λ_i, provided
// |λ_i| ≥ 2^(−(prec−128))·|p| (no catastrophic cancellation between p and
// the offset) and E ≤ 2^(−90)·|λ_i|; otherwise its absolute error is at
// most about 2^(−(prec−48))·|p| + E. Because t stays strictly inside its
// bracket, the high-precision λ_i lies strictly between its poles, so the
// rounded Lambda are always ascending and interlace the poles at least
// non-strictly (d_k ≤ Lambda ≤ d_{k+1}); strictness in exact arithmetic is
// visible in the signs of Delta.
//
// Values that overflow float64 after rounding are reported as errors.
package oracle

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"sync"
	"sync/atomic"
)

// Roots holds reference eigenvalues and the differences d_j − λ_i, each
// computed in high precision and rounded once to float64.
type Roots struct {
	// Lambda holds the roots in ascending order. Consecutive values can
	// coincide only when the exact roots are closer than float64 can
	// resolve.
	Lambda []float64
	// Delta[i][j] = d_j − Lambda_i, computed as (d_j − λ_i) in high
	// precision and then rounded, so it is accurate to about one ulp
	// relative to itself even when λ_i is extremely close to d_j. Its sign
	// is always exact (an underflow gives a zero with the right sign bit).
	// Delta has len(Lambda) rows of len(d) entries each.
	Delta [][]float64
}

// offsetBits is the number of bits to which each offset t is resolved
// relative to itself.
const offsetBits = 80

// minPrec is the smallest working precision in bits.
const minPrec = 256

// maxIter bounds the number of bisection steps for a single root. The
// schedule needs far fewer (about 30 to reach the magnitude of any offset,
// 85 to resolve it, and at most a few thousand to refine λ near zero).
const maxIter = 20000

// maxDoublings bounds the search for an outer bracket end; the bound used
// as a starting point is already a proven bracket end in exact arithmetic.
const maxDoublings = 4000

// RankOne returns the n eigenvalues of diag(d) + rho·z·zᵀ, i.e. the roots
// λ of 1 + rho·Σ_j z_j²/(d_j − λ), with the differences d_j − λ_i. The
// poles d must be strictly increasing, len(z) must equal len(d) ≥ 1, every
// z_j must be nonzero, rho must be nonzero, and all inputs must be finite.
// See the package documentation for the accuracy of the results.
func RankOne(d, z []float64, rho float64) (Roots, error) {
	if len(d) == 0 {
		return Roots{}, errors.New("oracle: RankOne needs at least one pole")
	}
	if len(z) != len(d) {
		return Roots{}, fmt.Errorf("oracle: len(z) = %d, want len(d) = %d", len(z), len(d))
	}
	if math.IsNaN(rho) || math.IsInf(rho, 0) {
		return Roots{}, fmt.Errorf("oracle: rho = %v is not finite", rho)
	}
	if rho == 0 {
		return Roots{}, errors.New("oracle: rho is zero")
	}
	if err := checkPoles(d); err != nil {
		return Roots{}, err
	}
	if err := checkWeights("z", z); err != nil {
		return Roots{}, err
	}

	prec := workPrec(d, nil)
	p := &secular{prec: prec, d: bigSlice(d, prec), s: make([]*big.Float, len(d))}
	absRho := newFloat(prec).SetFloat64(math.Abs(rho))
	for j, zj := range z {
		zz := newFloat(prec).SetFloat64(zj)
		zz.Mul(zz, zz)
		p.s[j] = zz.Mul(zz, absRho) // exact: at most 159 significant bits
	}
	if rho > 0 {
		p.base = newFloat(prec).SetInt64(1)
	} else {
		p.base = newFloat(prec).SetInt64(-1)
	}

	n := len(d)
	return p.roots("RankOne", n, func(i int) (location, error) {
		switch {
		case rho > 0 && i == n-1:
			return p.outer(n-1, +1, p.sumWeights())
		case rho > 0:
			return p.interior(i)
		case i == 0:
			return p.outer(0, -1, p.sumWeights())
		default:
			return p.interior(i - 1)
		}
	})
}

// Arrow returns the n+1 eigenvalues of the symmetric arrowhead matrix
// [[diag(d), w], [wᵀ, c]], i.e. the roots λ of c − λ − Σ_j w_j²/(d_j − λ),
// with the differences d_j − λ_i. The poles d must be strictly increasing
// (n = len(d) may be 0, in which case the only root is c), len(w) must equal
// len(d), every w_j must be nonzero, and all inputs must be finite. See the
// package documentation for the accuracy of the results.
func Arrow(d, w []float64, c float64) (Roots, error) {
	if len(w) != len(d) {
		return Roots{}, fmt.Errorf("oracle: len(w) = %d, want len(d) = %d", len(w), len(d))
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return Roots{}, fmt.Errorf("oracle: c = %v is not finite", c)
	}
	if err := checkPoles(d); err != nil {
		return Roots{}, err
	}
	if err := checkWeights("w", w); err != nil {
		return Roots{}, err
	}
	n := len(d)
	if n == 0 {
		return Roots{Lambda: []float64{c}, Delta: [][]float64{{}}}, nil
	}

	prec := workPrec(d, []float64{c})
	p := &secular{prec: prec, d: bigSlice(d, prec), s: make([]*big.Float, n)}
	for j, wj := range w {
		ww := newFloat(prec).SetFloat64(wj)
		p.s[j] = ww.Mul(ww, ww) // exact: at most 106 significant bits
	}
	p.c = newFloat(prec).SetFloat64(c)

	// Starting bounds for the offsets of the outer roots from their poles:
	// λ_1 ≥ min(d_1, c) − ‖w‖₂ and λ_{n+1} ≤ max(d_n, c) + ‖w‖₂ (Cauchy
	// interlacing / Gershgorin-type bounds), with ‖w‖₂ ≤ Σ|w_j|.
	sumAbs := newFloat(prec)
	for _, wj := range w {
		sumAbs.Add(sumAbs, newFloat(prec).SetFloat64(math.Abs(wj)))
	}
	leftB := newFloat(prec).Sub(p.d[0], p.c) // d_1 − c
	if leftB.Sign() < 0 {
		leftB.SetInt64(0)
	}
	leftB.Add(leftB, sumAbs)
	rightB := newFloat(prec).Sub(p.c, p.d[n-1]) // c − d_n
	if rightB.Sign() < 0 {
		rightB.SetInt64(0)
	}
	rightB.Add(rightB, sumAbs)

	return p.roots("Arrow", n+1, func(i int) (location, error) {
		switch i {
		case 0:
			return p.outer(0, -1, leftB)
		case n:
			return p.outer(n-1, +1, rightB)
		default:
			return p.interior(i - 1)
		}
	})
}

// Restrict returns the n−1 eigenvalues of diag(d) restricted to the
// hyperplane orthogonal to z, i.e. the roots λ of Σ_j z_j²/(d_j − λ), with
// the differences d_j − λ_i. The poles d must be strictly increasing,
// len(z) must equal len(d) ≥ 1, every z_j must be nonzero, and all inputs
// must be finite. The equation does not depend on the scale of z. See the
// package documentation for the accuracy of the results.
func Restrict(d, z []float64) (Roots, error) {
	if len(d) == 0 {
		return Roots{}, errors.New("oracle: Restrict needs at least one pole")
	}
	if len(z) != len(d) {
		return Roots{}, fmt.Errorf("oracle: len(z) = %d, want len(d) = %d", len(z), len(d))
	}
	if err := checkPoles(d); err != nil {
		return Roots{}, err
	}
	if err := checkWeights("z", z); err != nil {
		return Roots{}, err
	}
	prec := workPrec(d, nil)
	p := &secular{prec: prec, d: bigSlice(d, prec), s: make([]*big.Float, len(d)), base: newFloat(prec)}
	for j, zj := range z {
		zz := newFloat(prec).SetFloat64(zj)
		p.s[j] = zz.Mul(zz, zz) // exact: at most 106 significant bits
	}
	n := len(d)
	return p.roots("Restrict", n-1, p.interior)
}

// roots locates the m roots of p's equation (root i by locate(i)) and stores them with
// their differences from p's poles, spread over up to GOMAXPROCS goroutines; it returns
// the error of the lowest failing index, under the name of the equation (what). The
// roots are independent computations: locate only reads the shared problem, and root
// i is written to row i of the output alone.
func (p *secular) roots(what string, m int, locate func(i int) (location, error)) (Roots, error) {
	out := newRoots(m, len(p.d))
	errs := make([]error, m)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), m) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= m {
					return
				}
				loc, err := locate(i)
				if err == nil {
					err = p.store(&out, i, loc)
				}
				if err != nil {
					errs[i] = fmt.Errorf("oracle: %s root %d: %w", what, i, err)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Roots{}, err
		}
	}
	return out, nil
}

// checkPoles reports whether d is finite and strictly increasing.
func checkPoles(d []float64) error {
	for j, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("oracle: d[%d] = %v is not finite", j, v)
		}
		if j > 0 && !(d[j-1] < v) {
			return fmt.Errorf("oracle: d is not strictly increasing at index %d (%v, %v)", j, d[j-1], v)
		}
	}
	return nil
}

// checkWeights reports whether every weight is finite and nonzero.
func checkWeights(name string, v []float64) error {
	for j, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("oracle: %s[%d] = %v is not finite", name, j, x)
		}
		if x == 0 {
			return fmt.Errorf("oracle: %s[%d] is zero", name, j)
		}
	}
	return nil
}

// workPrec returns a precision in bits, at least minPrec, at which the
// difference of any two of the values in a and b is exact. A difference of
// two float64 values whose binary exponents span e bits needs at most
// e + 54 bits.
func workPrec(a, b []float64) uint {
	emin, emax := math.MaxInt, math.MinInt
	for _, vs := range [][]float64{a, b} {
		for _, v := range vs {
			if v == 0 {
				continue
			}
			_, e := math.Frexp(v)
			emin = min(emin, e)
			emax = max(emax, e)
		}
	}
	prec := minPrec
	if emin <= emax {
		need := emax - emin + 128
		if need > prec {
			prec = (need + 63) / 64 * 64
		}
	}
	return uint(prec)
}

// newFloat returns a zero big.Float with precision prec.
func newFloat(prec uint) *big.Float {
	return new(big.Float).SetPrec(prec)
}

// bigSlice converts v exactly to big.Float values of precision prec.
func bigSlice(v []float64, prec uint) []*big.Float {
	out := make([]*big.Float, len(v))
	for i, x := range v {
		out[i] = newFloat(prec).SetFloat64(x)
	}
	return out
}

// newRoots allocates a Roots value with m roots and n poles.
func newRoots(m, n int) Roots {
	r := Roots{Lambda: make([]float64, m), Delta: make([][]float64, m)}
	for i := range r.Delta {
		r.Delta[i] = make([]float64, n)
	}
	return r
}

// secular holds one problem in monotone form:
// H(λ) = base + Σ_j s[j]/(d[j] − λ) for the rank-one problem and the
// restriction (c == nil; base = 0 for the restriction), and
// H(λ) = (λ − c) + Σ_j s[j]/(d[j] − λ) for the arrowhead (c != nil).
type secular struct {
	prec uint
	d    []*big.Float // poles, exact
	s    []*big.Float // weights, exact and positive
	base *big.Float   // ±1 for the rank-one problem, 0 for the restriction
	c    *big.Float   // corner, arrowhead only
}

// sumWeights returns Σ_j s_j, which is |ρ|·‖z‖² for the rank-one problem.
func (p *secular) sumWeights() *big.Float {
	sum := newFloat(p.prec)
	for _, s := range p.s {
		sum.Add(sum, s)
	}
	return sum
}

// location describes a root as λ = d[pole] + dir·t with t > 0.
type location struct {
	pole int
	dir  int // +1: root to the right of the pole; −1: to the left
	t    *big.Float
}

// evaluator evaluates φ(t) = dir·sign(H(d[pole] + dir·t)) for one pole and
// one direction. All constants it uses are exact.
type evaluator struct {
	p    *secular
	dir  int
	off  []*big.Float // d[j] − d[pole], exact
	lead *big.Float   // rank-one: base; arrowhead: d[pole] − c (exact)
	// scratch values of precision p.prec
	st, den, q, sum *big.Float
}

// newEvaluator prepares the evaluation of φ around pole k in direction dir.
func (p *secular) newEvaluator(k, dir int) *evaluator {
	e := &evaluator{
		p:   p,
		dir: dir,
		off: make([]*big.Float, len(p.d)),
		st:  newFloat(p.prec),
		den: newFloat(p.prec),
		q:   newFloat(p.prec),
		sum: newFloat(p.prec),
	}
	for j := range p.d {
		e.off[j] = newFloat(p.prec).Sub(p.d[j], p.d[k])
	}
	if p.c == nil {
		e.lead = p.base
	} else {
		e.lead = newFloat(p.prec).Sub(p.d[k], p.c)
	}
	return e
}

// phi returns φ(t) ∈ {−1, 0, +1} for t > 0.
func (e *evaluator) phi(t *big.Float) int {
	st := e.st.Set(t) // σ·t, the offset of λ from the pole
	if e.dir < 0 {
		st.Neg(st)
	}
	sum := e.sum.Set(e.lead)
	if e.p.c != nil {
		sum.Add(sum, st) // λ − c = (d[pole] − c) + σ·t
	}
	for j, off := range e.off {
		den := e.den.Sub(off, st) // d_j − λ
		sum.Add(sum, e.q.Quo(e.p.s[j], den))
	}
	return e.dir * sum.Sign()
}

// interior locates the root in (d[k], d[k+1]).
func (p *secular) interior(k int) (location, error) {
	half := newFloat(p.prec).Sub(p.d[k+1], p.d[k]) // exact
	half.SetMantExp(half, -1)                      // half the gap, exact
	left := p.newEvaluator(k, +1)
	switch left.phi(half) {
	case 0: // the midpoint is the root
		return location{pole: k, dir: +1, t: half}, nil
	case 1: // H > 0 at the midpoint: the root is in the left half
		t, err := bisect(left, half, p.d[k])
		return location{pole: k, dir: +1, t: t}, err
	default: // H < 0 at the midpoint: the root is in the right half
		// Seen from d[k+1], the midpoint is at t = half and
		// φ = −sign(H) = +1 there, as bisect requires.
		right := p.newEvaluator(k+1, -1)
		t, err := bisect(right, half, p.d[k+1])
		return location{pole: k + 1, dir: -1, t: t}, err
	}
}

// outer locates the root beyond the end pole k in direction dir, starting
// from bound, an upper bound on its offset that is valid in exact
// arithmetic. The bound is doubled, defensively, until φ > 0 is observed.
func (p *secular) outer(k, dir int, bound *big.Float) (location, error) {
	e := p.newEvaluator(k, dir)
	b := newFloat(p.prec).Set(bound)
	for i := 0; ; i++ {
		if i > maxDoublings {
			return location{}, errors.New("no bracket found for the outer root")
		}
		switch e.phi(b) {
		case 0:
			return location{pole: k, dir: dir, t: b}, nil
		case 1:
			t, err := bisect(e, b, p.d[k])
			return location{pole: k, dir: dir, t: t}, err
		}
		b.SetMantExp(b, 1)
	}
}

// bisect returns the root t* of φ in (0, b), given φ(0+) < 0 < φ(b). pole is
// the value of the pole that t is measured from; it enters only the stopping
// test for λ = pole ± t.
func bisect(e *evaluator, b0 *big.Float, pole *big.Float) (*big.Float, error) {
	prec := e.p.prec
	a := newFloat(prec)         // 0: the pole itself
	b := newFloat(prec).Set(b0) // φ(b) > 0
	m := newFloat(prec)
	k := 1 // exponent step while a == 0
	for iter := 0; ; iter++ {
		if done(a, b, pole, e.dir, prec) {
			break
		}
		if iter >= maxIter {
			return nil, fmt.Errorf("bisection did not converge in %d steps", maxIter)
		}
		switch {
		case a.Sign() == 0:
			m.SetMantExp(b, -k)
		case b.Cmp(newFloat(prec).SetMantExp(a, 3)) > 0: // b > 8a
			ea := a.MantExp(nil)
			eb := b.MantExp(nil)
			// a < 2^ea, b ≥ 2^(eb−1) and eb − ea ≥ 3, so
			// a < 2^(ea+1) ≤ m ≤ 2^(eb−2) < b.
			m.SetMantExp(newFloat(prec).SetInt64(1), floorHalf(ea+eb))
		default:
			m.Add(a, b)
			m.SetMantExp(m, -1)
		}
		if !(a.Cmp(m) < 0 && m.Cmp(b) < 0) {
			return nil, fmt.Errorf("bisection midpoint %.6g not inside [%.6g, %.6g]", m, a, b)
		}
		switch e.phi(m) {
		case 0:
			return m, nil
		case -1:
			a.Set(m)
		default:
			if a.Sign() == 0 {
				k *= 2
			}
			b.Set(m)
		}
	}
	t := newFloat(prec).Add(a, b)
	return t.SetMantExp(t, -1), nil
}

// floorHalf returns ⌊x/2⌋.
func floorHalf(x int) int {
	if x >= 0 {
		return x / 2
	}
	return -((-x + 1) / 2)
}

// done reports whether the bracket [a, b] for the offset is narrow enough:
// b − a ≤ 2^(−80)·a, and b − a ≤ 2^(−80)·|λ| over the bracket
// λ ∈ pole + dir·[a, b], or b − a ≤ 2^(−(prec−48))·|pole|.
func done(a, b, pole *big.Float, dir int, prec uint) bool {
	if a.Sign() <= 0 {
		return false
	}
	width := newFloat(prec).Sub(b, a)
	if width.Cmp(newFloat(prec).SetMantExp(a, -offsetBits)) > 0 {
		return false
	}
	la := newFloat(prec).Set(a)
	lb := newFloat(prec).Set(b)
	if dir < 0 {
		la.Neg(la)
		lb.Neg(lb)
	}
	la.Add(la, pole)
	lb.Add(lb, pole)
	if la.Sign()*lb.Sign() > 0 {
		small := la.Abs(la)
		if lb.Abs(lb).Cmp(small) < 0 {
			small = lb
		}
		if width.Cmp(small.SetMantExp(small, -offsetBits)) <= 0 {
			return true
		}
	}
	floor := newFloat(prec).Abs(pole)
	floor.SetMantExp(floor, -(int(prec) - 48))
	return width.Cmp(floor) <= 0
}

// store rounds the located root and its pole differences into out.
func (p *secular) store(out *Roots, i int, loc location) error {
	st := newFloat(p.prec).Set(loc.t)
	if loc.dir < 0 {
		st.Neg(st)
	}
	lam := newFloat(p.prec).Add(p.d[loc.pole], st)
	lf, _ := lam.Float64()
	if math.IsInf(lf, 0) {
		return fmt.Errorf("eigenvalue %.6g overflows float64", lam)
	}
	out.Lambda[i] = lf
	diff := newFloat(p.prec)
	off := newFloat(p.prec)
	for j := range p.d {
		off.Sub(p.d[j], p.d[loc.pole]) // exact
		diff.Sub(off, st)              // d_j − λ, one rounding
		df, _ := diff.Float64()
		if math.IsInf(df, 0) {
			return fmt.Errorf("difference d[%d] − λ = %.6g overflows float64", j, diff)
		}
		out.Delta[i][j] = df
	}
	return nil
}
