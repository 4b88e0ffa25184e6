//go:build cgo && openblas

package lapackref

/*
#cgo LDFLAGS: -lopenblas

// LAPACK's DLAED4 (Fortran calling convention: every argument by reference,
// 32-bit INTEGERs in OpenBLAS's LP64 interface, no hidden string lengths).
void dlaed4_(const int *n, const int *i, const double *d, const double *z,
	double *delta, const double *rho, double *dlam, int *info);
*/
import "C"

import (
	"math"
)

// Dlaed4 calls LAPACK's DLAED4, which computes the i-th smallest root λ of the
// secular equation
//
//	f(λ) = 1/rho + Σ_j z_j²/(d_j − λ) = 0,
//
// that is the i-th eigenvalue of diag(d) + rho·z·zᵀ. Unlike LAPACK, i is
// 0-based here (0 <= i < n). d must be strictly increasing, z must have the
// same length n >= 1, and rho must be positive; LAPACK assumes ‖z‖₂ = 1 and
// does not check it (neither does Dlaed4). The root satisfies
// d[i] < λ < d[i+1] for i < n-1 and d[n-1] < λ < d[n-1] + rho·‖z‖² for i = n-1.
//
// delta has length n. For n >= 3, delta[j] = d_j − λ, computed by LAPACK more
// accurately than the subtraction would be. For n <= 2 LAPACK's DELTA means
// something else: for n == 1 delta[0] = 1, and for n == 2 (DLAED5) delta holds
// the unit-norm eigenvector of diag(d) + rho·z·zᵀ for λ, whose components are
// proportional to z_j/(d_j − λ).
//
// info is 0 on success and LAPACK's positive INFO when the iteration failed
// to converge. Invalid arguments are caught in Go before LAPACK is called and
// reported, as LAPACK would, by info = −k where k is the 1-based position of
// the offending DLAED4 argument: −1 for n (len(d) == 0), −2 for i out of
// range, −3 for d (not finite or not strictly increasing), −4 for z (length
// differs from n, or not finite), −6 for rho (not positive and finite). Then
// lambda is NaN and delta is nil. Dlaed4 never panics.
func Dlaed4(i int, d, z []float64, rho float64) (lambda float64, delta []float64, info int) {
	n := len(d)
	if code := check(i, d, z, rho); code != 0 {
		return math.NaN(), nil, code
	}
	delta = make([]float64, n)
	var (
		cn    = C.int(n)
		ci    = C.int(i + 1) // Fortran index is 1-based.
		crho  = C.double(rho)
		cdlam C.double
		cinfo C.int
	)
	// The slices hold no Go pointers, so passing their first elements is
	// allowed by the cgo pointer rules; LAPACK does not retain them.
	C.dlaed4_(&cn, &ci,
		(*C.double)(&d[0]), (*C.double)(&z[0]), (*C.double)(&delta[0]),
		&crho, &cdlam, &cinfo)
	return float64(cdlam), delta, int(cinfo)
}

// check validates the arguments of Dlaed4 and returns 0 or LAPACK-style −k.
func check(i int, d, z []float64, rho float64) int {
	n := len(d)
	switch {
	case n < 1 || n > math.MaxInt32:
		return -1
	case i < 0 || i >= n:
		return -2
	}
	for j, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) || (j > 0 && !(d[j-1] < v)) {
			return -3
		}
	}
	if len(z) != n {
		return -4
	}
	for _, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return -4
		}
	}
	if !(rho > 0) || math.IsInf(rho, 0) {
		return -6
	}
	return 0
}
