package native

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
)

// Info describes a BLAS/LAPACK backend.
type Info struct {
	// Name is "openblas" or "gonum" for the known backends, and the Go type
	// of the registered implementation (as printed by %T) otherwise.
	Name string
	// Threads is the number of threads the backend may use: the OpenBLAS
	// thread count (openblas_get_num_threads) for OpenBLAS,
	// runtime.GOMAXPROCS(0) for gonum, and 0 for unknown implementations.
	Threads int
	// Config is a free-form description of the build: the string returned
	// by openblas_get_config for OpenBLAS, "gonum pure Go" followed by the
	// gonum module version (when the build records it) for gonum, and empty
	// for unknown implementations.
	Config string
	// Core is the choice of OpenBLAS's kernels ([Core]) for OpenBLAS, and the zero
	// report otherwise.
	Core CoreReport
}

// String formats the Info for logs and benchmark headers, for example
// "openblas (2 threads; OpenBLAS 0.3.21 DYNAMIC_ARCH ... SkylakeX MAX_THREADS=64; core
// Prescott → SkylakeX (...))": the core and why it is in use follow the configuration,
// so that every banner and benchmark record names the kernels that ran.
func (i Info) String() string {
	unit := "threads"
	if i.Threads == 1 {
		unit = "thread"
	}
	s := fmt.Sprintf("%s (%d %s", i.Name, i.Threads, unit)
	if i.Config != "" {
		s += "; " + i.Config
	}
	if core := i.Core.String(); core != "" {
		s += "; core " + core
	}
	return s + ")"
}

var useOnce sync.Once

// Use registers the compiled-in backend ([Compiled]) process-wide with gonum's
// blas64.Use and lapack64.Use, and returns [Active]. The library's own computations
// call the compiled-in backend directly and do not need it: Use is for the rest of a
// program's gonum code (mat.Dense.Mul, mat.EigenSym and everything built on them),
// which otherwise runs on gonum's pure-Go BLAS and LAPACK.
//
// With OpenBLAS, the first call into it, through Use or any function of this
// package, also makes idle OpenBLAS worker threads sleep promptly instead of
// busy-waiting for about a tenth of a second after each threaded call, by setting
// OPENBLAS_THREAD_TIMEOUT=4 — unless the environment already sets that variable,
// which then wins. Eigen-updates alternate one large dgemm with their own work on all
// cores, which the spinning threads would slow down by half.
//
// Registration happens only the first time Use is called; later calls just
// report [Active]. Use is safe to call from several goroutines. It is the only
// function of this package that registers anything: importing the package has no
// side effects.
func Use() Info {
	useOnce.Do(register)
	return Active()
}

// Active reports the BLAS implementation gonum's blas64 package currently
// dispatches to, by inspecting the dynamic type of blas64.Implementation():
// the netlib (cgo) implementation is reported as "openblas", gonum's pure-Go
// implementation as "gonum", and anything else by its Go type name.
func Active() Info {
	impl := blas64.Implementation()
	if info, ok := classify(impl); ok {
		return info
	}
	switch impl.(type) {
	case gonumblas.Implementation, *gonumblas.Implementation:
		return gonumInfo()
	}
	return Info{Name: fmt.Sprintf("%T", impl)}
}

var gonumConfig = sync.OnceValue(func() string {
	const base = "gonum pure Go"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return base
	}
	for _, dep := range bi.Deps {
		if dep.Path != "gonum.org/v1/gonum" {
			continue
		}
		if dep.Replace != nil {
			dep = dep.Replace
		}
		if dep.Version == "" {
			return base
		}
		return base + " (gonum.org/v1/gonum " + dep.Version + ")"
	}
	return base
})

func gonumInfo() Info {
	return Info{Name: "gonum", Threads: runtime.GOMAXPROCS(0), Config: gonumConfig()}
}

