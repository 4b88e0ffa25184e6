package kpca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// DefaultBlock is the number of rows AddBatch adds in one step at rank r when
// Options.Block is zero. Measured on MAGIC at r = 50 (docs/design.md, "Rank-r tracking
// in blocks"): blocks of 16 to 256 rows cost 3 to 10 times less than rows one at a
// time, flattest around 64, where the m×(r+b′)×r product, the block Gram–Schmidt and
// the kernel block all run at dgemm speed and the dense problem of order r + 2b stays
// small.
const DefaultBlock = 64

// blockRows returns how many of the next left rows AddBatch adds in blocks: at rank r,
// with a decomposition of at least two points to extend and Block not 1, all of them —
// in a window those that fit before it is full, for a full window's every row removes
// the oldest point first. Zero means one row at a time.
func (md *Model) blockRows(left int) int {
	if md.rank == 0 || md.m < 2 || md.opts.Block == 1 {
		return 0
	}
	if w := md.opts.Window; w > 0 {
		return min(left, max(w-md.m, 0))
	}
	return left
}

// blockSize is the number of rows a block step adds.
func (md *Model) blockSize() int {
	if md.opts.Block > 0 {
		return md.opts.Block
	}
	return DefaultBlock
}

// blockScratch is what a block step (addBlocks, addBlock) uses and drops: the new
// rows, their Cross, their kernel matrix, the Helmert directions and the products that
// give the new block Γ. The Model keeps it (Model.blocks, allocated by its first block
// step), for garbage made at every step would grow the process's peak memory, and a
// pool shared by the models would allocate it again (docs/design.md, "Rank-r tracking
// in blocks").
type blockScratch struct {
	rows              mat.Dense // the new points
	xb, a, b          mat.Dense // headers: a step's rows of them, the kernel block, the border
	cross             kernel.Cross
	C, gamma          mat.SymDense
	cfull, F, fc, fc2 mat.Dense
	s, alpha, sf      []float64
	e, g              []float64
	diag, rowSums     []float64 // the Helmert Fⱼⱼ; the kernel block's row sums (m)
	pass              blockRows // the pass over the kernel block's rows
}

// symOf returns a, emptied and sized n×n (zero), reusing its memory.
func symOf(a *mat.SymDense, n int) *mat.SymDense {
	a.Reset()
	a.ReuseAsSym(n)
	return a
}

// newDense returns a new r×c matrix of zeros advised for huge pages (hugepage.Floats):
// the tall arrays of a Polish and a Certify — m × k vectors, an m × passes·k basis, 36 MB
// for MAGIC — which 4 KiB pages fault in at about 3 ms a MB where faults are slow
// (docs/design.md, "Passes over the points").
func newDense(r, c int) *mat.Dense { return mat.NewDense(r, c, hugepage.Floats(r*c, 0)) }

// cloneDense returns a copy of a in a newDense, as mat.DenseCopyOf would.
func cloneDense(a mat.Matrix) *mat.Dense {
	r, c := a.Dims()
	d := newDense(r, c)
	d.Copy(a)
	return d
}

// denseOf returns a, emptied and sized r×c (zero), reusing its memory.
func denseOf(a *mat.Dense, r, c int) *mat.Dense {
	a.Reset()
	a.ReuseAs(r, c)
	return a
}

// viewOf returns a, its storage set to data's first r×c numbers (row-major): a header
// kept in the step's scratch, for mat.NewDense would allocate one at every step.
func viewOf(a *mat.Dense, r, c int, data []float64) *mat.Dense {
	a.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: c, Data: data[:r*c]})
	return a
}

// addBlock adds the rows of X (b ≥ 1 validated points) in one step
// (update.Thin.BorderBlock; docs/design.md, "Rank-r tracking in blocks"): their kernel
// columns against the model's points A (m×b, one kernel block), their own kernel
// matrix C (b×b), and, centred, the Helmert directions of points m+1…m+b — αⱼ =
// 1/√((m+j)(m+j+1)), F with αⱼ above the diagonal of column j and −(m+j)·αⱼ on it — so
// that the border is B = A·F + (K1)·αᵀ and the new block Γ = (1ᵀK1)·ααᵀ + α·sᵀF +
// Fᵀs·αᵀ + FᵀCF, s = Aᵀ1; uncentred B = A, F = I and Γ = C. sc is the step's scratch.
// On error the model is unchanged.
func (md *Model) addBlock(X *mat.Dense, sc *blockScratch) error {
	m := md.m
	b, _ := X.Dims()
	A, C := md.kernelBlock(X, sc)
	F, alpha, diag := md.helmertDirections(sc, m, b)

	// One pass over the rows of A (blockRows): their finiteness, their sums, the column
	// sums s = Aᵀ1 — the new points' kernel sums against the old — ‖A‖_F, and the
	// border's rows A·F + (K1)·αᵀ and ‖B‖_F.
	B := A
	if alpha != nil {
		md.blockB = hugepage.Grow(md.blockB, m*b)
		B = viewOf(&sc.b, m, b, md.blockB)
	}
	sc.s, sc.rowSums = hugepage.Grow(sc.s, b), hugepage.Grow(sc.rowSums, m)
	var k1 []float64 // the old row sums, for the border's (K1)·αᵀ
	if alpha != nil {
		k1 = md.rowSum[:m]
	}
	pass := sc.pass.run(A.RawMatrix(), B.RawMatrix(), alpha, diag, k1, sc.rowSums, sc.s)
	if !pass.finite || !finiteUpper(C) {
		return md.nonFiniteBlock(A, C)
	}
	gamma, e, g := md.helmertBorder(sc, F, C, alpha)
	var ev, gv mat.Vector // nil uncentred: no new direction in the old rows
	if e != nil {
		ev, gv = vector(&md.vecA, e), vector(&md.vecB, g)
	}
	if err := md.thin.BorderBlock(B, ev, gv, F, gamma); err != nil {
		return kinds.Wrap(err, "adding points %d to %d", m, m+b-1)
	}
	md.tally(md.thin.Stats())
	md.commitBlock(X, C, sc.rowSums[:m], sc.s)
	md.certifyBlock(C, gamma, pass)
	return nil
}

