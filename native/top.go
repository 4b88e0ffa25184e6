package native

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/hugepage"
)

// EigenSymTopInPlace computes the r largest eigenvalues and, optionally, their
// eigenvectors of the real symmetric n×n matrix A stored row-major in a with stride lda,
// without computing the others: the partial batch eigensolver, for a model that keeps only
// the top r eigenpairs.
//
// Only the upper triangle of A is read (a[i*lda+j] for j >= i), and all of the leading
// n×n block of a is destroyed; elements outside it are never touched. On success, w
// (len(w) >= r) receives the r largest eigenvalues in ascending order — the last r values
// [EigenSymInPlace] would return — and, when z is not nil, z receives the n×r matrix of
// their orthonormal eigenvectors, row-major with stride ldz, as columns: z[i*ldz+j] is
// component i of the eigenvector of w[j]. Elements of z outside the leading n×r block
// are never touched. Where eigenvalues are equal, or equal to rounding, the vectors span
// their eigenspace but are not otherwise unique; where such a cluster straddles the cut
// between the r kept and the n−r others, so is the subspace kept.
//
// From order krylovMin (2560) on, with r at most n/24 (krylovRanks), the pairs are first sought by
// block Krylov and kept only if a Cholesky factorisation proves that they are the top r,
// each eigenvalue to within a bound of the order of n·ε·‖A‖_F (krylovTop,
// docs/design.md, "The top of a batch by block Krylov"): 1.3 to 3.7 times faster than
// dsyevr on kernel matrices of 3000 to 4000 points. Otherwise, or if the proof fails,
// the backend solves.
//
// The compiled-in backend is called directly: LAPACK dsyevr with an index range
// (RANGE = 'I': tridiagonal reduction, bisection and inverse iteration, then the back
// transformation of the r vectors only) in the openblas build, on A's other triangle in
// LAPACK's column-major layout (docs/design.md, "Backends"). gonum's
// LAPACK has no such routine (only Dsyev, which computes every pair): the pure-Go build
// reduces A with gonum's Dsytrd, computes the eigenvalues of the tridiagonal matrix with
// gonum's Dsterf, the r vectors by inverse iteration as LAPACK's dstein does, checks
// them, and applies the reflectors with gonum's Dormqr; on matrices too small for this to
// pay (n < 32), or if the check fails, it falls back to a full solve. See docs/design.md,
// "Backends". r = n is [EigenSymInPlace]; r = 0 computes nothing.
//
// An error wrapping [ErrArgument] is returned, and nothing is computed, if n < 0, r is
// outside [0, n], lda < max(1, n), ldz < max(1, r) with z not nil, or a, w or z is too
// short; one wrapping [ErrNonFinite] if the upper triangle holds a NaN or an infinity;
// one wrapping [ErrNotConverged] if LAPACK reports a failure, in which case the contents
// of a, w and z are unspecified.
func EigenSymTopInPlace(n, r int, a []float64, lda int, w, z []float64, ldz int) error {
	switch {
	case n < 0:
		return fmt.Errorf("%w: EigenSymTopInPlace: negative dimension n=%d", ErrArgument, n)
	case r < 0 || r > n:
		return fmt.Errorf("%w: EigenSymTopInPlace: r=%d outside [0, %d]", ErrArgument, r, n)
	case r == 0:
		return nil
	case len(w) < r:
		return fmt.Errorf("%w: EigenSymTopInPlace: len(w)=%d less than r=%d", ErrArgument, len(w), r)
	case z != nil && ldz < r:
		return fmt.Errorf("%w: EigenSymTopInPlace: stride ldz=%d less than r=%d", ErrArgument, ldz, r)
	case z != nil && len(z) < (n-1)*ldz+r:
		return fmt.Errorf("%w: EigenSymTopInPlace: len(z)=%d too short for n=%d, ldz=%d (need %d)", ErrArgument, len(z), n, ldz, (n-1)*ldz+r)
	}
	if err := checkUpper("EigenSymTopInPlace", n, a, lda); err != nil {
		return err
	}
	if r == n {
		return topByFull(eigenSym, n, r, a, lda, w, z, ldz)
	}
	if n >= krylovMin && krylovRanks*r <= n && krylovTop(n, r, a, lda, w, z, ldz) {
		return nil
	}
	defer smallLAPACK(n)()
	return eigenSymTop(n, r, a, lda, w, z, ldz)
}

