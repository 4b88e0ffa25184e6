package update

import (
	"fmt"
	"github.com/ikpca/ikpca/internal/hugepage"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// blockWork is the scratch of BorderBlock, grown to the largest block served and then
// reused.
type blockWork struct {
	gp, q, u, p, p2, r, h, y, w, sv, work, norms, prev, s, linv, tmp, chol []float64
	e, g, f                                                                []float64 // copies of the input e, g and F
	rows                                                                   rowJob    // the loops over the block's rows
}

// floats returns the number of float64s the scratch holds.
func (w *blockWork) floats() int {
	n := 0
	for _, x := range [][]float64{w.gp, w.q, w.u, w.p, w.p2, w.r, w.h, w.y, w.w, w.sv, w.work, w.norms, w.prev, w.s, w.linv, w.tmp, w.chol, w.e, w.g, w.f, w.rows.parts} {
		n += cap(x)
	}
	return n
}

// BorderBlock borders A with b rows and columns at once (docs/design.md, "Rank-r
// tracking in blocks"): the generalisation of Border to b new directions, for adding b
// points to a kernel matrix in one step. The new matrix A′, of order n+b, is given in
// the orthonormal basis
//
//	E = [[V, Q, e·gᵀ], [0, 0, F]]      (n+b rows, k + b′ + b columns)
//
// as
//
//	EᵀA′E = [[diag(λ), 0, P], [0, 0, R], [Pᵀ, Rᵀ, Γ]],
//
// where the columns (gⱼ·e, Fⱼ) are the b new unit directions — e ∈ Rⁿ a unit vector
// orthogonal to V, or nil (then g is ignored), F a b×b matrix, and the directions
// orthonormal: gᵢgⱼ + FᵢᵀFⱼ = δᵢⱼ —, B (n×b) holds the couplings of the old rows with the
// new directions, Γ (b×b, symmetric) the new directions' own block, and VP + QR is the
// part of B orthogonal to e, split into its part in the span of V and the rest: Q has
// orthonormal columns, as many (b′ ≤ b) as that rest has singular values above 64ε
// times the scale of the problem. An uncentred kernel matrix gaining b points has e =
// nil, F = I, B their kernel columns and Γ their kernel matrix; a centred one e = 1/√n
// and the Helmert directions of points n+1, …, n+b (kpca).
//
// BorderBlock computes P, Q and R itself, by block Gram–Schmidt against V (two passes
// and more while a column cancels, as reorthogonalize), the eigendecomposition of the
// rest's Gram matrix for its numerical rank, and two projections and Cholesky
// orthonormalisations of Q (rangeBasis). Directions of the rest whose singular values
// are below 64ε times the scale or rankRelative times the largest are left out, and
// Stats().Neglected bounds the norm of the coupling they would have carried: A′ is
// then represented to within that norm. The
// matrix of order k + b′ + b is solved by a dense eigensolver (native.EigenSym); the
// new vectors are E times its top eigenvectors — as many as the Truncation keeps —
// three products, the largest n×(k+b′)×k′. Stats().Dropped describes the eigenvalues
// left out, Stats().Size is the order of the dense problem. b = 1 is Border's
// arrowhead, solved densely.
//
// B and F are read through their raw storage when they are mat.RawMatrixers (a
// *mat.Dense), through At otherwise; e and g, like Border's vectors, from a
// *mat.VecDense's storage whatever its increment (a vector of the caller's own type
// copied once before, as Border's). All are copied into t's scratch. A nil
// e (an untyped nil or a nil pointer) is the zero vector, and then g is ignored.
//
// On error t is unchanged: B, F, Γ, e or g of the wrong shape are ErrDimension, a nil
// B, F, Γ or g (with e) ErrArgument, non-finite input ErrNonFinite, directions that are
// not orthonormal ErrArgument, and a failed eigensolver an error of package native or
// secular.ErrNotConverged (both wrap ikpca.ErrNotConverged).
func (t *Thin) BorderBlock(B mat.Matrix, e, g mat.Vector, F mat.Matrix, gamma mat.Symmetric) error {
	B, F, gamma, err := readBlock(B, F, gamma)
	if err != nil {
		return err
	}
	if e, err = readVector("e", e); err != nil {
		return err
	}
	if g, err = readVector("g", g); err != nil {
		return err
	}
	n, b, hasE, err := t.checkBorderBlock(B, e, g, F, gamma)
	if err != nil {
		return err
	}
	in, err := t.loadBorder(B, e, g, F, gamma, n, b, hasE)
	if err != nil {
		return err
	}
	k := t.k
	span := n // the dimension of the space V lives in: Rⁿ, or e⊥
	if hasE {
		span = n - 1
	}
	// Room for the new vectors: at most N = k + b′ + b columns, and at most Rank of them
	// at rank r (n×(Rank+1) buffers, not n×(k+2b): the block's directions live in the
	// scratch).
	cols := k + 2*b
	if t.trunc.Rank > 0 {
		cols = min(cols, max(k, t.trunc.Rank))
	}
	t.grow(n+b, cols)
	t0 := time.Now()
	split, err := t.splitBorder(in, gamma, span)
	if err != nil {
		return err
	}
	t1 := time.Now()
	N := k + split.bq + b
	h := t.blockArrow(split, gamma, b)
	w := &t.blk
	w.w = hugepage.Grow(w.w, N)
	if err := native.EigenSymInPlace(N, h, N, w.w, true); err != nil {
		return kinds.Wrap(err, "BorderBlock")
	}
	values := w.w[:N]
	t2 := time.Now()
	from := N - min(t.kept(values), cols)
	t.commitBorder(in, split, h, N, from)
	drop := DroppedOf(values[:from])
	copy(t.values, values[from:])
	t.v, t.spare = t.spare, t.v
	t.rows, t.k = n+b, N-from
	t.stats = Stats{Op: "border-block", Stats: secular.Stats{Size: N}, Dropped: drop, Neglected: split.neglected,
		Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// readBlock returns BorderBlock's matrices as the update reads them: gonum's own types
// as they are, a caller's own type copied once (check.Kinds.Matrix, readSymmetric), so
// that one that lies about its size or panics in At is an ErrArgument error before
// anything else is read. A nil one is an ErrArgument error.
func readBlock(B, F mat.Matrix, gamma mat.Symmetric) (mat.Matrix, mat.Matrix, mat.Symmetric, error) {
	if check.IsNil(B) || check.IsNil(F) || check.IsNil(gamma) {
		return nil, nil, nil, fmt.Errorf("%w: BorderBlock: nil B, F or Γ", ErrArgument)
	}
	B, _, _, err := kinds.Matrix(B)
	if err != nil {
		return nil, nil, nil, kinds.Wrap(err, "BorderBlock: B")
	}
	if F, _, _, err = kinds.Matrix(F); err != nil {
		return nil, nil, nil, kinds.Wrap(err, "BorderBlock: F")
	}
	if gamma, _, err = readSymmetric(gamma); err != nil {
		return nil, nil, nil, kinds.Wrap(err, "BorderBlock: Γ")
	}
	return B, F, gamma, nil
}

// checkBorderBlock checks BorderBlock's arguments before anything is copied: none nil,
// B of the rows of t (n×b, b ≥ 1), F and Γ b×b, and with e (n) g (b). It returns n, b
// and whether there is an e.
func (t *Thin) checkBorderBlock(B mat.Matrix, e, g mat.Vector, F mat.Matrix, gamma mat.Symmetric) (n, b int, hasE bool, err error) {
	if check.IsNil(B) || check.IsNil(F) || check.IsNil(gamma) {
		return 0, 0, false, fmt.Errorf("%w: BorderBlock: nil B, F or Γ", ErrArgument)
	}
	n = t.rows
	bn, b := B.Dims()
	if b == 0 || bn != n || n == 0 {
		return 0, 0, false, fmt.Errorf("%w: BorderBlock: B is %d×%d for %d rows (at least one of each)", ErrDimension, bn, b, n)
	}
	if fr, fc := F.Dims(); fr != b || fc != b || gamma.SymmetricDim() != b {
		return 0, 0, false, fmt.Errorf("%w: BorderBlock: F is %d×%d and Γ %d×%d, want %d×%d", ErrDimension, fr, fc,
			gamma.SymmetricDim(), gamma.SymmetricDim(), b, b)
	}
	hasE = !check.IsNil(e)
	if hasE {
		if err := checkVector("e", e, n); err != nil {
			return 0, 0, false, err
		}
		if err := checkVector("g", g, b); err != nil {
			return 0, 0, false, err
		}
	}
	return n, b, hasE, nil
}

// border is BorderBlock's input in the scratch: G (n×b), B to start with and then its
// rest outside span(V) and e; the new directions' F (b×b) and, with an e, e and g (nil
// otherwise).
type border struct {
	G, F  blas64.General
	e, gv []float64
}

// loadBorder copies B, F, e and g into the scratch, checking every value finite (B in
// the same pass over its rows as the copy), ‖e‖ = 1 and the new directions (gⱼ·e, Fⱼ)
// orthonormal, to 1e-8.
func (t *Thin) loadBorder(B mat.Matrix, e, g mat.Vector, F mat.Matrix, gamma mat.Symmetric, n, b int, hasE bool) (border, error) {
	w := &t.blk
	w.gp = hugepage.Grow(w.gp, n*b)
	in := border{G: blas64.General{Rows: n, Cols: b, Stride: b, Data: w.gp}}
	if raw, ok := rawOf(B); !ok || !w.rows.copyFinite(in.G, raw) {
		if err := finiteMatrix("B", B); err != nil {
			return border{}, err
		}
		copyMatrix(in.G, B)
	}
	if err := finiteMatrix("F", F); err != nil {
		return border{}, err
	}
	if err := finiteMatrix("Γ", gamma); err != nil {
		return border{}, err
	}
	if hasE {
		w.e, w.g = hugepage.Grow(w.e, n), hugepage.Grow(w.g, b)
		in.e, in.gv = w.e, w.g
		copyVector(in.e, e)
		copyVector(in.gv, g)
		if ee := vec.Dot(in.e, in.e); !(math.Abs(ee-1) <= 1e-8) {
			return border{}, fmt.Errorf("%w: BorderBlock: ‖e‖² = %g, not 1", ErrArgument, ee)
		}
	}
	w.f = hugepage.Grow(w.f, b*b)
	in.F = blas64.General{Rows: b, Cols: b, Stride: b, Data: w.f}
	copyMatrix(in.F, F)
	return in, orthonormalDirections(in.F, in.gv)
}

// orthonormalDirections checks that the directions (gⱼ·e, Fⱼ), e a unit vector, are
// orthonormal to 1e-8: gᵢgⱼ + FᵢᵀFⱼ = δᵢⱼ (ErrArgument otherwise). A nil g is zero.
func orthonormalDirections(F blas64.General, g []float64) error {
	b := F.Cols
	for i := range b {
		for j := range i + 1 {
			var d float64
			for l := range b {
				d += F.Data[l*F.Stride+i] * F.Data[l*F.Stride+j]
			}
			if g != nil {
				d += g[i] * g[j]
			}
			if i == j {
				d--
			}
			if !(math.Abs(d) <= 1e-8) {
				return fmt.Errorf("%w: BorderBlock: new directions %d and %d are not orthonormal (%g)", ErrArgument, i, j, d)
			}
		}
	}
	return nil
}

// borderSplit is B split in the basis of the bordered matrix (docs/design.md, "Rank-r
// tracking in blocks"): P = VᵀB (k×b, in the scratch p), Q (n×b′, the scratch q) an
// orthonormal basis of B's rest outside span(V) and e, R = QᵀB (b′×b, the scratch r),
// and the bound on the norm of the rest left out of Q.
type borderSplit struct {
	p, r      []float64
	Q         blas64.General
	bq        int
	neglected float64
}

// splitBorder splits in.G (B) into V·P + Q·R + the part neglected, leaving in.G its
// rest: B without its component along e, then without its part in span(V) (block
// Gram–Schmidt, projectBlock), and Q a basis of that rest's numerical range of at most
// the room left in the span (rangeBasis) — the scale of the problem, for the threshold
// 64ε·scale, the largest of |λ|, the columns of B and |Γ|.
func (t *Thin) splitBorder(in border, gamma mat.Symmetric, span int) (borderSplit, error) {
	w := &t.blk
	G, k, b := in.G, t.k, in.G.Cols
	w.s = hugepage.Grow(w.s, b)
	if in.e != nil {
		offE(G, in.e, w.s)
	}
	w.p = hugepage.Grow(w.p, k*b)
	sp := borderSplit{p: w.p}
	clear(sp.p)
	scale := math.Max(vec.MaxAbs(t.values[:k]), w.maxColumnNorm(G))
	for i := range b {
		for j := range b {
			scale = math.Max(scale, math.Abs(gamma.At(i, j)))
		}
	}
	if k > 0 {
		t.projectBlock(G, sp.p, in.e)
	}
	if room := span - k; room > 0 {
		var err error
		if sp.bq, sp.neglected, err = t.rangeBasis(G, min(room, b), 64*vec.Roundoff*scale, in.e); err != nil {
			return borderSplit{}, err
		}
	} else {
		sp.neglected = w.maxColumnNorm(G) * math.Sqrt(float64(b)) // rounding: V spans everything
	}
	sp.Q = blas64.General{Rows: G.Rows, Cols: sp.bq, Stride: max(sp.bq, 1), Data: w.q}
	w.r = hugepage.Grow(w.r, sp.bq*b)
	sp.r = w.r
	if sp.bq > 0 {
		native.Gemm(blas.Trans, blas.NoTrans, 1, sp.Q, G, 0, blas64.General{Rows: sp.bq, Cols: b, Stride: b, Data: sp.r})
	}
	return sp, nil
}

// blockArrow returns, in the scratch h, the upper triangle of the matrix of order
// N = k + b′ + b that the bordered matrix is in the basis E = [[V, Q, e·gᵀ], [0, 0, F]]:
//
//	[[diag(λ), 0, P], [0, 0, R], [Pᵀ, Rᵀ, Γ]]
//
// (row-major, N×N; the lower triangle zero).
func (t *Thin) blockArrow(sp borderSplit, gamma mat.Symmetric, b int) []float64 {
	k, bq := t.k, sp.bq
	N := k + bq + b
	w := &t.blk
	w.h = hugepage.Grow(w.h, N*N)
	h := w.h[:N*N]
	clear(h)
	at := func(i, j int) *float64 { return &h[i*N+j] }
	c := k + bq // the first row and column of the new directions' block
	for i := range k {
		*at(i, i) = t.values[i]
		copy(h[i*N+c:i*N+c+b], sp.p[i*b:(i+1)*b])
	}
	for i := range bq {
		copy(h[(k+i)*N+c:(k+i)*N+c+b], sp.r[i*b:(i+1)*b])
	}
	for i := range b {
		for j := i; j < b; j++ {
			*at(c+i, c+j) = gamma.At(i, j)
		}
	}
	return h
}

// commitBorder writes the new vectors into t.spare (rows 1…, as t.grow laid it out):
// E times the eigenvectors of the block arrow h in its columns from…N−1, E =
// [[V, Q, e·gᵀ], [0, 0, F]] — the old rows V·Y_V + Q·Y_Q + e·(gᵀY_W), the new rows
// F·Y_W, three products, the largest n×(k+b′)×k′.
func (t *Thin) commitBorder(in border, sp borderSplit, h []float64, N, from int) {
	n, k, b, top := in.G.Rows, t.k, in.G.Cols, N-from
	if top == 0 {
		return
	}
	ld := t.ld
	out := blas64.General{Rows: n, Cols: top, Stride: ld, Data: t.spare[1:]}
	outNew := blas64.General{Rows: b, Cols: top, Stride: ld, Data: t.spare[n*ld+1:]}
	if k > 0 {
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, t.general(), blas64.General{Rows: k, Cols: top, Stride: N, Data: h[from:]}, 0, out)
	} else {
		for i := range n {
			clear(t.spare[i*ld+1 : i*ld+1+top])
		}
	}
	if sp.bq > 0 {
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, sp.Q, blas64.General{Rows: sp.bq, Cols: top, Stride: N, Data: h[k*N+from:]}, 1, out)
	}
	yw := blas64.General{Rows: b, Cols: top, Stride: N, Data: h[(k+sp.bq)*N+from:]}
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, in.F, yw, 0, outNew)
	if in.e != nil {
		// The new directions' part in the old rows: e·(gᵀY_W).
		w := &t.blk
		w.tmp = hugepage.Grow(w.tmp, top)
		native.Gemv(blas.Trans, 1, yw, blas64.Vector{N: b, Inc: 1, Data: in.gv}, 0, blas64.Vector{N: top, Inc: 1, Data: w.tmp})
		native.Ger(1, blas64.Vector{N: n, Inc: 1, Data: in.e}, blas64.Vector{N: top, Inc: 1, Data: w.tmp}, out)
	}
}

