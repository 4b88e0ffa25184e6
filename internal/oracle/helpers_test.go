package oracle

import (
	"math"
	"math/big"
	"testing"
)

// testPrec is the precision of the test-side exact computations. It is
// large enough to make sums of the float64 values used in the tests exact.
const testPrec = 4096

// bf returns x as an exact big.Float of precision testPrec.
func bf(x float64) *big.Float {
	return new(big.Float).SetPrec(testPrec).SetFloat64(x)
}

// nf returns a zero big.Float of precision testPrec.
func nf() *big.Float {
	return new(big.Float).SetPrec(testPrec)
}

// ulp returns the spacing of float64 values at |x|: the distance from |x|
// to the next larger float64.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// toF rounds x to float64.
func toF(x *big.Float) float64 {
	f, _ := x.Float64()
	return f
}

// absDiff returns |x − y| exactly-ish (rounded to testPrec) as float64.
func absDiff(x, y *big.Float) float64 {
	d := nf().Sub(x, y)
	return math.Abs(toF(d))
}

// sign returns −1, 0 or +1.
func sign(x float64) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// checkShape verifies the dimensions of r.
func checkShape(t *testing.T, r Roots, m, n int) bool {
	t.Helper()
	if len(r.Lambda) != m || len(r.Delta) != m {
		t.Errorf("got %d roots and %d Delta rows, want %d", len(r.Lambda), len(r.Delta), m)
		return false
	}
	for i, row := range r.Delta {
		if len(row) != n {
			t.Errorf("len(Delta[%d]) = %d, want %d", i, len(row), n)
			return false
		}
	}
	return true
}

// checkCommon verifies properties shared by both problems:
//   - Lambda is ascending and, with strict set, strictly ascending;
//   - root i lies in the interval (d[i−shift], d[i+1−shift]) (missing ends
//     are ±∞): Delta[i][j] < 0 for j ≤ i−shift and > 0 for j > i−shift, and
//     the same non-strictly (strictly with strict) for Lambda;
//   - Delta[i][j] agrees with d_j − Lambda_i up to one ulp of each;
//   - the trace identity Σλ = trace, in exact arithmetic on the float64
//     outputs, both from Lambda and from the Delta of the nearest pole.
//
// shift is 0 when the first root lies right of d[0] (rank-one, ρ > 0) and
// 1 when it lies left of d[0] (rank-one ρ < 0, arrowhead).
func checkCommon(t *testing.T, d []float64, r Roots, shift int, trace *big.Float, strict bool) {
	t.Helper()
	n := len(d)
	for i := range r.Lambda {
		if i > 0 && r.Lambda[i] < r.Lambda[i-1] || strict && i > 0 && r.Lambda[i] == r.Lambda[i-1] {
			t.Errorf("Lambda not ascending at %d: %v, %v", i, r.Lambda[i-1], r.Lambda[i])
		}
		lo, hi := i-shift, i+1-shift // indices of the bracketing poles
		if lo >= 0 && (r.Lambda[i] < d[lo] || strict && r.Lambda[i] == d[lo]) {
			t.Errorf("Lambda[%d] = %v below pole d[%d] = %v", i, r.Lambda[i], lo, d[lo])
		}
		if hi < n && (r.Lambda[i] > d[hi] || strict && r.Lambda[i] == d[hi]) {
			t.Errorf("Lambda[%d] = %v above pole d[%d] = %v", i, r.Lambda[i], hi, d[hi])
		}
		for j := range d {
			want := 1
			if j <= lo {
				want = -1
			}
			if sign(r.Delta[i][j]) != want {
				t.Errorf("Delta[%d][%d] = %v, want sign %d", i, j, r.Delta[i][j], want)
			}
			// |Delta − (d_j − Lambda_i)| ≤ ulp(Delta) + ulp(Lambda_i).
			diff := nf().Sub(bf(d[j]), bf(r.Lambda[i]))
			if e := absDiff(bf(r.Delta[i][j]), diff); e > ulp(r.Delta[i][j])+ulp(r.Lambda[i]) {
				t.Errorf("Delta[%d][%d] = %v inconsistent with d_j − Lambda_i = %v (error %v)",
					i, j, r.Delta[i][j], toF(diff), e)
			}
		}
	}

	// Trace from Lambda: each Lambda_i is within one ulp.
	sum, tol := nf(), 0.0
	for _, l := range r.Lambda {
		sum.Add(sum, bf(l))
		tol += ulp(l)
	}
	if e := absDiff(sum, trace); e > tol {
		t.Errorf("trace from Lambda: |Σλ − trace| = %v > %v", e, tol)
	}
	// Trace from the Delta of the nearest pole: λ_i = d_k − Delta[i][k],
	// each Delta within one ulp of itself, which is far finer than ulp(λ).
	if n > 0 {
		sum, tol = nf(), 0.0
		for i := range r.Lambda {
			k := 0
			for j := range d {
				if math.Abs(r.Delta[i][j]) < math.Abs(r.Delta[i][k]) {
					k = j
				}
			}
			sum.Add(sum, bf(d[k]))
			sum.Sub(sum, bf(r.Delta[i][k]))
			tol += ulp(r.Delta[i][k])
		}
		if e := absDiff(sum, trace); e > tol {
			t.Errorf("trace from nearest Delta: |Σλ − trace| = %v > %v", e, tol)
		}
	}
}

