package rbfrow

import (
	"math"
	"math/big"
)

// ExpNeg replaces each x[i] by exp(−x[i]): the exponentials of an RBF kernel block
// (docs/design.md, "Kernel blocks"), which dominate a block once its distances come
// from a dgemm: math.Exp takes 8–9 ns a value, three times the dgemm's share at
// d = 123. The result is within 4 ulp of exp(−x[i]), and at most 1 for x[i] ≥ 0; NaN
// gives NaN.
//
// With OpenBLAS, on a CPU with AVX2 and FMA, it is glibc's vector exp (libmvec's
// _ZGVdN4v_exp, within 4 ulp by glibc's tables, about 1.2 ns a value here), four values
// at a time; otherwise, and in the pure-Go build, expNegGo (within 1 ulp, about 4 ns a
// value).
func ExpNeg(x []float64) {
	if len(x) == 0 {
		return
	}
	expNeg(x)
}

// expNegGo is the pure-Go ExpNeg: the table-driven algorithm of the exp in ARM's optimized-routines (also
// glibc's since 2.28), written for a loop over a row: with N = 128,
//
//	x = −v = (k·N + j)·ln2/N + r,   |r| ≤ ln2/(2N),
//	exp(x) = 2ᵏ · 2^(j/N) · exp(r),
//
// 2^(j/N) from a table as a double s_j plus a correction t_j (2^(j/N) = s_j·(1 + t_j) to
// about 2⁻¹⁰⁶), and exp(r) − 1 by a degree-5 polynomial with the coefficients of the
// ARM routine, whose error on |r| ≤ ln2/256 is below 2⁻⁶⁷. The result s·(1 + t + p(r)) is
// within 0.52 ulp of exp(x) by the routine's analysis; TestExpNeg measures it against
// 300-bit arithmetic (at most 1 ulp from the correctly rounded value, as math.Exp).
// Exponents v outside [0, 708] — subnormal, zero or infinite results, NaN, and the
// negative exponents (values above 1) that rbfRow uses as markers — go to math.Exp.
const (
	expTableBits = 7
	expN         = 1 << expTableBits
	expInvLn2N   = 0x1.71547652b82fep0 * expN // N/ln2
	expShift     = 0x1.8p52                   // rounds to an integer in the last bits
	expNegLn2Hi  = -0x1.62e42fefa0000p-8      // −ln2/N, high part (exact times k)
	expNegLn2Lo  = -0x1.cf79abc9e3b3ap-47     // and the rest
	expC2        = 0x1.ffffffffffdbdp-2
	expC3        = 0x1.555555555543cp-3
	expC4        = 0x1.55555cf172b91p-5
	expC5        = 0x1.1111167a4d017p-7
	expMax       = 708 // exp(−708) ≈ 3.3e-308 is still normal
)

// expTable holds, for j < N, the correction t_j (bits) at 2j and the bits of s_j minus
// j·2⁴⁵ at 2j+1, so that adding (k·N + j)·2⁴⁵ gives the bits of s_j·2ᵏ.
var expTable = func() (tab [2 * expN]uint64) {
	const prec = 256
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for range expTableBits {
		root.Sqrt(root) // 2^(1/N)
	}
	p := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range expN {
		s, _ := p.Float64()
		t := new(big.Float).SetPrec(prec).SetFloat64(s)
		t.Sub(p, t).Quo(t, new(big.Float).SetPrec(prec).SetFloat64(s))
		tf, _ := t.Float64()
		tab[2*j] = math.Float64bits(tf)
		tab[2*j+1] = math.Float64bits(s) - uint64(j)<<(52-expTableBits)
		p.Mul(p, root)
	}
	return tab
}()

// expNegGo replaces each v in row by exp(−v), within 1 ulp.
func expNegGo(row []float64) {
	for i, v := range row {
		if !(v >= 0 && v <= expMax) {
			row[i] = math.Exp(-v)
			continue
		}
		x := -v
		kd := expInvLn2N*x + expShift
		ki := math.Float64bits(kd)
		kd -= expShift
		r := x + kd*expNegLn2Hi + kd*expNegLn2Lo
		idx := 2 * (ki % expN)
		tail := math.Float64frombits(expTable[idx])
		scale := math.Float64frombits(expTable[idx+1] + ki<<(52-expTableBits))
		r2 := r * r
		tmp := tail + r + r2*(expC2+r*expC3) + r2*r2*(expC4+r*expC5)
		row[i] = scale + scale*tmp
	}
}