// EigenSymInPlace computes all eigenvalues and, optionally, the eigenvectors
// of the real symmetric n×n matrix A stored row-major in a with stride lda.
// It is the batch solver used as test oracle and as the "recompute from
// scratch" baseline.
//
// Only the upper triangle of A is read (a[i*lda+j] for j >= i). On success, w
// (len(w) >= n) receives the eigenvalues in ascending order and, when vectors
// is true, a is overwritten with the orthonormal eigenvectors stored as
// columns: a[i*lda+j] is component i of the eigenvector of w[j]. When vectors
// is false the upper triangle of a is destroyed. Elements of a outside the
// leading n×n block are never touched.
//
// The compiled-in backend is called directly, independently of [Use] and of
// the lapack64 registry: LAPACK dsyevd (divide and conquer) in the openblas
// build, called in its column-major layout on A's other triangle, its vectors
// transposed in place (docs/design.md, "Backends"); gonum's Dsyev in the pure-Go
// build. (gonum's Dsyev itself
// performs its BLAS operations through the blas64 registry.)
//
// An error is returned, and nothing is computed, if n < 0, lda < max(1, n),
// a or w is too short, or the upper triangle holds a NaN or an infinity; an
// error is also returned if LAPACK reports a failure, in which case the
// contents of a and w are unspecified. n == 0 is a no-op.
func EigenSymInPlace(n int, a []float64, lda int, w []float64, vectors bool) error {
	switch {
	case n < 0:
		return fmt.Errorf("%w: EigenSymInPlace: negative dimension n=%d", ErrArgument, n)
	case n == 0:
		return nil
	case len(w) < n:
		return fmt.Errorf("%w: EigenSymInPlace: len(w)=%d less than n=%d", ErrArgument, len(w), n)
	}
	if err := checkUpper("EigenSymInPlace", n, a, lda); err != nil {
		return err
	}
	defer smallLAPACK(n)()
	return eigenSym(n, a, lda, w, vectors)
}

// checkUpper reports, for the function name, an n×n matrix of stride lda that a cannot
// hold (ErrArgument: lda < n, a too short) or whose upper triangle holds a NaN or an
// infinity (ErrNonFinite). n ≥ 1.
func checkUpper(name string, n int, a []float64, lda int) error {
	switch {
	case lda < n:
		return fmt.Errorf("%w: %s: stride lda=%d less than n=%d", ErrArgument, name, lda, n)
	case len(a) < (n-1)*lda+n:
		return fmt.Errorf("%w: %s: len(a)=%d too short for n=%d, lda=%d (need %d)", ErrArgument, name, len(a), n, lda, (n-1)*lda+n)
	}
	for i := range n {
		for k, v := range a[i*lda+i : i*lda+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s: element %v at row %d, column %d", ErrNonFinite, name, v, i, i+k)
			}
		}
	}
	return nil
}

// EigenSym computes all eigenvalues of the symmetric matrix a, in ascending
// order, and, when vectors is not nil, its orthonormal eigenvectors stored as
// the columns of vectors (column j belongs to eigenvalue j). It uses the same
// backend as [EigenSymInPlace] and never modifies a.
//
// values must be nil, in which case a new slice is allocated, or have length
// n = a.SymmetricDim(). vectors, if not nil, must either be empty (IsEmpty),
// in which case it is reshaped to n×n, or already be n×n. vectors may share
// storage with a. EigenSym returns the slice holding the eigenvalues.
//
// Errors are returned for mismatched destination sizes, a nil a, non-finite
// elements and LAPACK failures, and a matrix of the caller's own type that lies
// about its order or panics in At is an ErrArgument error (readUpper); on error
// vectors is left unchanged.
func EigenSym(values []float64, vectors *mat.Dense, a mat.Symmetric) ([]float64, error) {
	if check.IsNil(a) {
		return nil, fmt.Errorf("%w: EigenSym: nil matrix", ErrArgument)
	}
	// Work on a private copy of the upper triangle: a is read-only and may
	// share memory with vectors.
	buf, n, err := readUpper("EigenSym", a)
	if err != nil {
		return nil, err
	}
	values, err = eigenDst("EigenSym", values, vectors, n, n)
	if err != nil || n == 0 {
		return values, err
	}
	if err := EigenSymInPlace(n, buf, n, values, vectors != nil); err != nil {
		return nil, err
	}
	setVectors(vectors, n, n, buf)
	return values, nil
}

