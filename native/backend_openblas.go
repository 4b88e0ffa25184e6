//go:build cgo && openblas

package native

/*
#cgo LDFLAGS: -llapacke -lopenblas -lmvec -lm
#include <immintrin.h>

// Prototypes of the OpenBLAS extensions, declared here so that no OpenBLAS
// header is needed at build time.
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char* openblas_get_config(void);
// Exported by OpenBLAS's pthreads server: re-read the OPENBLAS_* environment
// variables, and stop the worker threads (they restart on the next threaded call).
int openblas_read_env(void);
int blas_thread_shutdown_(void);
int openblas_thread_timeout(void);

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

// rbf_row_avx2 is RBFRowDots for n a multiple of 4 and k ≤ 32, four values at a time:
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
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	netblas "gonum.org/v1/netlib/blas/netlib"
	"gonum.org/v1/netlib/lapack/lapacke"
	netlapack "gonum.org/v1/netlib/lapack/netlib"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/vec"
)

// Compiled is the name of the backend compiled into this binary: "openblas"
// (this build, -tags openblas with cgo) or "gonum" (the pure-Go build).
const Compiled = "openblas"

// compiledBLAS and compiledLAPACK return the implementations this package calls
// directly (blas.go), after making idle OpenBLAS threads sleep at once (shortenSpin)
// the first time: every route into OpenBLAS, with or without Use, gets it.
func compiledBLAS() blas.Float64 {
	spinOnce.Do(shortenSpin)
	return netblas.Implementation{}
}

func compiledLAPACK() lapack.Float64 {
	spinOnce.Do(shortenSpin)
	return netlapack.Implementation{}
}

func register() {
	backend.Register(compiledBLAS(), compiledLAPACK())
}

// spinOnce runs shortenSpin before the first OpenBLAS call.
var spinOnce sync.Once

// spinTimeout is the OPENBLAS_THREAD_TIMEOUT that the first OpenBLAS call sets: idle OpenBLAS threads
// busy-wait 2⁴ cycles, that is not at all, before sleeping.
const spinTimeout = "4"

// threadTimeout reports the OPENBLAS_THREAD_TIMEOUT exponent OpenBLAS has read (0 if
// none was set).
func threadTimeout() int {
	return int(C.openblas_thread_timeout())
}

// shortenSpin makes idle OpenBLAS worker threads sleep at once instead of busy-waiting
// for about 2²⁸ cycles (a tenth of a second) after every threaded call, unless the
// environment sets OPENBLAS_THREAD_TIMEOUT. An eigen-update alternates one large dgemm
// with O(n²) work of its own on all cores; spinning BLAS threads took half of those
// cores and doubled that work's time (measured at n = 1000 on 2 cores: 21 ms instead of
// 11.6 ms per step). Waking the sleeping threads at the next dgemm costs microseconds.
func shortenSpin() {
	if _, set := os.LookupEnv("OPENBLAS_THREAD_TIMEOUT"); set {
		return
	}
	if err := os.Setenv("OPENBLAS_THREAD_TIMEOUT", spinTimeout); err != nil {
		return
	}
	C.openblas_read_env()
	C.blas_thread_shutdown_()
}

func classify(impl blas.Float64) (Info, bool) {
	switch impl.(type) {
	case netblas.Implementation, *netblas.Implementation:
		return openblasInfo(), true
	}
	return Info{}, false
}

func openblasInfo() Info {
	return Info{
		Name:    "openblas",
		Threads: Threads(),
		Config:  strings.TrimSpace(C.GoString(C.openblas_get_config())),
	}
}

// SetThreads sets the number of threads OpenBLAS uses for subsequent calls
// (openblas_set_num_threads). n < 1 is an error wrapping [ErrArgument]. OpenBLAS
// clamps requests above its compile-time maximum (MAX_THREADS in
// openblas_get_config); in that case the clamped value is in effect and an error
// saying so, wrapping [ErrArgument], is returned.
//
// The setting is process-wide. Do not call SetThreads while other goroutines
// are running OpenBLAS routines. In the pure-Go build SetThreads returns
// [ErrFixedThreads].
func SetThreads(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: SetThreads(%d): thread count must be at least 1", ErrArgument, n)
	}
	if n > 1<<30 {
		return fmt.Errorf("%w: SetThreads(%d): thread count too large", ErrArgument, n)
	}
	C.openblas_set_num_threads(C.int(n))
	if got := Threads(); got != n {
		return fmt.Errorf("%w: SetThreads(%d): OpenBLAS is using %d threads (it clamps requests above its maximum)", ErrArgument, n, got)
	}
	return nil
}

// Threads returns the number of threads OpenBLAS currently uses
// (openblas_get_num_threads). In the pure-Go build it returns
// runtime.GOMAXPROCS(0).
func Threads() int {
	return int(C.openblas_get_num_threads())
}

// eigenSym runs LAPACK dsyevd through LAPACKE in row-major layout. Arguments
// have been validated by EigenSymInPlace; n >= 1.
//
// Row-major LAPACKE transposes the upper triangle into a column-major copy,
// calls dsyevd on it and transposes the result back, so "upper" keeps its
// row-major meaning and the eigenvectors come back as columns of a.
func eigenSym(n int, a []float64, lda int, w []float64, vectors bool) error {
	if backend.Gonum() {
		return gonumEigenSym(n, a, lda, w, vectors)
	}
	spinOnce.Do(shortenSpin)
	jobz := byte('N')
	if vectors {
		jobz = 'V'
	}
	query := make([]float64, 1)
	iquery := make([]int32, 1)
	if !lapacke.Dsyevd(jobz, 'U', n, a, lda, w, query, -1, iquery, -1) {
		return fmt.Errorf("%w: dsyevd workspace query failed (n=%d)", ErrNotConverged, n)
	}
	lwork := int(query[0])
	liwork := int(iquery[0])
	work := make([]float64, max(1, lwork))
	iwork := make([]int32, max(1, liwork))
	if !lapacke.Dsyevd(jobz, 'U', n, a, lda, w, work, len(work), iwork, len(iwork)) {
		return fmt.Errorf("%w: LAPACK dsyevd (n=%d)", ErrNotConverged, n)
	}
	return nil
}

// svdLeft runs LAPACK dgesdd (divide and conquer, JOBZ = 'S') through LAPACKE in
// row-major layout; the right singular vectors it also forms are discarded. dgesdd has
// no left-vectors-only mode, but divide and conquer with both is still several times
// faster than dgesvd's QR iteration with the left ones (measured at 1000×1001: dgesvd
// took 55 dgemm times). Arguments have been validated by SVDLeft; m, n >= 1.
func svdLeft(m, n int, a []float64, lda int, s, u []float64, ldu int) error {
	if backend.Gonum() {
		return gonumSVDLeft(m, n, a, lda, s, u, ldu)
	}
	spinOnce.Do(shortenSpin)
	k := min(m, n)
	vt := make([]float64, k*n)
	iwork := make([]int32, 8*k)
	query := make([]float64, 1)
	if !lapacke.Dgesdd('S', m, n, a, lda, s, u, ldu, vt, n, query, -1, iwork) {
		return fmt.Errorf("%w: dgesdd workspace query failed (%d×%d)", ErrNotConverged, m, n)
	}
	work := make([]float64, max(int(query[0]), 1))
	if !lapacke.Dgesdd('S', m, n, a, lda, s, u, ldu, vt, n, work, len(work), iwork) {
		return fmt.Errorf("%w: LAPACK dgesdd (%d×%d)", ErrNotConverged, m, n)
	}
	return nil
}

// eigenSymTop runs LAPACK dsyevr with an index range (RANGE = 'I', the eigenvalues
// n−r+1…n in LAPACK's 1-based numbering) through LAPACKE in row-major layout: dsytrd, then
// for a proper subset dstebz (bisection) and dstein (inverse iteration), and dormtr on
// the r vectors only. Arguments have been validated by EigenSymTopInPlace; 1 ≤ r < n.
//
// dsyevr may use all of W (length n) while it selects, so the values go through a
// private slice. Row-major LAPACKE transposes A into a column-major copy and the vectors
// back, O(n²) next to the reduction's O(n³).
func eigenSymTop(n, r int, a []float64, lda int, w, z []float64, ldz int) error {
	if backend.Gonum() {
		return gonumEigenSymTop(n, r, a, lda, w, z, ldz)
	}
	spinOnce.Do(shortenSpin)
	jobz := byte('N')
	if z != nil {
		jobz = 'V'
	} else {
		ldz = r // LAPACKE checks ldz ≥ r even without vectors
	}
	il, iu := n-r+1, n
	found := make([]int32, 1)
	all := make([]float64, n)
	isuppz := make([]int32, 2*n)
	query := make([]float64, 1)
	iquery := make([]int32, 1)
	if !lapacke.Dsyevr(jobz, 'I', 'U', n, a, lda, 0, 0, il, iu, 0, found, all, z, ldz, isuppz, query, -1, iquery, -1) {
		return fmt.Errorf("%w: dsyevr workspace query failed (n=%d)", ErrNotConverged, n)
	}
	work := make([]float64, max(1, int(query[0])))
	iwork := make([]int32, max(1, int(iquery[0])))
	if !lapacke.Dsyevr(jobz, 'I', 'U', n, a, lda, 0, 0, il, iu, 0, found, all, z, ldz, isuppz, work, len(work), iwork, len(iwork)) {
		return fmt.Errorf("%w: LAPACK dsyevr (n=%d, r=%d)", ErrNotConverged, n, r)
	}
	if int(found[0]) != r {
		return fmt.Errorf("%w: LAPACK dsyevr found %d eigenvalues, want %d", ErrNotConverged, found[0], r)
	}
	copy(w[:r], all[:r])
	return nil
}

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

// rbfRowDots is RBFRowDots: rbf_row_avx2 four values at a time where ExpNeg uses
// libmvec and there are at most 32 products (its accumulators), the Go loop for the
// rest.
func rbfRowDots(row, yn []float64, xn, inv, g2, coef, under float64, p blas64.General, dots []float64) bool {
	n4 := len(row) &^ 3
	if !vectorExp || backend.Gonum() || n4 == 0 || p.Rows > 32 {
		return rbfRowDotsGo(row, yn, xn, inv, g2, coef, under, p, dots)
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
