package secular

import (
	"fmt"
	"math"
)

// Eigenvectors by Gu and Eisenstat's method (docs/design.md, "Löwner vectors"). Given
// computed roots λ̂ that strictly interlace the poles, Löwner's formula gives the
// weights ẑ for which the λ̂ are the exact eigenvalues of the problem with the same
// poles:
//
//	rank-one:     ρ·ẑⱼ² = −∏ᵢ (dⱼ − λ̂ᵢ) / ∏_{i≠j} (dⱼ − dᵢ)       (k roots)
//	arrowhead:       ŵⱼ² = −∏ᵢ (dⱼ − λ̂ᵢ) / ∏_{i≠j} (dⱼ − dᵢ)       (k+1 roots)
//	restriction:  ẑⱼ²/‖ẑ‖² =  ∏ᵢ (dⱼ − λ̂ᵢ) / ∏_{i≠j} (dⱼ − dᵢ)       (k−1 roots)
//
// Each factor dⱼ − λ̂ᵢ is a difference δᵢⱼ accurate to a few ulps of itself (the root
// finder leaves their reciprocals rᵢⱼ = 1/δᵢⱼ in the table), so ẑ is accurate to O(kε)
// relative, and the vectors (ẑⱼ·rᵢⱼ)ⱼ — with a last entry −1 for the arrowhead — are
// exact eigenvectors of that nearby problem up to O(kε) relative errors per component:
// orthogonal to working precision however close the roots are. The products are formed
// from factors rᵢⱼ·(dⱼ − dᵢ) that pair each pole with a root next to it, so that every
// factor stays moderate and the product neither overflows nor underflows; the product
// is 1/(−ẑⱼ²). ρ is dropped for the rank-one problem: the vectors are normalised.

// loewnerRankOne writes ẑ (up to the factor √ρ) into what[lo:hi] from the k×k
// reciprocals in t (row r: root r).
func loewnerRankOne(d, z, t, what []float64, k, lo, hi int) error {
	for j := lo; j < hi; j++ {
		what[j] = t[j*k+j]
	}
	for r := range k {
		row := t[r*k : r*k+k]
		dr := d[r]
		for j := lo; j < min(r, hi); j++ {
			what[j] *= row[j] * (d[j] - dr)
		}
		for j := max(r+1, lo); j < hi; j++ {
			what[j] *= row[j] * (d[j] - dr)
		}
	}
	return signedRoots(z, what, lo, hi)
}

// loewnerArrow writes ŵ into what[lo:hi] from the (k+1)×k reciprocals in t (row r:
// root r, row stride k+1). Root r lies between poles r−1 and r; the roots adjacent to
// pole j (rows j and j+1) enter as plain factors, every other root paired with the pole
// on its far side from j.
func loewnerArrow(d, z, t, what []float64, k, lo, hi int) error {
	stride := k + 1
	for j := lo; j < hi; j++ {
		what[j] = t[j*stride+j] * t[(j+1)*stride+j]
	}
	for r := 0; r <= k; r++ {
		row := t[r*stride : r*stride+k]
		if r < k { // columns j > r: pair root r with pole r
			dr := d[r]
			for j := max(r+1, lo); j < hi; j++ {
				what[j] *= row[j] * (d[j] - dr)
			}
		}
		if r >= 2 { // columns j < r−1: pair root r with pole r−1
			dr := d[r-1]
			for j := lo; j < min(r-1, hi); j++ {
				what[j] *= row[j] * (d[j] - dr)
			}
		}
	}
	return signedRoots(z, what, lo, hi)
}

// loewnerRestrict writes ẑ, of unit norm, into what[lo:hi] from the (k−1)×k reciprocals
// in t (row r: root r, row stride k). The restriction's equation Σⱼ zⱼ²/(dⱼ − μ) = 0
// with ‖z‖ = 1 is the rational function ∏ᵣ(μ̂ᵣ − μ)/∏ⱼ(dⱼ − μ) when its roots are the
// μ̂ (its numerator has degree k−1 and leading coefficient ‖z‖² = 1); ẑⱼ² is the residue
// at dⱼ (docs/design.md, "Removing a point"). Root r lies between poles r and r+1: the
// roots below pole j are paired with the pole on their left, those above with the pole
// on their right, so that every factor (dⱼ − dₚ)/(dⱼ − μ̂ᵣ) exceeds one and the product
// 1/ẑⱼ² ≥ 1 cannot underflow, and overflows only for a weight below 1e-154 — far below
// the deflation tolerance.
func loewnerRestrict(d, z, t, what []float64, k, lo, hi int) error {
	for j := lo; j < hi; j++ {
		what[j] = 1
	}
	for r := range k - 1 {
		row := t[r*k : r*k+k]
		dl, du := d[r], d[r+1]
		for j := lo; j < min(r+1, hi); j++ { // j ≤ r: root r above pole j
			what[j] *= row[j] * (d[j] - du)
		}
		for j := max(r+1, lo); j < hi; j++ { // j > r: root r below pole j
			what[j] *= row[j] * (d[j] - dl)
		}
	}
	for j := lo; j < hi; j++ {
		what[j] = -what[j] // signedRoots expects −1/ẑⱼ²
	}
	return signedRoots(z, what, lo, hi)
}

// signedRoots replaces what[j] = −1/ẑⱼ² by ẑⱼ with the sign of z[j].
func signedRoots(z, what []float64, lo, hi int) error {
	for j := lo; j < hi; j++ {
		p := -1 / what[j]
		if !(p > 0 && p <= math.MaxFloat64) {
			return fmt.Errorf("%w: Löwner weight %d is %g", ErrBreakdown, j, -p)
		}
		what[j] = math.Copysign(math.Sqrt(p), z[j])
	}
	return nil
}

// vectorRows turns rows lo..hi−1 of t from reciprocal differences into unit
// eigenvectors: entry j becomes ŵⱼ·rᵣⱼ for the k pole components, and, when tip is set,
// entry k (the arrowhead's last coordinate) becomes −1, before normalisation.
func vectorRows(t, what []float64, stride, k int, tip bool, lo, hi int) {
	for r := lo; r < hi; r++ {
		row := t[r*stride : r*stride+stride]
		var ss float64
		for j := range k {
			v := what[j] * row[j]
			row[j] = v
			ss += v * v
		}
		if tip {
			row[k] = -1
			ss++
		}
		normalise(row, ss)
	}
}

// normalise scales x to unit length given ss = Σx², recomputing the norm with scaling
// when ss overflowed or underflowed.
func normalise(x []float64, ss float64) {
	if !(ss > 0x1p-900 && ss < 0x1p900) {
		var big float64
		for _, v := range x {
			big = math.Max(big, math.Abs(v))
		}
		if big == 0 || math.IsInf(big, 0) || math.IsNaN(big) {
			return
		}
		ss = 0
		for _, v := range x {
			v /= big
			ss += v * v
		}
		ss *= big * big
		if math.IsInf(ss, 0) || ss == 0 {
			inv := 1 / big
			for i := range x {
				x[i] *= inv
			}
			ss = 0
			for _, v := range x {
				ss += v * v
			}
		}
	}
	inv := 1 / math.Sqrt(ss)
	for i := range x {
		x[i] *= inv
	}
}

// perpendicular completes a 2×2 orthogonal matrix from its unit first row: the second
// row is the first rotated by 90°, orthogonal by construction.
func perpendicular(t []float64) {
	t[2], t[3] = -t[1], t[0]
}
