package native

import (
	"fmt"
	"math"
)

// tinyRelative is the size, relative to the largest entry, below which gonumGuard sets
// an entry to zero: ε² = 2⁻¹⁰⁶. Zeroing perturbs A by E with ‖E‖₂ ≤ ‖E‖_F < n·ε²·max|aᵢⱼ|
// ≤ n·ε²·‖A‖₂, far below the backward error ε·‖A‖₂ of any eigensolver (for n < 1/ε), so
// the computed spectrum is as accurate as before.
const tinyRelative = 0x1p-106

// gonumGuard prepares the upper triangle of the n×n matrix in a (stride lda) for gonum's
// LAPACK, whose v0.17 eigensolvers fail on two kinds of matrix that LAPACK itself
// handles: Dsterf panics ("insufficient length of a": its rescaling of a tiny block,
// dlascl with the wrong leading dimension) on matrices of norm below about 1e-123, and
// Dsyev with vectors returns nonsense (±2.1e121 for a 4×4 matrix with entries 0.506 and
// 4.3e-314) on matrices with subnormal entries.
//
// It scales the triangle by the power of two 2⁻ᵉ that brings its largest entry into
// [0.5, 1) — exactly: no entry it keeps becomes subnormal — and sets the entries below
// tinyRelative times the largest to zero (see tinyRelative), so no entry is tiny or
// subnormal and the matrix's norm is near one. The eigenvalues of the matrix it leaves
// are those of A times 2⁻ᵉ; it returns e, which unscale takes. A zero matrix is left as
// it is (e = 0).
func gonumGuard(n int, a []float64, lda int) (e int) {
	var big float64
	for i := range n {
		for _, v := range a[i*lda+i : i*lda+n] {
			big = max(big, math.Abs(v))
		}
	}
	if big == 0 {
		return 0
	}
	frac, e := math.Frexp(big) // big = frac·2ᵉ, frac ∈ [0.5, 1)
	small := tinyRelative * frac
	for i := range n {
		row := a[i*lda+i : i*lda+n]
		for j, v := range row {
			// Scaling up is exact; scaling down makes a value subnormal (inexact) only
			// far below small, where it is zeroed anyway.
			if s := math.Ldexp(v, -e); math.Abs(s) >= small {
				row[j] = s
			} else {
				row[j] = 0
			}
		}
	}
	return e
}

// unscale multiplies the eigenvalues w, computed for a matrix scaled by gonumGuard, by
// 2ᵉ, and reports eigenvalues that overflow (an input near the largest float64).
func unscale(w []float64, e int) error {
	if e == 0 {
		return nil
	}
	for i, v := range w {
		w[i] = math.Ldexp(v, e)
		if math.IsInf(w[i], 0) {
			return fmt.Errorf("%w: eigenvalue %d overflows", ErrNonFinite, i)
		}
	}
	return nil
}