// kernelBlock returns the kernel block of a step adding the rows of X (addBlock): their
// columns against the model's points, A (m×b, in md.blockA), and their own kernel
// matrix C (b×b, upper triangle) — read from the values KeepKernel kept, if they are
// of these points, or computed (kernel.Cross, docs/design.md, "Kernel blocks").
func (md *Model) kernelBlock(X *mat.Dense, sc *blockScratch) (A *mat.Dense, C *mat.SymDense) {
	m := md.m
	b, _ := X.Dims()
	md.blockA = hugepage.Grow(md.blockA, m*b)
	A = viewOf(&sc.a, m, b, md.blockA)
	C = symOf(&sc.C, b)
	if md.kept.covers(m, X) {
		md.kept.blockTo(A.RawMatrix(), C.RawSymmetric(), m, b)
		md.kept.expect = m + b // setView keeps them for this step's points
		return A, C
	}
	md.dropKept()
	if md.blockWork == nil {
		md.blockWork = new(kernel.BlockWork)
	}
	sc.cross.Reset(md.kern, X)
	sc.cross.BlockTo(A, &md.view, md.blockWork)
	sc.cross.MatrixTo(C)
	return A, C
}

// finiteUpper reports whether the upper triangle of C is finite.
func finiteUpper(C *mat.SymDense) bool {
	raw := C.RawSymmetric()
	for i := range raw.N {
		if !vec.Finite(raw.Data[i*raw.Stride+i : i*raw.Stride+raw.N]) {
			return false
		}
	}
	return true
}

// commitBlock appends the rows of X to the model's points and updates the row sums,
// the total 1ᵀK1 and the trace from the kernel block's row sums (m), its column sums s
// and the new points' own kernel matrix C.
func (md *Model) commitBlock(X *mat.Dense, C *mat.SymDense, rowSums, s []float64) {
	m, d := md.m, md.d
	b, _ := X.Dims()
	md.ensure(m + b)
	for i := range b {
		copy(md.x[(m+i)*d:(m+i+1)*d], X.RawRowView(i))
	}
	var sumA float64
	for i, r := range rowSums {
		md.rowSum[i] += r
		sumA += r
	}
	for j := range b {
		var r float64
		for i := range b {
			r += C.At(j, i)
		}
		md.rowSum[m+j] = s[j] + r
	}
	var sumC, selfC float64 // summed entry by entry, in the order of the rows
	for i := range b {
		selfC += C.At(i, i)
		for j := range b {
			sumC += C.At(i, j)
		}
	}
	md.total += 2*sumA + sumC
	md.self += selfC
	md.m = m + b
	md.setView()
	if md.kept != nil {
		md.kept.expect = -1 // any other change of the points drops them
	}
}

// certifyBlock adds a block step's error to the certificate: what the step dropped, the
// dense solve's and the rank decision's rounding (64ε times the order of the dense
// problem and the block, at the step's scale: the largest of |λ|, ‖B‖_F and ‖Γ‖_F),
// the coupling of the directions BorderBlock left out (Neglected), and the kernel
// block's accuracy (kernelAccuracy of each value, so at most that of ‖A‖_F and ‖C‖_F in
// the 2-norm). The pass over the kernel block measured ‖A‖_F and ‖B‖_F.
func (md *Model) certifyBlock(C, gamma *mat.SymDense, pass blockPass) {
	b := C.SymmetricDim()
	st := md.thin.Stats()
	normC := frobenius(C)
	scale := math.Max(md.valueScale(), math.Max(pass.normB, frobenius(gamma)))
	md.cert.SumErr += 4 * vec.Roundoff * (math.Abs(md.self) + math.Abs(md.total)/float64(md.m))
	md.cert.Drop(st.Dropped)
	md.cert.Slack += 64*vec.Roundoff*float64(st.Size+b+2)*scale + st.Neglected + kernelAccuracy*(pass.normA+normC)
}

// frobenius returns the Frobenius norm of a symmetric matrix (without BLAS, which mat
// would reach through gonum's registry).
func frobenius(a *mat.SymDense) float64 {
	n := a.SymmetricDim()
	var s float64
	for i := range n {
		for j := range n {
			s += a.At(i, j) * a.At(i, j)
		}
	}
	return math.Sqrt(s)
}

// nonFiniteBlock returns the error for a block whose kernel values are not all finite,
// naming the first.
func (md *Model) nonFiniteBlock(A *mat.Dense, C *mat.SymDense) error {
	r, c := A.Dims()
	for i := range r {
		for j := range c {
			if v := A.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: kernel value of new point %d with point %d is %g", ErrNonFinite, md.m+j, i, v)
			}
		}
	}
	for i := range c {
		for j := range c {
			if v := C.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: kernel value of new points %d and %d is %g", ErrNonFinite, md.m+i, md.m+j, v)
			}
		}
	}
	return fmt.Errorf("%w: kernel values", ErrNonFinite)
}
