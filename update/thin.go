package update

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/hugepage"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// Thin is a thin eigendecomposition A = V·diag(λ)·Vᵀ of a symmetric n×n matrix: V has
// n rows and k orthonormal columns, like the left factor of a thin SVD, and λ holds
// the k eigenvalues in ascending order. A is the matrix it represents, of rank at most
// k; the columns of V are its eigenvectors for the k eigenvalues λ, and A is zero on
// the complement of their span.
//
// A Thin grows and shrinks by rows (docs/design.md, "Removing a point" and "Rank-r
// tracking") and changes by rank one:
//
//   - Border borders A with one row and column given in an extended basis — V, the
//     part of the border outside V (one new direction) and one new unit direction for
//     the new row — and keeps the top eigenpairs the Truncation allows: one secular
//     solve of order k+2 and one n×(k+2)×k product; BorderBlock does the same for b rows
//     and columns at once;
//   - RankOne adds ρ·v·vᵀ in the basis [V, r̂] of V and the part of v outside it: one
//     secular solve of order k+1 and one n×(k+1)×k product, then the Truncation;
//   - Remove restricts A to the vectors of span(V) whose entry j is zero and deletes
//     row j: when V spans all of Rⁿ (k = n) that is the deletion of row and column j,
//     exactly, as Sym.Remove; when V spans a hyperplane e⊥ (k = n−1), the deletion of
//     row and column j of a matrix that lives on e⊥, such as a centred kernel matrix
//     with e = 1;
//   - RemoveKeepRank deletes row and column j of the rank-k matrix V·diag(λ)·Vᵀ itself
//     (and re-centres it if asked), a rank-one downdate of a k×k problem that keeps k
//     pairs: the removal for a truncated decomposition, which Remove would shrink by
//     one rank each time;
//   - Grow appends a zero row and column.
//
// A square Thin (k = n) is the same decomposition as a Sym, and Border with no new
// direction is Sym.Border, RankOne is Sym.RankOne and Remove is Sym.Remove; Thin also
// allows k < n, keeps its vectors with a row for each row of A, and truncates. Its
// products go through package native.
//
// Every update is transactional: on error the decomposition is exactly as it was.
// Storage is double-buffered and grows geometrically; once Reserve has made room, a
// sequence of updates allocates nothing. A Thin must not be used by several goroutines
// at once. The zero value is the empty decomposition of a 0×0 matrix, ready to use:
// Reset makes it n×n, SetEigen and NewThin start it from eigenpairs.
type Thin struct {
	rows, k int
	// v holds V row-major with row stride ld: column c of row i is v[i*ld+1+c]. Column
	// −1 of each row (v[i*ld]) is free: Border and RankOne write the new direction
	// there, so that it joins V's columns without moving them.
	v, spare         []float64
	ld               int
	values           []float64
	capRows, capK    int // rows and columns the state can hold
	updRows, updK    int // the size the update workspaces were made for
	z, p2, poles, wt []float64
	q, border, tip   []float64 // O(n) scratch of Border and RankOne
	sums             []float64 // column sums of RemoveKeepRank
	order            []int
	tr               transform
	blk              blockWork // BorderBlock's scratch
	solver           secular.Solver
	trunc            Truncation
	stats            Stats
}

// Truncation says which eigenpairs a Thin keeps after Border, BorderBlock, RankOne and
// RemoveKeepRank.
type Truncation struct {
	// Rank, if positive, is the most eigenpairs kept: the largest. Zero keeps them all
	// (an exact decomposition); negative is an error.
	Rank int
	// Floor applies when Rank is positive: eigenpairs whose eigenvalue is at most Floor
	// are dropped too. Zero, the default, suits a positive semi-definite matrix tracked
	// at low rank, whose truncated bordered matrices have negative eigenvalues that
	// belong to no eigenpair of the matrix (docs/design.md, "Rank-r tracking"). Use
	// math.Inf(-1) to keep the top Rank pairs whatever their sign.
	Floor float64
}

// Dropped describes the eigenvalues an update discarded.
type Dropped struct {
	// Count is the number of eigenpairs dropped.
	Count int
	// Max and Min are the largest and the smallest eigenvalue dropped (zero if none).
	Max, Min float64
	// Positive is the sum of the positive eigenvalues dropped, Negative the sum of the
	// magnitudes of the negative ones.
	Positive, Negative float64
}

