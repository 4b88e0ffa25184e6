//go:build cgo && openblas

package native

/*
#cgo LDFLAGS: -llapacke -lopenblas

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
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	netblas "gonum.org/v1/netlib/blas/netlib"
	"gonum.org/v1/netlib/lapack/lapacke"
	netlapack "gonum.org/v1/netlib/lapack/netlib"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/hugepage"
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
//
// Before anything else it chooses OpenBLAS's kernels, once (pickCore, core_openblas.go):
// a switch must come before the first BLAS call.
func shortenSpin() {
	coreOnce.Do(pickCore)
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
	core := coreReport() // first: the configuration names the core in use
	return Info{
		Name:    "openblas",
		Threads: Threads(),
		Config:  strings.TrimSpace(C.GoString(C.openblas_get_config())),
		Core:    core,
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
	return configuredThreads()
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
	ws := workPool.Get().(*lapackWork)
	defer workPool.Put(ws)
	if !lapacke.Dsyevd(jobz, 'U', n, a, lda, w, ws.query[:], -1, ws.iquery[:], -1) {
		return fmt.Errorf("%w: dsyevd workspace query failed (n=%d)", ErrNotConverged, n)
	}
	work, iwork := ws.sized(int(ws.query[0]), int(ws.iquery[0]))
	if !lapacke.Dsyevd(jobz, 'U', n, a, lda, w, work, len(work), iwork, len(iwork)) {
		return fmt.Errorf("%w: LAPACK dsyevd (n=%d)", ErrNotConverged, n)
	}
	return nil
}

// lapackWork is the workspace of a LAPACK call, kept in workPool: dsyevd's at order
// 178 (the dense problem of a rank-50 block step of 64 rows) is 65,000 floats, and
// allocated at every step it was a fifth of a tracked fit's garbage.
type lapackWork struct {
	query  [1]float64
	iquery [1]int32
	work   []float64
	iwork  []int32
}

// workPool holds LAPACK workspaces, shared by the process's calls.
var workPool = sync.Pool{New: func() any { return new(lapackWork) }}

// sized returns the workspace with at least lwork floats and liwork integers (one
// each at the least), growing it if it is smaller.
func (ws *lapackWork) sized(lwork, liwork int) ([]float64, []int32) {
	lwork, liwork = max(1, lwork), max(1, liwork)
	if cap(ws.work) < lwork {
		ws.work = hugepage.Floats(lwork, 0) // dsyevd's 2n² + 6n + 1: 16 MB at n = 1000
	}
	if cap(ws.iwork) < liwork {
		ws.iwork = make([]int32, liwork)
	}
	return ws.work[:lwork], ws.iwork[:liwork]
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