// copyMatrix copies m (of dst's dimensions) into dst: row by row from a
// mat.RawMatrixer, through At otherwise.
func copyMatrix(dst blas64.General, m mat.Matrix) {
	if raw, ok := m.(mat.RawMatrixer); ok {
		src := raw.RawMatrix()
		for i := range dst.Rows {
			copy(dst.Data[i*dst.Stride:i*dst.Stride+dst.Cols], src.Data[i*src.Stride:i*src.Stride+dst.Cols])
		}
		return
	}
	for i := range dst.Rows {
		for j := range dst.Cols {
			dst.Data[i*dst.Stride+j] = m.At(i, j)
		}
	}
}

// offE removes from each column of G its component along the unit vector e, with s
// (len G.Cols) as scratch: G ← G − e·(eᵀG).
func offE(G blas64.General, e, s []float64) {
	native.Gemv(blas.Trans, 1, G, blas64.Vector{N: G.Rows, Inc: 1, Data: e}, 0, blas64.Vector{N: G.Cols, Inc: 1, Data: s})
	native.Ger(-1, blas64.Vector{N: G.Rows, Inc: 1, Data: e}, blas64.Vector{N: G.Cols, Inc: 1, Data: s}, G)
}

// maxColumnNorm returns the largest Euclidean norm of G's columns, leaving each in
// w.norms[j] (rowJob.columnNorms: on several goroutines for a tall G).
func (w *blockWork) maxColumnNorm(G blas64.General) float64 {
	w.norms = hugepage.Grow(w.norms, G.Cols)
	return w.rows.columnNorms(G, w.norms)
}