// checkRankOne runs checkCommon and verifies the secular equation, evaluated
// exactly from the rounded Delta values: since every Delta is within one
// ulp (relative 2^−52), |sign(ρ) + |ρ|Σ z_j²/Delta_ij| ≤ 2^−51·Σ|terms|.
func checkRankOne(t *testing.T, d, z []float64, rho float64, r Roots, strict bool) {
	t.Helper()
	n := len(d)
	if !checkShape(t, r, n, n) {
		return
	}
	shift := 0
	if rho < 0 {
		shift = 1
	}
	trace := nf()
	for j := range d {
		trace.Add(trace, bf(d[j]))
		zz := nf().Mul(bf(z[j]), bf(z[j]))
		trace.Add(trace, zz.Mul(zz, bf(rho)))
	}
	checkCommon(t, d, r, shift, trace, strict)

	for i := range r.Lambda {
		res := bf(float64(sign(rho)))
		mag := nf()
		for j := range d {
			term := nf().Mul(bf(z[j]), bf(z[j]))
			term.Mul(term, bf(math.Abs(rho)))
			term.Quo(term, bf(r.Delta[i][j]))
			res.Add(res, term)
			mag.Add(mag, term.Abs(term))
		}
		if toF(nf().Abs(res)) > math.Ldexp(toF(mag), -51) {
			t.Errorf("root %d: secular residual %v exceeds 2^-51·%v", i, toF(res), toF(mag))
		}
	}
}

// checkArrow runs checkCommon and verifies g(λ) = c − λ − Σ w_j²/(d_j − λ)
// from the rounded Delta values, writing λ = d_k − Delta[i][k] for the
// nearest pole k: the residual is at most 2^−51·(|Delta_ik| + Σ|terms|).
func checkArrow(t *testing.T, d, w []float64, c float64, r Roots, strict bool) {
	t.Helper()
	n := len(d)
	if !checkShape(t, r, n+1, n) {
		return
	}
	trace := bf(c)
	for _, v := range d {
		trace.Add(trace, bf(v))
	}
	checkCommon(t, d, r, 1, trace, strict)
	if n == 0 {
		if r.Lambda[0] != c {
			t.Errorf("n = 0: Lambda = %v, want c = %v", r.Lambda, c)
		}
		return
	}
	for i := range r.Lambda {
		k := 0
		for j := range d {
			if math.Abs(r.Delta[i][j]) < math.Abs(r.Delta[i][k]) {
				k = j
			}
		}
		res := nf().Sub(bf(c), bf(d[k]))
		res.Add(res, bf(r.Delta[i][k]))
		mag := bf(math.Abs(r.Delta[i][k]))
		for j := range d {
			term := nf().Mul(bf(w[j]), bf(w[j]))
			term.Quo(term, bf(r.Delta[i][j]))
			res.Sub(res, term)
			mag.Add(mag, term.Abs(term))
		}
		if toF(nf().Abs(res)) > math.Ldexp(toF(mag), -51) {
			t.Errorf("root %d: arrowhead residual %v exceeds 2^-51·%v", i, toF(res), toF(mag))
		}
	}
}
