package native

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"

	"github.com/ikpca/ikpca/internal/parallel"
)

// The SVD of a tall matrix by a QR factorisation in chunks of rows (TSQR: Demmel,
// Grigori, Hoemmen and Langou 2012), the chunks on the cores (docs/design.md, "Who owns
// the cores"). For an m×n matrix A with m ≫ n, LAPACK's dgesdd factorises A = QR with
// dgeqrf, forms Q with dorgqr, and takes the SVD of the n×n factor R: its Householder
// panels are level-2 work on all m rows, out of cache, which OpenBLAS's threads hardly
// speed up (docs/design.md, "Who owns the cores", has the times). TSQR computes the
// same factorisation from independent pieces that fit in a core's cache:
//
//	A = [A₁; …; A_p],  Aᵢ = QᵢRᵢ        each chunk on one core (dgeqrf)
//	[R₁; …; R_p] = Q_S·R                 one QR of the stacked factors, pn×n
//	R = U_R·Σ·V_Rᵀ                       the SVD of the n×n factor (dgesdd)
//	U = diag(Q₁, …, Q_p)·(Q_S·U_R)       each chunk's rows on one core (dorgqr, dgemm)
//
// Each step is a Householder QR or a product of orthonormal matrices, so U is
// orthonormal to O(ε) and Σ are A's singular values to O(ε·σ₁), as from dgesdd; and,
// as there, nothing overflows or underflows that the result does not: Householder
// QR forms norms safely (dnrm2) and never squares an entry, and dgesdd scales R itself
// when its entries are near the ends of the range (TestSVDLeftTall's "huge" and "tiny"). The
// chunks depend on m and n alone (tallChunkRows), never on the number of threads, so
// the result does not either.

// tallSVD reports whether SVDLeft factorises an m×n matrix in chunks of rows: at least
// two chunks, and rows at least splitAspect times the columns, as Gemm's row splits.
func tallSVD(m, n int) bool {
	return m >= 2*tallChunkRows(n) && m >= splitAspect*n
}

// tallChunkRows is the rows of a chunk for n columns: splitRows, or 2n if that is more,
// so that every chunk has at least n rows (its R is n×n) and its QR's flops dominate
// the stacked one's.
func tallChunkRows(n int) int { return max(splitRows, 2*n) }

// svdTall is SVDLeft for a tall matrix (tallSVD): arguments validated, a overwritten by
// the chunks' reflectors.
func svdTall(m, n int, a []float64, lda int, s, u []float64, ldu int) error {
	rows := tallChunkRows(n)
	p := m / rows // the last chunk takes the m mod rows rows left over
	chunk := func(i int) (r0, r int) {
		r0 = i * rows
		if i == p-1 {
			return r0, m - r0
		}
		return r0, rows
	}
	impl := lapackImpl()
	tau := make([]float64, p*n)
	stacked := make([]float64, p*n*n) // [R₁; …; R_p], then Q_S
	lwork := chunkWork(impl, rows+rows-1, n)
	workers := splitWorkers(p)
	free := make(chan []float64, workers) // the workers' dgeqrf and dorgqr workspaces
	for range workers {
		free <- make([]float64, lwork)
	}
	var team parallel.Team
	release := ownCores(workers)
	team.Run(workers, p, 1, func(lo, hi int) {
		work := <-free
		for i := lo; i < hi; i++ {
			r0, r := chunk(i)
			ai := a[r0*lda:]
			impl.Dgeqrf(r, n, ai, lda, tau[i*n:(i+1)*n], work, lwork)
			for j := range n { // Rᵢ, upper triangular; the stacked array is zero below
				copy(stacked[(i*n+j)*n+j:(i*n+j+1)*n], ai[j*lda+j:j*lda+n])
			}
		}
		free <- work
	})
	release()

	// The stacked factors' QR, R's SVD, and M = Q_S·U_R, on the backend's threads: a
	// pn×n QR and an n×n SVD, small next to the chunks.
	tauS := make([]float64, n)
	ws := make([]float64, chunkWork(impl, p*n, n))
	impl.Dgeqrf(p*n, n, stacked, n, tauS, ws, len(ws))
	R := make([]float64, n*n)
	for j := range n {
		copy(R[j*n+j:(j+1)*n], stacked[j*n+j:(j+1)*n])
	}
	impl.Dorgqr(p*n, n, n, stacked, n, tauS, ws, len(ws))
	uR := make([]float64, n*n)
	if err := svdSmall(n, R, s, uR); err != nil {
		return err
	}
	M := blas64.General{Rows: p * n, Cols: n, Stride: n, Data: make([]float64, p*n*n)}
	blasImpl().Dgemm(blas.NoTrans, blas.NoTrans, p*n, n, n, 1, stacked, n, uR, n, 0, M.Data, n)

	release = ownCores(workers)
	team.Run(workers, p, 1, func(lo, hi int) {
		work := <-free
		bl := blasImpl()
		for i := lo; i < hi; i++ {
			r0, r := chunk(i)
			ai := a[r0*lda:]
			impl.Dorgqr(r, n, n, ai, lda, tau[i*n:(i+1)*n], work, lwork)
			bl.Dgemm(blas.NoTrans, blas.NoTrans, r, n, n, 1, ai, lda, M.Data[i*n*n:], n, 0, u[r0*ldu:], ldu)
		}
		free <- work
	})
	release()
	return nil
}

// chunkWork returns the workspace dgeqrf and dorgqr need for an r×n matrix: the larger
// of their workspace queries.
func chunkWork(impl lapack.Float64, r, n int) int {
	q, tau := make([]float64, 1), make([]float64, n)
	a := make([]float64, 1) // not read by a query
	impl.Dgeqrf(r, n, a, n, tau, q, -1)
	w := int(q[0])
	impl.Dorgqr(r, n, n, a, n, tau, q, -1)
	return max(w, int(q[0]), n)
}

// svdSmall is the SVD of the n×n factor R: its singular values into s and its left
// vectors into uR, single-threaded below LAPACK's threshold (smallLAPACK).
func svdSmall(n int, R, s, uR []float64) error {
	defer smallLAPACK(n)()
	return svdLeft(n, n, R, n, s, uR, n)
}