// eigenDst checks the destinations of EigenSym and EigenSymTop (name) for r eigenpairs of
// an n×n matrix — values nil or of length r, vectors nil, empty or n×r — and returns
// values, allocated if nil (ErrArgument otherwise, and nil).
func eigenDst(name string, values []float64, vectors *mat.Dense, n, r int) ([]float64, error) {
	if values != nil && len(values) != r {
		return nil, fmt.Errorf("%w: %s: len(values)=%d, want %d", ErrArgument, name, len(values), r)
	}
	if vectors != nil && !vectors.IsEmpty() {
		if rr, c := vectors.Dims(); rr != n || c != r {
			return nil, fmt.Errorf("%w: %s: vectors is %d×%d, want %d×%d", ErrArgument, name, rr, c, n, r)
		}
	}
	if values == nil {
		values = make([]float64, r)
	}
	return values, nil
}

// setVectors stores the n×c row-major eigenvectors z, a private array of the caller, in
// vectors: an empty vectors takes z as its own (no copy, and no second array of n×c
// to fault in); a nil vectors asked for none.
func setVectors(vectors *mat.Dense, n, c int, z []float64) {
	if vectors == nil {
		return
	}
	if vectors.IsEmpty() {
		vectors.SetRawMatrix(blas64.General{Rows: n, Cols: c, Stride: c, Data: z[:n*c]})
		return
	}
	vectors.Copy(mat.NewDense(n, c, z))
}

// SVDLeft computes the singular values of the m×n row-major matrix a (stride lda), in
// descending order, into s (length ≥ min(m, n)), and the m×min(m, n) matrix of left
// singular vectors into u (stride ldu). a is overwritten. The compiled-in backend is
// called directly: LAPACK dgesdd (divide and conquer) through LAPACKE in the openblas
// build, gonum's Dgesvd in the pure-Go build. A tall matrix — m at least 1024 and 8n —
// is factorised by a QR in chunks of rows on several goroutines (TSQR), the chunks'
// QRs single-threaded calls of the same backend; its chunks do not depend on the number
// of threads, nor therefore does the result.
//
// An error is returned, and nothing is computed, for inconsistent sizes or a
// non-finite element of a; an error is also returned if LAPACK reports a failure.
// m == 0 or n == 0 is a no-op.
func SVDLeft(m, n int, a []float64, lda int, s, u []float64, ldu int) error {
	k := min(m, n)
	switch {
	case m < 0 || n < 0:
		return fmt.Errorf("%w: SVDLeft: negative dimension %d×%d", ErrArgument, m, n)
	case k == 0:
		return nil
	case lda < n || ldu < k:
		return fmt.Errorf("%w: SVDLeft: strides lda=%d, ldu=%d too small for %d×%d", ErrArgument, lda, ldu, m, n)
	case len(a) < (m-1)*lda+n || len(u) < (m-1)*ldu+k || len(s) < k:
		return fmt.Errorf("%w: SVDLeft: slices too short for %d×%d", ErrArgument, m, n)
	}
	for i := range m {
		for _, v := range a[i*lda : i*lda+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: SVDLeft: element %v in row %d", ErrNonFinite, v, i)
			}
		}
	}
	if tallSVD(m, n) {
		return svdTall(m, n, a, lda, s, u, ldu)
	}
	defer smallLAPACK(m)()
	return svdLeft(m, n, a, lda, s, u, ldu)
}