// DroppedOf summarises the eigenvalues values as a Dropped: what a caller that replaces
// a decomposition by another of its own (kpca's Polish) records as discarded, in the
// terms of a truncation.
func DroppedOf(values []float64) Dropped {
	var d Dropped
	for i, v := range values {
		if i == 0 || v > d.Max {
			d.Max = v
		}
		if i == 0 || v < d.Min {
			d.Min = v
		}
		if v > 0 {
			d.Positive += v
		} else {
			d.Negative -= v
		}
	}
	d.Count = len(values)
	return d
}

// SetTruncation sets which eigenpairs later updates keep. A negative Rank or a NaN
// Floor is an error wrapping ErrArgument. It does not change the current
// decomposition.
func (t *Thin) SetTruncation(tr Truncation) error {
	if tr.Rank < 0 || math.IsNaN(tr.Floor) {
		return fmt.Errorf("%w: truncation rank %d, floor %g", ErrArgument, tr.Rank, tr.Floor)
	}
	t.trunc = tr
	return nil
}

// Truncation returns the truncation set by SetTruncation.
func (t *Thin) Truncation() Truncation { return t.trunc }

// SetOptions sets the solver options for subsequent updates. Options that are negative
// are an error wrapping ErrArgument, and leave t unchanged.
func (t *Thin) SetOptions(o Options) error { return o.apply(&t.solver) }

// Dims returns the number of rows n of A (and of V) and the number k of eigenpairs.
func (t *Thin) Dims() (n, k int) { return t.rows, t.k }

// Stats returns statistics of the last successful operation.
func (t *Thin) Stats() Stats { return t.stats }

// Values returns the eigenvalues in ascending order. If dst is nil a new slice is
// allocated; otherwise dst must have length k and receives the values (Values panics
// on a length mismatch, like Sym.Values).
func (t *Thin) Values(dst []float64) []float64 { return valuesTo(dst, t.values[:t.k]) }

// VectorsTo stores V (n×k) in dst, its columns in the order of Values. If dst is empty
// it is resized; otherwise it must be n×k (VectorsTo panics otherwise, and on a nil
// dst, like gonum's EigenSym.VectorsTo).
func (t *Thin) VectorsTo(dst *mat.Dense) { vectorsTo(dst, t.v, 1, t.ld, t.rows, t.k) }

// Vectors returns a read-only view of V (n×k), sharing storage with t: valid only
// until the next update. An empty decomposition (n = 0 or k = 0) gives an empty
// matrix.
func (t *Thin) Vectors() mat.Matrix {
	if t.rows == 0 || t.k == 0 {
		return &mat.Dense{}
	}
	var d mat.Dense
	d.SetRawMatrix(t.general())
	return &d
}

// RawRow returns row i of V (k entries), sharing storage with t: valid only until the
// next update.
func (t *Thin) RawRow(i int) []float64 {
	if uint(i) >= uint(t.rows) {
		panic(mat.ErrRowAccess)
	}
	return t.row(i)
}

// row returns row i of V.
func (t *Thin) row(i int) []float64 { return t.v[i*t.ld+1 : i*t.ld+1+t.k] }

// general returns V as a BLAS matrix (n, k > 0).
func (t *Thin) general() blas64.General {
	return blas64.General{Rows: t.rows, Cols: t.k, Stride: t.ld, Data: t.v[1 : (t.rows-1)*t.ld+1+t.k]}
}

// multiplyT sets dst = Vᵀx (x of length n, dst of length k).
func (t *Thin) multiplyT(dst, x []float64) {
	if t.k == 0 {
		return
	}
	if t.rows == 0 {
		clear(dst[:t.k])
		return
	}
	native.Gemv(blas.Trans, 1, t.general(), blas64.Vector{N: t.rows, Inc: 1, Data: x},
		0, blas64.Vector{N: t.k, Inc: 1, Data: dst})
}

// subtract sets x ← x − V·p (x of length n, p of length k).
func (t *Thin) subtract(x, p []float64) {
	if t.k == 0 || t.rows == 0 {
		return
	}
	native.Gemv(blas.NoTrans, -1, t.general(), blas64.Vector{N: t.k, Inc: 1, Data: p},
		1, blas64.Vector{N: t.rows, Inc: 1, Data: x})
}

// Reserve makes room for decompositions of up to n rows and k eigenpairs, and for the
// updates between them, so that those updates allocate nothing. It never shrinks the
// storage. A negative size, or one beyond the arrays the package allocates (fits),
// reserves nothing.
func (t *Thin) Reserve(n, k int) {
	if k > math.MaxInt-2 || !fits(n, k+1, k+2, k+2) {
		return
	}
	t.reserveState(n, k)
	t.reserveUpdate()
}

