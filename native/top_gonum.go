package native

import (
	"fmt"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// minTopN is the order below which the pure-Go partial eigensolver solves in full
// (gonum's Dsyev) and keeps the top r: there the reduction's fixed costs outweigh what
// computing fewer vectors saves.
const minTopN = 32

// topCheck is the tolerance factor of the a-posteriori check of inverse iteration
// (checkTop): residuals ‖Tyⱼ − λⱼyⱼ‖₂ at most topCheck·n·ε·‖T‖₁ and |YᵀY − I| at most
// topCheck·n·ε entrywise. The whole solver is tested against 8·n·ε (top_test.go); inverse
// iteration's vectors measure about n·ε/40 on Wilkinson and glued Wilkinson matrices,
// random and kernel matrices (TestTridiagTop), while a failure is orders of magnitude
// off. A variable so that a test can force the fallback.
var topCheck = 16.0

// topFallbacks counts the solves in which inverse iteration failed its check and
// tridiagByQR took over, for the tests.
var topFallbacks atomic.Int64

// gonumEigenSymTop is the pure-Go partial eigensolver behind EigenSymTopInPlace
// (arguments validated, 1 ≤ r < n): gonum's Dsytrd reduces A to tridiagonal form
// QᵀAQ = T, tridiagTop computes the top r eigenpairs of T, and gonum's Dormqr applies Q to
// the r vectors only — LAPACK's dsyevx with dsterf for the eigenvalues. The matrix is
// prepared by gonumGuard as for gonumEigenSym.
func gonumEigenSymTop(n, r int, a []float64, lda int, w, z []float64, ldz int) (err error) {
	if n < minTopN {
		return topByFull(gonumEigenSym, n, r, a, lda, w, z, ldz)
	}
	defer recoverLAPACK("Dsytrd, Dsterf or Dormqr", &err)
	e := gonumGuard(n, a, lda)
	// Dsytrd's lower form stores Q = H₀·H₁⋯H_{n−2} as the reflectors of a QR
	// factorisation of A[1:n, 0:n−1], which Dormqr applies (LAPACK's dormtr does the
	// same): copy the upper triangle to the lower.
	for i := range n {
		for j := i + 1; j < n; j++ {
			a[j*lda+i] = a[i*lda+j]
		}
	}
	var impl gonumlapack.Implementation
	d := make([]float64, n)
	off := make([]float64, n-1)
	tau := make([]float64, n-1)
	query := make([]float64, 1)
	impl.Dsytrd(blas.Lower, n, a, lda, d, off, tau, query, -1)
	lwork := max(1, int(query[0]))
	if z != nil {
		impl.Dormqr(blas.Left, blas.NoTrans, n-1, r, n-1, a[lda:], lda, tau, z[ldz:], ldz, query, -1)
		lwork = max(lwork, int(query[0]))
	}
	work := make([]float64, lwork)
	impl.Dsytrd(blas.Lower, n, a, lda, d, off, tau, work, lwork)

	var y []float64 // eigenvectors of T, n×r
	if z != nil {
		y = make([]float64, n*r)
	}
	dt, et := append([]float64(nil), d...), append([]float64(nil), off...)
	if !tridiagTop(n, r, dt, et, w, y) {
		// Inverse iteration failed its check: every pair of T by gonum's implicit QL/QR
		// (Dsteqr), the top r kept.
		topFallbacks.Add(1)
		if err := tridiagByQR(n, r, d, off, w, y); err != nil {
			return err
		}
	}
	if z != nil {
		for i := range n {
			copy(z[i*ldz:i*ldz+r], y[i*r:i*r+r])
		}
		impl.Dormqr(blas.Left, blas.NoTrans, n-1, r, n-1, a[lda:], lda, tau, z[ldz:], ldz, work, lwork)
	}
	return unscale(w[:r], e)
}

// tridiagByQR computes every eigenpair of the tridiagonal matrix (d, e) with gonum's
// Dsteqr (O(n³) with vectors) and keeps the top r, ascending, in w and, if y is not nil,
// the columns of y (n×r, stride r): the fallback of tridiagTop.
func tridiagByQR(n, r int, d, e, w, y []float64) error {
	var impl gonumlapack.Implementation
	compz := lapack.EVCompNone
	var zt []float64
	if y != nil {
		compz = lapack.EVTridiag
		zt = make([]float64, n*n)
	}
	work := make([]float64, max(1, 2*n-2))
	if !impl.Dsteqr(compz, n, d, e, zt, max(1, n), work) {
		return fmt.Errorf("%w: gonum Dsteqr (n=%d)", ErrNotConverged, n)
	}
	copy(w[:r], d[n-r:])
	if y != nil {
		for i := range n {
			copy(y[i*r:i*r+r], zt[i*n+n-r:i*n+n])
		}
	}
	return nil
}