// projectBlock removes from the columns of G (n×b) their part in span(V), adding the
// coordinates to p (k×b): block classical Gram–Schmidt, two passes and more while a
// column shrinks by more than 1/√2 in a pass, as reorthogonalize does for one vector
// (and for the same reason: V orthonormal only to some δ leaves Δʲ of G in its span
// after j passes). The component along e, which the passes may bring back at the
// rounding level, is removed at the end. w.norms holds the norms of G's columns
// (splitBorder measured them).
func (t *Thin) projectBlock(G blas64.General, p []float64, e []float64) {
	w := &t.blk
	k, b := t.k, G.Cols
	w.p2 = hugepage.Grow(w.p2, k*b)
	P2 := blas64.General{Rows: k, Cols: b, Stride: b, Data: w.p2}
	w.prev = hugepage.Grow(w.prev, b)
	for pass := range maxPasses + 1 {
		copy(w.prev, w.norms)
		native.Gemm(blas.Trans, blas.NoTrans, 1, t.general(), G, 0, P2)
		native.Gemm(blas.NoTrans, blas.NoTrans, -1, t.general(), P2, 1, G)
		for i, v := range w.p2 {
			p[i] += v
		}
		w.maxColumnNorm(G)
		if pass == 0 {
			continue // a second pass always
		}
		cancelled := false
		for j, v := range w.norms {
			if v < w.prev[j]*math.Sqrt2/2 {
				cancelled = true
			}
		}
		if !cancelled {
			break
		}
	}
	if e != nil {
		offE(G, e, w.s)
	}
}

