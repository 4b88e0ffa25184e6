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

// eigenSym runs LAPACK dsyevd in its column-major layout, on the row-major upper
// triangle of a as its column-major lower one, without LAPACKE's copies
// (dsyevdColumns), and transposes the eigenvectors into the columns of a. Arguments have
// been validated by EigenSymInPlace; n >= 1.
func eigenSym(n int, a []float64, lda int, w []float64, vectors bool) error {
	if backend.Gonum() {
		return gonumEigenSym(n, a, lda, w, vectors)
	}
	spinOnce.Do(shortenSpin)
	ws := workPool.Get().(*lapackWork)
	defer workPool.Put(ws)
	return dsyevdRows(n, a, lda, w, vectors, ws)
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
// n−r+1…n in LAPACK's 1-based numbering) in its column-major layout, without LAPACKE's
// copy of A (dsyevrColumns): dsytrd, then for a proper subset dstebz (bisection) and
// dstein (inverse iteration), and dormtr on the r vectors only, which are then copied
// into the columns of z. Arguments have been validated by EigenSymTopInPlace; 1 ≤ r < n.
func eigenSymTop(n, r int, a []float64, lda int, w, z []float64, ldz int) error {
	if backend.Gonum() {
		return gonumEigenSymTop(n, r, a, lda, w, z, ldz)
	}
	spinOnce.Do(shortenSpin)
	var zc []float64
	if z != nil {
		zc = make([]float64, n*r)
	}
	if err := dsyevrColumns(n, r, a, lda, w, zc); err != nil {
		return err
	}
	if z != nil {
		for c := range r {
			for i, v := range zc[c*n : (c+1)*n] {
				z[i*ldz+c] = v
			}
		}
	}
	return nil
}
