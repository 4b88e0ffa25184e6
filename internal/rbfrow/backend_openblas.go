//go:build cgo && openblas

package rbfrow

/*
#cgo LDFLAGS: -lmvec -lm
#include <immintrin.h>

// glibc's vector exp (libmvec), four doubles in a ymm register (AVX2 and FMA).
__attribute__((target("avx2,fma"))) __m256d _ZGVdN4v_exp(__m256d);

// exp_neg_avx2 replaces x[i] by exp(−x[i]) for i < n, n a multiple of 4, four at a time,
// the results for x[i] ≥ 0 clamped to 1.
__attribute__((target("avx2,fma")))
static void exp_neg_avx2(double *x, long n) {
	const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1);
	for (long i = 0; i < n; i += 4) {
		__m256d v = _mm256_loadu_pd(x + i);
		__m256d r = _ZGVdN4v_exp(_mm256_sub_pd(zero, v));
		__m256d nonneg = _mm256_cmp_pd(v, zero, _CMP_GE_OQ);
		_mm256_storeu_pd(x + i, _mm256_blendv_pd(r, _mm256_min_pd(r, one), nonneg));
	}
}

// rbf_row_avx2 is Finish for n a multiple of 4 and k ≤ 32, four values at a time:
// the exponents of rbfRowGo with the same operations in the same order (no contraction
// into FMAs, so the marks and values are those of the Go loop), exp_neg_avx2's
// exponential, and the products with the k rows of p (stride ldp) summed in four
// lanes each, added pairwise at the end, all in one pass. It returns whether it marked
// a value; dots is written only if not.
__attribute__((target("avx2,fma"), optimize("fp-contract=off")))
static int rbf_row_avx2(double *row, const double *yn, long n, double xn, double inv,
		double g2, double coef, double under, const double *p, long ldp, long k, double *dots) {
	const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1), mone = _mm256_set1_pd(-1);
	const __m256d allones = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
	const __m256d vxn = _mm256_set1_pd(xn), vinv = _mm256_set1_pd(inv), vg2 = _mm256_set1_pd(g2);
	const __m256d vcoef = _mm256_set1_pd(coef), vunder = _mm256_set1_pd(under);
	__m256d acc[32];
	for (long q = 0; q < k; q++) {
		acc[q] = zero;
	}
	int marked = 0;
	for (long i = 0; i < n; i += 4) {
		__m256d s = _mm256_add_pd(vxn, _mm256_loadu_pd(yn + i));
		__m256d dd = _mm256_add_pd(s, _mm256_loadu_pd(row + i));
		__m256d t = _mm256_add_pd(_mm256_mul_pd(vcoef, s), vunder);
		__m256d tg = _mm256_cmp_pd(t, vg2, _CMP_LE_OQ);
		__m256d fast = _mm256_and_pd(_mm256_cmp_pd(dd, zero, _CMP_GE_OQ), tg);
		__m256d v;
		if (_mm256_movemask_pd(fast) == 0xF) {
			v = _mm256_mul_pd(dd, vinv);
		} else {
			__m256d within = _mm256_or_pd(tg, _mm256_cmp_pd(t, dd, _CMP_LE_OQ));
			// A mask's all-ones lanes are NaNs as doubles: negate it bitwise, not by a
			// comparison.
			__m256d mark = _mm256_or_pd(_mm256_cmp_pd(dd, dd, _CMP_UNORD_Q), _mm256_andnot_pd(within, allones));
			__m256d ddc = _mm256_blendv_pd(dd, zero, _mm256_cmp_pd(dd, zero, _CMP_LT_OQ));
			v = _mm256_blendv_pd(_mm256_mul_pd(ddc, vinv), mone, mark);
			marked |= _mm256_movemask_pd(mark) != 0;
		}
		__m256d r = _ZGVdN4v_exp(_mm256_sub_pd(zero, v));
		__m256d nonneg = _mm256_cmp_pd(v, zero, _CMP_GE_OQ);
		r = _mm256_blendv_pd(r, _mm256_min_pd(r, one), nonneg);
		_mm256_storeu_pd(row + i, r);
		for (long q = 0; q < k; q++) {
			acc[q] = _mm256_fmadd_pd(r, _mm256_loadu_pd(p + q * ldp + i), acc[q]);
		}
	}
	if (!marked) {
		for (long q = 0; q < k; q++) {
			double a[4];
			_mm256_storeu_pd(a, acc[q]);
			dots[q] = (a[0] + a[1]) + (a[2] + a[3]);
		}
	}
	return marked;
}

// has_avx2 reports whether the CPU runs exp_neg_avx2.
static int has_avx2(void) {
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/vec"
)

// vectorExp reports whether ExpNeg may use libmvec's AVX2 exponential.
var vectorExp = C.has_avx2() != 0

// expNeg is ExpNeg: libmvec's AVX2 exponential four values at a time where the CPU has
// it (and not under internal/backend.WithGonum), the pure-Go one for the rest.
func expNeg(x []float64) {
	n4 := len(x) &^ 3
	if !vectorExp || backend.Gonum() || n4 == 0 {
		expNegGo(x)
		return
	}
	C.exp_neg_avx2((*C.double)(unsafe.Pointer(&x[0])), C.long(n4))
	expNegGo(x[n4:])
}

// finish is Finish: rbf_row_avx2 four values at a time where ExpNeg uses
// libmvec and there are at most 32 products (its accumulators), the Go loop for the
// rest.
func finish(row, yn []float64, xn, inv, g2, coef, under float64, p blas64.General, dots []float64) bool {
	n4 := len(row) &^ 3
	if !vectorExp || backend.Gonum() || n4 == 0 || p.Rows > 32 {
		return finishGo(row, yn, xn, inv, g2, coef, under, p, dots)
	}
	var pp, dp *C.double
	if p.Rows > 0 {
		pp, dp = (*C.double)(unsafe.Pointer(&p.Data[0])), (*C.double)(unsafe.Pointer(&dots[0]))
	}
	if C.rbf_row_avx2((*C.double)(unsafe.Pointer(&row[0])), (*C.double)(unsafe.Pointer(&yn[0])), C.long(n4),
		C.double(xn), C.double(inv), C.double(g2), C.double(coef), C.double(under),
		pp, C.long(p.Stride), C.long(p.Rows), dp) != 0 {
		rbfRowGo(row[n4:], yn[n4:], xn, inv, g2, coef, under)
		return true
	}
	if n4 == len(row) {
		return false
	}
	if rbfRowGo(row[n4:], yn[n4:], xn, inv, g2, coef, under) {
		return true
	}
	for q := range p.Rows {
		dots[q] += vec.Dot(row[n4:], p.Data[q*p.Stride+n4:q*p.Stride+len(row)])
	}
	return false
}
