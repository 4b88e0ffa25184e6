package native

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// gonumEigenSym runs gonum's LAPACK (not through lapack64) on the upper triangle of a:
// the pure-Go build's eigensolver, and the openblas build's under
// internal/backend.WithGonum. gonum's LAPACK takes its BLAS from the blas64 registry.
// Arguments have been validated by EigenSymInPlace; n >= 1.
//
// It is Dsyev's sequence — Dsytrd, then Dsterf for eigenvalues alone, or Dorgtr and
// Dsteqr with vectors — with two safeguards for gonum v0.17, whose tridiagonal solvers
// go wrong on a split block of norm below √safmin/ε² (about 1e-123), which they
// rescale: Dsterf panics ("insufficient length of a": Dlascl given the matrix order as
// a vector's stride), and Dsteqr returns eigenvalues of 1e122 (TestGonumDsterfTinyBlock:
// a 7×7 matrix of rank about one, entries from 6e-32 to 5.2, that FuzzThin found).
//
//   - gonumGuard scales A by a power of two to a largest entry in [0.5, 1) and clears
//     entries below ε²·max|aᵢⱼ|, so that A itself has no tiny or subnormal entries;
//   - entries of the tridiagonal T below ε²·max(|dᵢ|, |eᵢ|) are set to zero (cleanTridiagonal),
//     since such blocks appear during the reduction whatever A's entries: every block
//     the solvers see is then zero (skipped) or of norm at least ε²·‖T‖, far above the
//     rescaling threshold.
//
// Each clearing perturbs the matrix by at most n·ε²·‖A‖₂, far below any eigensolver's
// backward error ε·‖A‖₂. A panic inside gonum's LAPACK, which would be a bug there, is
// returned as an error.
func gonumEigenSym(n int, a []float64, lda int, w []float64, vectors bool) (err error) {
	defer recoverLAPACK("Dsytrd, Dsterf or Dsteqr", &err)
	e := gonumGuard(n, a, lda)
	if n == 1 {
		w[0] = a[0]
		if vectors {
			a[0] = 1
		}
		return unscale(w[:n], e)
	}
	var impl gonumlapack.Implementation
	ws := gonumPool.Get().(*gonumWork)
	defer gonumPool.Put(ws)
	off, tau := ws.vectors(n - 1)
	query := ws.query[:]
	impl.Dsytrd(blas.Upper, n, a, lda, w, off, tau, query, -1)
	lwork := max(1, int(query[0]))
	if vectors {
		impl.Dorgtr(blas.Upper, n, a, lda, tau, query, -1)
		lwork = max(lwork, int(query[0]))
	}
	work := ws.sized(max(lwork, 2*n-2))
	impl.Dsytrd(blas.Upper, n, a, lda, w[:n], off, tau, work, lwork)
	cleanTridiagonal(w[:n], off)
	ok := true
	if vectors {
		impl.Dorgtr(blas.Upper, n, a, lda, tau, work, lwork)
		ok = impl.Dsteqr(lapack.EVOrig, n, w[:n], off, a, lda, work)
	} else {
		ok = impl.Dsterf(n, w[:n], off)
	}
	if !ok {
		return fmt.Errorf("%w: gonum Dsteqr/Dsterf (n=%d)", ErrNotConverged, n)
	}
	return unscale(w[:n], e)
}

// gonumWork is the workspace of gonumEigenSym, kept in gonumPool as the OpenBLAS build
// keeps dsyevd's (lapackWork): allocated at every call, Dsytrd's workspace for the
// dense problem of a rank-r block step (order r + 2 + 2b) was about 93 KB of garbage a
// block in the pure-Go build.
type gonumWork struct {
	query          [1]float64
	off, tau, work []float64
}

// gonumPool holds gonumEigenSym's workspaces, shared by the process's calls.
var gonumPool = sync.Pool{New: func() any { return new(gonumWork) }}

// vectors returns the off-diagonal and the reflectors' scalars, k each, growing them if
// they are shorter. Dsytrd writes every entry it reads.
func (ws *gonumWork) vectors(k int) (off, tau []float64) {
	if cap(ws.off) < k {
		ws.off, ws.tau = make([]float64, k), make([]float64, k)
	}
	return ws.off[:k], ws.tau[:k]
}

// sized returns the workspace of at least lwork floats, growing it if it is smaller.
func (ws *gonumWork) sized(lwork int) []float64 {
	lwork = max(1, lwork)
	if cap(ws.work) < lwork {
		ws.work = make([]float64, lwork)
	}
	return ws.work[:lwork]
}

// cleanTridiagonal sets the entries of the tridiagonal matrix (d, e) below
// tinyRelative times its largest entry to zero (see gonumEigenSym).
func cleanTridiagonal(d, e []float64) {
	var big float64
	for _, v := range d {
		big = max(big, math.Abs(v))
	}
	for _, v := range e {
		big = max(big, math.Abs(v))
	}
	small := tinyRelative * big
	for i, v := range d {
		if math.Abs(v) < small {
			d[i] = 0
		}
	}
	for i, v := range e {
		if math.Abs(v) < small {
			e[i] = 0
		}
	}
}

// recoverLAPACK turns a panic of gonum's LAPACK routine name, deferred in its caller,
// into an error: the arguments have been checked, so a panic is a bug of gonum's, and
// the library does not panic on user input.
func recoverLAPACK(name string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: gonum %s failed: %v", ErrNotConverged, name, r)
	}
}

// gonumSVDLeft runs gonum's Dgesvd (JOBU = 'S', JOBVT = 'N'): gonum has no divide-and-conquer
// SVD. Arguments have been validated by SVDLeft; m, n >= 1.
func gonumSVDLeft(m, n int, a []float64, lda int, s, u []float64, ldu int) error {
	var impl gonumlapack.Implementation
	query := make([]float64, 1)
	impl.Dgesvd(lapack.SVDStore, lapack.SVDNone, m, n, a, lda, s, u, ldu, nil, 1, query, -1)
	work := make([]float64, max(int(query[0]), 1))
	if !impl.Dgesvd(lapack.SVDStore, lapack.SVDNone, m, n, a, lda, s, u, ldu, nil, 1, work, len(work)) {
		return fmt.Errorf("%w: gonum Dgesvd (%d×%d)", ErrNotConverged, m, n)
	}
	return nil
}