// ReserveBlocks makes room for BorderBlock's scratch, for blocks of up to b rows and
// columns bordering decompositions of up to n rows and as many eigenpairs as Reserve
// made room for (call Reserve first), as Reserve does for the state and the
// one-at-a-time updates. Its n×b buffers otherwise grow with the decomposition, a
// quarter larger each time they are too small: a caller that adds a long input a block
// at a time and knows its length (kpca's block steps, for the capacity Reserve set) spares their garbage, several times
// their final size, which the collector's headroom doubles in a process's peak memory.
// It never shrinks the storage.
func (t *Thin) ReserveBlocks(n, b int) {
	w := &t.blk
	k := t.capK // the basis V, at most
	if n <= 0 || b <= 0 || b > (math.MaxInt-k)/2 || !fits(n, b, k+2*b, k+2*b) {
		return // nothing, or beyond the arrays the package allocates (fits)
	}
	N := k + 2*b // the order of H: k + b′ + b, b′ ≤ b
	for _, r := range []struct {
		x *[]float64
		n int
	}{
		{&w.gp, n * b}, {&w.q, n * b}, {&w.tmp, n * b}, {&w.e, n}, // n×b′ and n
		{&w.h, N * N}, {&w.w, N}, {&w.p, k * b}, {&w.p2, k * b}, // H, its values, VᵀB
		{&w.r, b * b}, {&w.f, b * b}, {&w.u, b * b}, {&w.linv, b * b}, {&w.chol, b * b},
		{&w.g, b}, {&w.s, b}, {&w.sv, b}, {&w.prev, b}, {&w.norms, b},
		{&w.rows.parts, (n + rowChunk - 1) / rowChunk * b}, // the column norms' parts
	} {
		*r.x = reserveFloats(*r.x, r.n)
	}
}

// reserveFloats returns x, or a new slice of capacity at least n if x's is less; its
// contents are scratch and not kept.
func reserveFloats(x []float64, n int) []float64 {
	if cap(x) >= n {
		return x
	}
	return hugepage.Floats(0, n)
}

// reserveState makes room for V (n×k), the eigenvalues and the O(n + k) scratch, but
// not for the update workspaces (reserveUpdate): a Thin used as a backup never needs
// them.
func (t *Thin) reserveState(n, k int) {
	if n <= t.capRows && k <= t.capK {
		return
	}
	capRows, capK := max(n, t.capRows), max(k, t.capK)
	ld := capK + 1
	v := hugepage.Floats(capRows*ld, 0)
	for i := range t.rows {
		copy(v[i*ld+1:i*ld+1+t.k], t.row(i))
	}
	t.v, t.spare, t.ld = v, nil, ld
	values := make([]float64, capK+2)
	copy(values, t.values[:t.k])
	t.values = values
	if capK > t.capK {
		t.z = make([]float64, capK+2)
		t.p2 = make([]float64, capK+2)
		t.poles = make([]float64, capK+2)
		t.wt = make([]float64, capK+2)
		t.sums = make([]float64, capK+2)
		t.order = make([]int, capK+2)
	}
	if capRows > t.capRows {
		t.q = make([]float64, capRows)
		t.border = make([]float64, capRows)
		t.tip = make([]float64, capRows)
	}
	t.capRows, t.capK = capRows, capK
}

// reserveUpdate sizes the update workspaces for the capacity of the state: the second
// buffer, the change of basis and the secular solver (order up to k+1 poles).
func (t *Thin) reserveUpdate() {
	if t.updRows < t.capRows || t.updK < t.capK || len(t.spare) < len(t.v) {
		if len(t.spare) < len(t.v) {
			t.spare = make([]float64, len(t.v))
		}
		t.tr.reserve(t.capK + 2)
		t.solver.Reserve(t.capK + 1)
		t.updRows, t.updK = t.capRows, t.capK
	}
}

// grow makes room for an update to n rows with k columns in its basis, growing each
// dimension that needs it by a quarter at least: the amortised copying is O(n·k) per
// update, negligible next to its O(n·k²) product.
func (t *Thin) grow(n, k int) {
	t.growState(n, k)
	t.reserveUpdate()
}

// growState is grow without the update workspaces.
func (t *Thin) growState(n, k int) {
	if n > t.capRows || k > t.capK {
		rows, cols := t.capRows, t.capK
		if n > rows {
			rows = max(n, rows+rows/4, 16)
		}
		if k > cols {
			cols = max(k, cols+cols/4, 8)
		}
		t.reserveState(rows, cols)
	}
}

