// Package vec holds the small vector kernels the module's packages share (kernel, kaf,
// stream, chinsuter, update, secular, kpca, pca, internal/lanczos), on plain slices, for
// the loops too short or too frequent to go through BLAS: the dot product, the squared
// distance, the largest magnitude and the Euclidean norm without overflow, the centring
// of a block's columns, and the median of repeated timings.
package vec

import (
	"math"
	"slices"
)

// Dot returns xᵀy over the first len(x) entries of y (y must be at least as long). It
// sums with four interleaved accumulators: they break the chain of dependent additions,
// so that several multiply-adds run at once, and their pairwise combination is a little
// more accurate than one running sum.
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// SqDist returns ‖x−y‖² over the first len(x) entries of y (y must be at least as
// long), summed with four interleaved accumulators as Dot is. Identical points give
// exactly 0. It is the sum kernel's Gaussian kernel evaluates (bit for bit), so that
// code outside kernel computing exp(−‖x−y‖²/2σ²) itself gets the same values.
func SqDist(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		d0 := x[i] - y[i]
		d1 := x[i+1] - y[i+1]
		d2 := x[i+2] - y[i+2]
		d3 := x[i+3] - y[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(x); i++ {
		d := x[i] - y[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// MaxAbs returns max |xᵢ|: 0 for an empty x, NaN if an entry is NaN (as math.Max).
// Plain comparisons, not math.Max, whose signed-zero and NaN rules cost three times
// as much on the long vectors of kernel blocks.
func MaxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		if a := math.Abs(v); a > m {
			m = a
		} else if a != a {
			return a
		}
	}
	return m
}

// Sums returns Σxᵢ and Σ|xᵢ|, each summed in order: a sum and the scale of its
// rounding, (n−1)·ε·Σ|xᵢ| at most.
func Sums(x []float64) (sum, abs float64) {
	for _, v := range x {
		sum += v
		abs += math.Abs(v)
	}
	return sum, abs
}

// Norm returns ‖x‖₂ without overflow or harmful underflow: the entries are scaled by
// the reciprocal of the largest magnitude, a power of two so that the scaling is exact,
// before they are squared (two passes).
func Norm(x []float64) float64 {
	big := MaxAbs(x)
	if big == 0 || big != big || math.IsInf(big, 0) {
		return big
	}
	_, e := math.Frexp(big)
	var ss float64
	if e < -1000 { // 2⁻ᵉ would overflow: divide instead
		for _, v := range x {
			v /= big
			ss += v * v
		}
		return big * math.Sqrt(ss)
	}
	inv := math.Ldexp(1, -e) // entries scaled into [0, 1), exactly
	for _, v := range x {
		v *= inv
		ss += v * v
	}
	return math.Ldexp(math.Sqrt(ss), e)
}

// SameBits reports whether a and b hold the same float64s bit for bit: equal lengths,
// and entries with the same bits, so that NaN equals NaN and −0 differs from +0.
func SameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// SubtractMean sets x ← x − mean(x)·1, the centring C·x with C = I − 11ᵀ/n.
func SubtractMean(x []float64) {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for i := range x {
		x[i] -= mean
	}
}

// CentreColumns subtracts from each column of the r×c row-major matrix a (stride s, r
// ≥ 1) its mean, which it leaves in mean (length c): the sums row by row, then the
// subtraction, the centring A ← C·A of a block of points or of vectors.
func CentreColumns(a []float64, r, c, s int, mean []float64) {
	mean = mean[:c]
	clear(mean)
	for i := range r {
		for j, v := range a[i*s : i*s+c] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(r)
	}
	for i := range r {
		row := a[i*s : i*s+c]
		for j := range row {
			row[j] -= mean[j]
		}
	}
}

// Roundoff is the unit roundoff u = 2⁻⁵³ of float64, LAPACK's dlamch('E'): a correctly
// rounded operation's relative error is at most u. (The machine epsilon 2⁻⁵², Go's
// math.Nextafter(1, 2) − 1, is twice as large; bounds written with 2⁻⁵² count 2u.) The one
// definition of the module's packages, whose error bounds are written in units of it.
const Roundoff = 0x1p-53

// Finite reports whether every entry of x is finite (neither NaN nor infinite). It
// tests x[i] − x[i], zero for a finite value and NaN otherwise, on four running sums,
// so that a kernel block of 256 × 1000 values is checked at about two values a cycle.
func Finite(x []float64) bool {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] - x[i]
		s1 += x[i+1] - x[i+1]
		s2 += x[i+2] - x[i+2]
		s3 += x[i+3] - x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] - x[i]
	}
	return s0+s1+s2+s3 == 0
}

// Median returns the median of x, the mean of the middle two for an even length, and
// sorts x in place: what the benchmarks report of repeated timings.
func Median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// Gamma is γₙ = nε/(1 − nε), the worst-case relative error of a sum or dot product of n
// terms in any order (Higham 2002, Lemma 3.1).
func Gamma(n int) float64 {
	u := float64(n) * Roundoff
	return u / (1 - u)
}

// Dot2 returns xᵀy + extra (Σx + extra when y is nil) by Dot2 (Ogita, Rump and Oishi
// 2005, Algorithm 5.3: TwoProduct by FMA and TwoSum, the errors summed apart), which is
// within ε·|result| + γ²ₙ₊₁·abs of the exact value, and abs = Σ|xᵢyᵢ| + |extra|.
func Dot2(x, y []float64, extra float64) (float64, float64) {
	s, c, abs := extra, 0.0, math.Abs(extra)
	for i, v := range x {
		p, pe := v, 0.0
		if y != nil {
			p = v * y[i]
			pe = math.FMA(v, y[i], -p)
		}
		t := s + p
		z := t - s
		c += ((s - (t - z)) + (p - z)) + pe
		s = t
		abs += math.Abs(p)
	}
	return s + c, abs
}