// rankRelative is the smallest singular value, relative to the largest, of a new
// direction BorderBlock keeps: 2⁻²⁰ ≈ 1e-6. Its basis comes from the Gram matrix of
// the border's rest, whose eigenvalues are accurate to about b·ε·σmax² — so that a
// singular value below about √(b·ε)·σmax cannot be resolved — and from two Cholesky
// orthonormalisations, which restore orthonormality when the kept directions have a
// condition number up to about 1/√ε. A direction left out carries a coupling of at
// most its singular value, which Stats().Neglected bounds and the caller certifies.
const rankRelative = 0x1p-20

// rangeBasis sets the scratch q (n×b′, stride b′) to an orthonormal basis of the range
// of G (n×b), orthogonal to V and e, of at most most columns, for the singular values of
// G above tol and rankRelative·σmax, and returns b′ and a bound on the norm of the part
// of G left out (zero if none). The basis is G·Z·Σ⁻¹ for the eigenpairs (Σ², Z) of GᵀG —
// a product of n×b by b×b′, where an SVD of G (dgesvd) took a third of a block — then
// projected off V (and e) once more, since rounding leaves it overlapping them by up to
// ε·σmax/σ, and made orthonormal by Cholesky (CholQR, on a Gram matrix within
// O(overlap²) of I).
func (t *Thin) rangeBasis(G blas64.General, most int, tol float64, e []float64) (int, float64, error) {
	w := &t.blk
	n, b := G.Rows, G.Cols
	w.u = hugepage.Grow(w.u, b*b)
	S := blas64.General{Rows: b, Cols: b, Stride: b, Data: w.u}
	native.Syrk(blas.Trans, 1, G, 0, upperOf(S)) // the eigensolver reads the upper triangle
	w.sv = hugepage.Grow(w.sv, b)
	if err := native.EigenSymInPlace(b, S.Data, b, w.sv, true); err != nil {
		return 0, 0, kinds.Wrap(err, "BorderBlock: the border's Gram matrix")
	}
	d := w.sv // ascending
	top := math.Sqrt(math.Max(d[b-1], 0))
	thr := math.Max(tol, rankRelative*top)
	bq := 0
	for bq < min(most, b) && d[b-1-bq] > thr*thr {
		bq++
	}
	// The part left out: at most the largest singular value not kept, whose square is
	// known to about 4·b·ε·σmax².
	neglected := 0.0
	if bq < b {
		neglected = math.Sqrt(math.Max(d[b-1-bq], 0) + 4*float64(b)*vec.Roundoff*top*top)
	}
	if bq == 0 {
		return 0, neglected, nil
	}
	// T = Z·Σ⁻¹ for the kept pairs, largest first (b×bq), and Q = G·T.
	w.linv = hugepage.Grow(w.linv, b*bq)
	tm := w.linv
	for i := range b {
		for c := range bq {
			j := b - 1 - c
			tm[i*bq+c] = S.Data[i*b+j] / math.Sqrt(d[j])
		}
	}
	w.q = hugepage.Grow(w.q, n*bq)
	Q := blas64.General{Rows: n, Cols: bq, Stride: bq, Data: w.q[:n*bq]}
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, G, blas64.General{Rows: b, Cols: bq, Stride: bq, Data: tm}, 0, Q)
	for round := range 2 {
		moved := 0.0 // ‖VᵀQ‖_F, the part of Q in span(V) the round removes
		if t.k > 0 {
			w.p2 = hugepage.Grow(w.p2, t.k*bq)
			P2 := blas64.General{Rows: t.k, Cols: bq, Stride: bq, Data: w.p2}
			native.Gemm(blas.Trans, blas.NoTrans, 1, t.general(), Q, 0, P2)
			native.Gemm(blas.NoTrans, blas.NoTrans, -1, t.general(), P2, 1, Q)
			moved = vec.Norm(w.p2[:t.k*bq])
		}
		if e != nil {
			w.s = hugepage.Grow(w.s, bq)
			offE(Q, e, w.s)
		}
		// CholQR: QᵀQ = LLᵀ, Q ← Q·L⁻ᵀ.
		w.linv = hugepage.Grow(w.linv, bq*bq)
		l := w.linv[:bq*bq]
		native.Syrk(blas.Trans, 1, Q, 0, upperOf(blas64.General{Rows: bq, Cols: bq, Stride: bq, Data: l}))
		// A second round only when the first needs it: when the round's input was
		// orthonormal to within 1/8 (‖QᵀQ − I‖_F) and had at most 1/8 of its norm in
		// span(V), one CholQR leaves Q orthonormal to O(b′·ε) — its error is ε·κ(Q)²
		// (Yamamoto et al. 2015) and κ(Q)² ≤ 9/7 — and orthogonal to V to about the
		// projection's rounding, which the Cholesky factor changes by at most √(8/7).
		// Q = G·T comes from the eigenvalues of GᵀG, which leave it orthonormal to
		// b·ε·κ(G)², κ(G) ≤ 2²⁰ (rankRelative); measured on MAGIC and Fashion-MNIST the
		// first round saw 5e-11 at most, and 1.5e-14 in span(V).
		last := round == 1 || moved <= 0.125 && offIdentityUpper(l, bq) <= 0.125
		w.chol = hugepage.Grow(w.chol, bq*bq)
		if !choleskyInverseT(l, bq, w.chol) {
			return 0, 0, fmt.Errorf("%w: BorderBlock: the new directions are not independent", secular.ErrNotConverged)
		}
		w.tmp = hugepage.Grow(w.tmp, n*bq)
		out := blas64.General{Rows: n, Cols: bq, Stride: bq, Data: w.tmp[:n*bq]}
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, Q, blas64.General{Rows: bq, Cols: bq, Stride: bq, Data: l}, 0, out)
		// The product is the new Q: the buffers trade places rather than copy n×b′.
		w.q, w.tmp = w.tmp, w.q
		Q.Data = w.q[:n*bq]
		if last {
			break
		}
	}
	return bq, neglected, nil
}