// topByFull computes every eigenpair with full, eigenSym or gonumEigenSym (a is
// overwritten by the eigenvectors), and keeps the top r. Arguments have been validated;
// 1 ≤ r ≤ n.
func topByFull(full func(n int, a []float64, lda int, w []float64, vectors bool) error, n, r int, a []float64, lda int, w, z []float64, ldz int) error {
	all := w[:r]
	if r < n {
		all = make([]float64, n)
	}
	if err := full(n, a, lda, all, z != nil); err != nil {
		return err
	}
	copy(w[:r], all[n-r:])
	if z != nil {
		for i := range n {
			copy(z[i*ldz:i*ldz+r], a[i*lda+n-r:i*lda+n])
		}
	}
	return nil
}

// EigenSymTop computes the r largest eigenvalues of the symmetric matrix a, in ascending
// order, and, when vectors is not nil, their orthonormal eigenvectors stored as the
// columns of vectors (column j belongs to eigenvalue j): the last r values and columns
// [EigenSym] would return, computed by [EigenSymTopInPlace] without the others. It never
// modifies a.
//
// values must be nil, in which case a new slice is allocated, or have length r. vectors,
// if not nil, must either be empty (IsEmpty), in which case it is reshaped to n×r, or
// already be n×r, n = a.SymmetricDim(). vectors may share storage with a. EigenSymTop
// returns the slice holding the eigenvalues.
//
// Errors are those of EigenSymTopInPlace, and wrap [ErrArgument] for a nil a, a matrix
// that lies about its order or panics in At (as [EigenSym]'s), and mismatched
// destination sizes; on error vectors is left unchanged.
func EigenSymTop(values []float64, vectors *mat.Dense, a mat.Symmetric, r int) ([]float64, error) {
	if check.IsNil(a) {
		return nil, fmt.Errorf("%w: EigenSymTop: nil matrix", ErrArgument)
	}
	buf, n, err := readUpper("EigenSymTop", a)
	if err != nil {
		return nil, err
	}
	if r < 0 || r > n {
		return nil, fmt.Errorf("%w: EigenSymTop: r=%d outside [0, %d]", ErrArgument, r, n)
	}
	values, err = eigenDst("EigenSymTop", values, vectors, n, r)
	if err != nil || r == 0 {
		return values, err
	}
	var z []float64
	if vectors != nil {
		z = make([]float64, n*r)
	}
	if err := EigenSymTopInPlace(n, r, buf, n, values, z, r); err != nil {
		return nil, err
	}
	setVectors(vectors, n, r, z)
	return values, nil
}

// readUpper returns the order n of a and its upper triangle in a new n×n row-major
// slice (the strict lower triangle zero), for EigenSym and EigenSymTop (name). The
// storage of a mat.RawSymmetricer (a *mat.SymDense) is copied when it holds the upper
// triangle of an n×n matrix. Any other matrix is read through SymmetricDim and At, and
// that of a type of the caller's own may lie: an order that is negative, beyond what an
// array holds (check.MaxFloats values) or changes while it is read, or a panic in its
// methods, is an ErrArgument error naming it (docs/design.md, "Hostile input").
func readUpper(name string, a mat.Symmetric) (buf []float64, n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			buf, n, err = nil, 0, fmt.Errorf("%w: %s: the matrix (%T) panicked when read: %v", ErrArgument, name, a, p)
		}
	}()
	n = a.SymmetricDim()
	if _, err := kinds.Floats(fmt.Sprintf("%s: the matrix (%T)", name, a), n, n); err != nil {
		return nil, 0, err
	}
	if n == 0 {
		return nil, 0, nil
	}
	// First touched by huge pages (docs/design.md, "Passes over the points").
	buf = hugepage.Floats(n*n, 0)
	if s, ok := a.(mat.RawSymmetricer); ok {
		raw := s.RawSymmetric()
		if raw.Uplo == blas.Upper && raw.N == n && raw.Stride >= n && len(raw.Data) >= (n-1)*raw.Stride+n {
			for i := range n {
				copy(buf[i*n+i:i*n+n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
			}
			return buf, n, nil
		}
	}
	for i := range n {
		for j := i; j < n; j++ {
			buf[i*n+j] = a.At(i, j)
		}
	}
	if n2 := a.SymmetricDim(); n2 != n {
		return nil, 0, fmt.Errorf("%w: %s: the matrix (%T) changed its order from %d to %d while it was read", ErrArgument, name, a, n, n2)
	}
	return buf, n, nil
}