// CopyFrom makes t a copy of src: its decomposition, truncation and options. It
// allocates only if t lacks the capacity, and then only for the copy: the second
// buffer of the updates is allocated by t's first update, so that a Thin used to save
// and restore a state holds one n×k matrix. When it allocates, it takes src's capacity
// (Reserve), so that a backup of a growing decomposition reserved for its final size
// is allocated once, not a quarter larger each time it falls short. A nil src is the
// zero value: t becomes the empty decomposition of no rows.
func (t *Thin) CopyFrom(src *Thin) {
	if t == src {
		return
	}
	if src == nil {
		src = &Thin{}
	}
	if src.rows > t.capRows || src.k > t.capK {
		t.reserveState(max(src.capRows, t.capRows), max(src.capK, t.capK))
	}
	t.rows, t.k = src.rows, src.k
	for i := range src.rows {
		copy(t.row(i), src.row(i))
	}
	copy(t.values, src.values[:src.k])
	t.trunc = src.trunc
	t.solver.Workers = src.solver.Workers
	t.solver.Serial = src.solver.Serial
	t.solver.MaxIterations = src.solver.MaxIterations
	t.stats = src.stats
}

// Bytes returns the memory t holds in its arrays, in bytes: V and the second buffer
// updates write to (n×(k+1) each, at capacity), the eigenvalues, the secular solver's
// (k+2)×(k+2) table, the O(n + k) scratch vectors and BorderBlock's n×b scratch. It
// grows with Reserve and never shrinks.
func (t *Thin) Bytes() int {
	b := cap(t.v) + cap(t.spare) + cap(t.values) + cap(t.z) + cap(t.p2) + cap(t.poles) + cap(t.wt) +
		cap(t.sums) + cap(t.order) + cap(t.q) + cap(t.border) + cap(t.tip) + t.blk.floats()
	if t.updK > 0 {
		b += (t.updK + 2) * (t.updK + 2)
	}
	return 8 * b
}

// NewThin returns the thin decomposition with the given k eigenvalues and n×k vectors
// with orthonormal columns (k ≤ n), as SetEigen does on a new Thin, with no truncation.
// The pairs may come in any order: they are sorted.
func NewThin(values []float64, vectors mat.Matrix) (*Thin, error) {
	t := new(Thin)
	if err := t.SetEigen(values, vectors); err != nil {
		return nil, err
	}
	return t, nil
}

// SetEigen starts the decomposition from k eigenvalues and n×k vectors with orthonormal
// columns, in any order: they are sorted and copied. The orthonormality of the vectors,
// sorted as they will be stored, is checked with a random probe in O(n·k) — so that the
// verdict does not depend on the order the pairs come in — and the call fails with
// ErrNotOrthogonal if it is off by more than 1e-8. A nil vectors is an error wrapping
// ErrArgument, vectors of another width than len(values) or no values ErrDimension (an
// empty decomposition of n rows takes an n×0 matrix, which gonum cannot make: use
// Reset), a NaN or infinite value or entry ErrNonFinite. The truncation is not applied.
// On error t is unchanged.
func (t *Thin) SetEigen(values []float64, vectors mat.Matrix) error {
	k := len(values)
	vectors, n, err := eigenPairs(values, vectors, func(n, c int) bool { return c == k && k > 0 && k <= n }, "n×k, 1 ≤ k ≤ n")
	if err != nil {
		return err
	}
	// Probed as they will be stored, sorted (sortedOrthogonality), on a copy: V is state.
	perm := make([]int, k)
	ascending(perm, values)
	x, y, r := make([]float64, k), make([]float64, n), make([]float64, k)
	sorted := make([]float64, n*k)
	if dev := sortedOrthogonality(vectors, perm, sorted, x, y, r); dev > 1e-8 {
		return fmt.Errorf("%w: ‖VᵀV·x − x‖/‖x‖ = %.3g for a probe x", ErrNotOrthogonal, dev)
	}
	t.growState(n, k)
	t.rows, t.k = n, k
	for i := range n {
		copy(t.row(i), sorted[i*k:i*k+k])
	}
	permuteValues(t.values, values, perm)
	t.stats = Stats{Op: "set", Stats: secular.Stats{Size: k}}
	return nil
}

// Reset makes t the empty decomposition of the n×n zero matrix: n rows, no eigenpair.
// A negative n, or one whose rows are more than the package allocates (fits), is an
// error wrapping ErrArgument, and leaves t unchanged.
func (t *Thin) Reset(n int) error {
	if _, err := kinds.Floats("Reset: the vectors", n, t.capK+1); err != nil {
		return err
	}
	t.growState(n, 0)
	t.rows, t.k = n, 0
	t.stats = Stats{Op: "set"}
	return nil
}