// offIdentityUpper returns ‖S − I‖_F for the symmetric m×m matrix s (row-major) from
// its upper triangle.
func offIdentityUpper(s []float64, m int) float64 {
	var diag, off float64
	for i := range m {
		v := s[i*m+i] - 1
		diag += v * v
		for _, v := range s[i*m+i+1 : i*m+m] {
			off += v * v
		}
	}
	return math.Sqrt(diag + 2*off)
}

// upperOf returns the upper triangle of the square g as a blas64.Symmetric: what
// native.Syrk writes of a Gram matrix, half the flops of a dgemm's whole product.
func upperOf(g blas64.General) blas64.Symmetric {
	return blas64.Symmetric{N: g.Rows, Uplo: blas.Upper, Stride: g.Stride, Data: g.Data}
}

// choleskyInverseT replaces the symmetric positive definite s (m×m, row-major, upper
// triangle read) by L⁻ᵀ, for s = LLᵀ, upper triangular. It reports false if s is not
// numerically positive definite. x is its scratch, of length m² at least.
func choleskyInverseT(s []float64, m int, x []float64) bool {
	// L, lower triangular, in place of the lower triangle of s (from the upper).
	for j := range m {
		d := s[j*m+j]
		for l := range j {
			d -= s[j*m+l] * s[j*m+l]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		s[j*m+j] = d
		for i := j + 1; i < m; i++ {
			v := s[j*m+i] // upper entry (j, i) = (i, j)
			for l := range j {
				v -= s[i*m+l] * s[j*m+l]
			}
			s[i*m+j] = v / d
		}
	}
	// X = L⁻¹ (lower), column by column, then write Xᵀ (upper) and clear the lower part.
	x = x[:m*m] // scratch of the caller's: its upper triangle, zero, clears s's lower
	clear(x)
	for c := range m {
		for i := c; i < m; i++ {
			v := 0.0
			if i == c {
				v = 1
			}
			for l := c; l < i; l++ {
				v -= s[i*m+l] * x[l*m+c]
			}
			x[i*m+c] = v / s[i*m+i]
		}
	}
	for i := range m {
		for j := range m {
			s[i*m+j] = x[j*m+i] // (L⁻ᵀ)ᵢⱼ = (L⁻¹)ⱼᵢ
		}
	}
	return true
}
