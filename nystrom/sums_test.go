package nystrom

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactSum returns Σx rounded once, from an exact sum with math/big (1100 bits cover
// any sum of float64s without rounding).
func exactSum(xs []float64) float64 {
	acc := new(big.Float).SetPrec(1100)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetPrec(1100).SetFloat64(x))
	}
	v, _ := acc.Float64()
	return v
}

// TestCompensatedSums: the compensated sums meet Neumaier's bound |ŝ − s| ≤ 2ε|s| +
// 2Nε²·Σ|x| against an exact sum, whether the terms come one at a time (add, addOuter)
// or as partial sums merged in any split and order (merge), on terms built to make a
// plain running sum fail: large terms that cancel, and many small ones below their
// rounding unit. A plain sum of the same terms must err by far more — the case is one
// where compensation matters.
func TestCompensatedSums(t *testing.T) {
	const eps = 0x1p-53
	rng := rand.New(rand.NewPCG(4, 5))
	const n = 20000
	xs := make([]float64, n)
	for i := range xs {
		switch i % 4 {
		case 0:
			xs[i] = 1e16 * (1 + rng.Float64())
		case 2:
			xs[i] = -xs[i-2]
		default:
			xs[i] = rng.Float64()
		}
	}
	want := exactSum(xs)
	var abs float64
	for _, x := range xs {
		abs += math.Abs(x)
	}
	bound := 2*eps*math.Abs(want) + 2*n*eps*eps*abs

	check := func(what string, v vecSum) {
		t.Helper()
		got := make([]float64, 1)
		v.value(got)
		if e := math.Abs(got[0] - want); e > bound {
			t.Errorf("%s: error %.3g, bound %.3g", what, e, bound)
		}
	}
	one := newVecSum(1)
	for _, x := range xs {
		one.add([]float64{x})
	}
	check("one at a time", one)

	// Partial sums over random splits, merged left to right and right to left.
	cuts := []int{0, 137, 4001, 4002, 9999, 15000, n}
	left := newVecSum(1)
	parts := make([]vecSum, len(cuts)-1)
	for i := range parts {
		parts[i] = newVecSum(1)
		for _, x := range xs[cuts[i]:cuts[i+1]] {
			parts[i].add([]float64{x})
		}
		left.merge(parts[i])
	}
	check("merged left to right", left)
	right := newVecSum(1)
	for i := len(parts) - 1; i >= 0; i-- {
		right.merge(parts[i])
	}
	check("merged right to left", right)

	var plain float64
	for _, x := range xs {
		plain += x
	}
	if e := math.Abs(plain - want); !(e > 100*bound) {
		t.Errorf("a plain sum errs by %.3g, not above 100 times the compensated bound %.3g: the case does not test compensation", e, bound)
	}

	// addOuter and addUpper: the upper triangle of Σxxᵀ for x = (a, 1, −a).
	tri := newTriSum(3)
	blk := newTriSum(3)
	var want01, want00 []float64
	for i := 0; i < n; i += 2 {
		a := xs[i]
		x := []float64{a, 1, -a}
		tri.addOuter(x)
		want01 = append(want01, a)
		want00 = append(want00, a*a)
		outer := make([]float64, 9)
		for p := range 3 {
			for q := range 3 {
				outer[p*3+q] = x[p] * x[q]
			}
		}
		blk.addUpper(outer)
	}
	for _, s := range []triSum{tri, blk} {
		if got, w := s.at(0, 1), exactSum(want01); math.Abs(got-w) > 2*eps*math.Abs(w)+2*n*eps*eps*abs {
			t.Errorf("Σa: %g, want %g", got, w)
		}
		if got, w := s.at(0, 0), exactSum(want00); math.Abs(got-w) > 4*eps*math.Abs(w) {
			t.Errorf("Σa²: %g, want %g", got, w)
		}
		if got := s.at(1, 1); got != float64(n/2) {
			t.Errorf("Σ1: %g, want %d", got, n/2)
		}
	}
}
