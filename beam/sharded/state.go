package sharded

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/native"
)

// Options are a run's parameters, the same on every worker.
type Options struct {
	// Centred polishes K′ = C·K·C, the kernel matrix of the centred feature vectors;
	// otherwise K.
	Centred bool
	// Components is the number of leading pairs reported, and Rank (≥ Components) the
	// width of the blocks: the Ritz pairs kept and the certificate's. A run needs more
	// than Rank points.
	Components, Rank int
	// Passes is the number of passes, 1 to 16: the Krylov space has Passes blocks.
	Passes int
	// Seed seeds the random start (StartRow) and the test vectors (TailRow).
	Seed uint64
	// TestVectors is the number p of Gaussian test vectors of the random tail bound
	// (TailProgram; kpca's Certify takes 30), 0 for none: the certificate is then the
	// deterministic one alone.
	TestVectors int
}

// Matrix is a row-major matrix of Rows×Cols numbers, the form in which a shard's blocks
// travel.
type Matrix struct {
	Rows, Cols int
	Data       []float64
}

// newMatrix returns a zero r×c matrix.
func newMatrix(r, c int) Matrix { return Matrix{Rows: r, Cols: c, Data: make([]float64, r*c)} }

// general is m as a blas64.General (a stride of at least 1, as BLAS wants).
func (m Matrix) general() blas64.General {
	return blas64.General{Rows: m.Rows, Cols: m.Cols, Stride: max(m.Cols, 1), Data: m.Data}
}

// sym returns the square m as a symmetric matrix (its upper triangle).
func (m Matrix) sym() *mat.SymDense {
	out := mat.NewSymDense(m.Rows, nil)
	for i := range m.Rows {
		for j := i; j < m.Cols; j++ {
			out.SetSym(i, j, m.Data[i*m.Cols+j])
		}
	}
	return out
}

// row returns row i.
func (m Matrix) row(i int) []float64 { return m.Data[i*m.Cols : (i+1)*m.Cols] }

// columns returns the columns j0…j1−1 as a new matrix.
func (m Matrix) columns(j0, j1 int) Matrix {
	out := newMatrix(m.Rows, j1-j0)
	for i := range m.Rows {
		copy(out.row(i), m.row(i)[j0:j1])
	}
	return out
}

// gemm sets c = alpha·op(a)·op(b) + beta·c, a no-op on empty operands but for the
// scaling of c by beta.
func gemm(tA, tB blas.Transpose, alpha float64, a, b Matrix, beta float64, c Matrix) {
	if c.Rows == 0 || c.Cols == 0 {
		return
	}
	k := a.Cols
	if tA == blas.Trans {
		k = a.Rows
	}
	if k == 0 {
		for i := range c.Data {
			c.Data[i] *= beta
		}
		return
	}
	native.Gemm(tA, tB, alpha, a.general(), b.general(), beta, c.general())
}

// mul returns op(a)·op(b).
func mul(tA, tB blas.Transpose, a, b Matrix) Matrix {
	r, c := a.Rows, b.Cols
	if tA == blas.Trans {
		r = a.Cols
	}
	if tB == blas.Trans {
		c = b.Rows
	}
	out := newMatrix(r, c)
	gemm(tA, tB, 1, a, b, 0, out)
	return out
}

// hcat returns [a b], of a's rows.
func hcat(a, b Matrix) Matrix {
	out := newMatrix(a.Rows, a.Cols+b.Cols)
	for i := range a.Rows {
		copy(out.row(i), a.row(i))
		copy(out.row(i)[a.Cols:], b.row(i))
	}
	return out
}

// State is one shard's part of a run: its points' rows of the basis and of the block in
// progress. Its fields are exported so that a pipeline can encode it.
type State struct {
	Shard int
	N     int // the shard's points
	// IDs are the points' identities, for the rows of the test vectors (TailRow).
	IDs []uint64
	// Q holds the shard's rows of the basis [Q₀ Q₁ …] so far, N×used.
	Q Matrix
	// Z is the block in progress: the start, then a block being orthonormalised, then
	// the next block of the basis.
	Z Matrix
	// Local is the orthonormal factor of the shard's rows of Z (OrthQR), for OrthApply.
	Local Matrix
	// Y is K times the block of the last pass, N×c: the shard's rows of the sum of its
	// tiles.
	Y Matrix
	// U holds the shard's rows of the Ritz vectors, after the Ritz step.
	U Matrix
}

// Part is what one shard contributes to a reduction.
type Part struct {
	Shard int
	Data  []float64
}

// Global is the small state of a run, the same on every worker: the running sums, the
// Rayleigh–Ritz matrix, and what the last reduction computed for the next step.
type Global struct {
	Options Options
	M       int     // the points
	Self    float64 // Σk(xᵢ, xᵢ)
	Total   float64 // 1ᵀK1
	Kmax    float64 // max k(xᵢ, xᵢ)

	// The Krylov basis: the columns in use, the width of the last block, the pass each
	// column came from, and T = QᵀK′Q (Size×Size, its upper blocks filled).
	Used, Block int
	BlockOf     []int
	Size        int
	T           []float64
	Dropped     float64 // Σ of the tolerances below which directions were dropped
	Stopped     bool    // the space became invariant: the remaining passes do nothing

	// The last pass: the column means of Y, and the tolerance of the next block.
	YMean []float64
	Tol   float64

	// The orthonormalisation in progress: Z's column means and its coordinates P in the
	// basis (OrthSums); the shards' rows of the stacked factors' left singular vectors
	// above the cut (OrthQR), the shard's rows starting at RowOf[shard].
	ZMean []float64
	P     Matrix
	Left  Matrix
	RowOf []int

	// The result (Ritz): the kept values, descending; S's columns for them (Used×keep);
	// the other Ritz values (ascending); T's last block column (Used×Block).
	Values []float64
	S      Matrix
	Rest   []float64
	TLast  Matrix
	Slack  float64
	// After the Ritz reduction: the certificate's ledger; for each kept pair (descending)
	// the interval of its eigenvalue and the sine of the span of the pairs up to it
	// (truncation.RitzBounds), with the bound on the rest of the spectrum they assume;
	// and each kept vector's sign (in the order of S's columns).
	Ledger             truncation.Ledger
	Lower, Upper, Sine []float64
	Tail               float64
	Signs              []float64
	// What the random tail bound needs from the Ritz step: RᵀR in the order of the
	// values and the rounding; the deterministic tail b; then the test vectors' norms
	// (TailStart), the coordinates TailProject removes and their means, and the result:
	// the random tail and its failure probability (0: the certificate is deterministic).
	Gram       Matrix
	Rnd, Bound float64
	OmegaNorm  []float64
	TailMean   []float64
	TailP      Matrix
	Random     float64
	Failure    float64
}

// checkShape reports an error if a matrix that arrived in a State or Part has a shape
// its data do not fill: a pipeline's coder could hand a step anything.
func checkShape(name string, m Matrix) error {
	if m.Rows < 0 || m.Cols < 0 || len(m.Data) != m.Rows*m.Cols {
		return fmt.Errorf("sharded: %s is %d×%d with %d numbers", name, m.Rows, m.Cols, len(m.Data))
	}
	return nil
}
