package update

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/secular"
)

// deleteFloor is RemoveKeepRank's threshold, relative to max|λ|, for eigenvalues too small
// to normalise their vectors: dividing by √M loses orthogonality of the order of
// ε·max|λ|/M (docs/design.md, "Rank-r tracking"), at most about 1e-10 above it.
const deleteFloor = 0x1p-20

// Border borders A with one row and column (docs/design.md, "Rank-r tracking"). The
// new matrix A′ is given in the orthonormal basis
//
//	E = [[V, q, e], [0, 0, f]]      (n+1 rows)
//
// as the arrowhead
//
//	EᵀA′E = [[diag(λ), 0, p], [0, 0, β], [pᵀ, β, c]],
//
// where (e, f) is the unit new direction — e ∈ Rⁿ orthogonal to V, f the entry of the
// new row — b ∈ Rⁿ is the border, the coupling of the old rows with the new direction,
// and Vp + βq is the component of b orthogonal to e, split into its part in the span of
// V and the rest (q a unit vector, β ≥ 0). Border computes p, β and q itself from b, by
// two passes of Gram–Schmidt; when V spans all of e⊥ (k = n, or k = n−1 with e given)
// there is no q, and when β is negligible (at most 64ε times the scale of the problem)
// q is left out. An uncentred kernel matrix gaining a point has e = nil (zero), f = 1,
// b its kernel column and c its self-kernel: that is Sym.Border. A centred one has
// e = α·1, f = −α·n, α = 1/√(n(n+1)) (docs/design.md, "Helmert coordinates").
//
// The arrowhead, of order k+1 or k+2, is solved by the secular solver; the new vectors
// are E times its top eigenvectors — as many as the Truncation keeps — one
// n×(k+2)×k product; Stats().Dropped describes the eigenvalues left out.
//
// b and e are copied into t's scratch from a *mat.VecDense, whatever its increment: an
// update allocates nothing. A vector of another type, the caller's own, is first copied
// once (an allocation), and one that lies about its length or panics in AtVec is
// ErrArgument. A nil e (an
// untyped nil or a nil pointer) is the zero vector. On error t is unchanged; b, e of the
// wrong length are ErrDimension, a nil b (for n > 0) ErrArgument, non-finite input
// ErrNonFinite and an (e, f) that is not a unit vector ErrArgument.
func (t *Thin) Border(b, e mat.Vector, f, c float64) error {
	n, k := t.rows, t.k
	b, err := readVector("b", b)
	if err != nil {
		return err
	}
	if e, err = readVector("e", e); err != nil {
		return err
	}
	ee, err := t.checkBorder(b, e, f, c)
	if err != nil {
		return err
	}
	span := n // the dimension of the space V lives in: Rⁿ, or e⊥
	if ee > 0 {
		span = n - 1
	}
	if k < span {
		t.grow(n+1, k+2) // room for q
	} else {
		t.grow(n+1, k+1)
	}
	t0 := time.Now()
	var ev []float64 // e, contiguous, or nil
	if ee > 0 {
		ev = t.tip[:n]
		copyVector(ev, e)
		ee = vec.Dot(ev, ev)
	}
	p, beta, hasQ := t.borderCoordinates(b, ev, ee, c, k < span)
	poles, w, pos := t.withZeroPole(p, beta, hasQ)
	cols := len(poles)
	t1 := time.Now()
	res, err := t.solver.Arrow(poles, w, c)
	if err != nil {
		return kinds.Wrap(err, "Border")
	}
	t2 := time.Now()
	drop := t.commitArrow(res, cols, pos, hasQ, ev, f)
	t.stats = Stats{Op: "border", Stats: res.Stats, Dropped: drop, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// checkBorder checks the arguments of Border, reading e in place, and returns eᵀe (0
// for a nil e): b and e of t's length, c and f finite, and (e, f) a unit vector, the
// new direction of the basis E (docs/design.md, "Rank-r tracking").
func (t *Thin) checkBorder(b, e mat.Vector, f, c float64) (ee float64, err error) {
	n := t.rows
	if err := checkVector("b", b, n); err != nil {
		return 0, err
	}
	hasE := !check.IsNil(e)
	if hasE {
		if err := checkVector("e", e, n); err != nil {
			return 0, err
		}
	}
	if math.IsNaN(c) || math.IsInf(c, 0) || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w: c = %g, f = %g", ErrNonFinite, c, f)
	}
	// The checks read e in place; the update copies it into the scratch once t has
	// grown, and recomputes eᵀe from the copy.
	if hasE {
		ee = normSq(e)
	}
	if u := ee + f*f; !(math.Abs(u-1) <= 1e-8) {
		return 0, fmt.Errorf("%w: (e, f) has norm² %g, not 1", ErrArgument, u)
	}
	return ee, nil
}

// borderCoordinates returns the coordinates of the border b in the basis of Border
// (docs/design.md, "Rank-r tracking", "Adding a point"): b without its component along
// e (ev, of squared norm ee; nil for none), p = Vᵀb, and, when roomForQ (V does not
// span all of e⊥), β = ‖b − Vp‖ and q = (b − Vp)/β, left in t.q — hasQ false when β is
// negligible (at most 64ε times the scale of b, λ and c), and q then left out. p is in
// t's scratch.
func (t *Thin) borderCoordinates(b mat.Vector, ev []float64, ee, c float64, roomForQ bool) (p []float64, beta float64, hasQ bool) {
	n, k := t.rows, t.k
	bp := t.border[:n]
	copyVector(bp, b)
	normB := vec.Norm(bp)
	if ee > 0 {
		axpy(-vec.Dot(ev, bp)/ee, ev, bp)
	}
	p = t.z[:k]
	t.multiplyT(p, bp)
	if !roomForQ {
		return p, 0, false
	}
	// r = b − Vp, twice ("twice is enough": Kahan, Parlett), and again while a pass
	// cancels (reorthogonalize), so that q is orthogonal to V and e whatever the
	// cancellation and whatever V's own loss of orthogonality. β is negligible against
	// the scale of the unprojected b, whose projections round relative to ‖b‖.
	q := t.q[:n]
	copy(q, bp)
	t.subtract(q, p)
	t.reorthogonalize(q, p)
	if ee > 0 {
		axpy(-vec.Dot(ev, q)/ee, ev, q)
	}
	beta = vec.Norm(q)
	scale := math.Max(vec.MaxAbs(t.values[:k]), math.Max(math.Abs(c), normB))
	if beta > 64*vec.Roundoff*scale {
		hasQ = true
		for i := range q {
			q[i] /= beta
		}
	}
	return p, beta, hasQ
}

// commitArrow makes the solved arrowhead res, of order cols, t's decomposition
// (docs/design.md, "Rank-r tracking"): the new vectors are E times the top eigenvectors
// the Truncation keeps — the basis rows are V's with q (t.q) inserted at pos when hasQ,
// V's first pos columns moving one place left, into the free column — and the new
// row's entries f times the eigenvectors' last. It returns what the truncation dropped.
func (t *Thin) commitArrow(res *secular.Result, cols, pos int, hasQ bool, ev []float64, f float64) Dropped {
	n := t.rows
	nn := len(res.Values)
	top := t.kept(res.Values)
	from := nn - top
	ld := t.ld
	in := t.v[1:]
	if hasQ {
		in = t.insertColumn(t.q[:n], pos)
	}
	t.tr.setup(res, cols)
	t.tr.applyFrom(from, n, in, ld, ev, t.spare[1:], ld)
	last := t.spare[n*ld+1 : n*ld+1+top]
	t.tr.tipRowFrom(from, last)
	for i := range last {
		last[i] *= f
	}
	drop := DroppedOf(res.Values[:from])
	copy(t.values, res.Values[from:])
	t.v, t.spare = t.spare, t.v
	t.rows, t.k = n+1, top
	return drop
}

// withZeroPole returns the poles of an update in the basis [V, q] in ascending order —
// λ, with the 0 of q inserted after the negative ones when hasQ — the weights with them
// (p for V's columns, beta for q) and the position of q, in t's scratch.
func (t *Thin) withZeroPole(p []float64, beta float64, hasQ bool) (poles, w []float64, pos int) {
	k := t.k
	poles, w = t.poles[:k], t.wt[:k]
	copy(poles, t.values[:k])
	copy(w, p)
	if !hasQ {
		return poles, w, 0
	}
	for pos < k && t.values[pos] < 0 {
		pos++
	}
	poles, w = t.poles[:k+1], t.wt[:k+1]
	copy(poles[pos+1:], t.values[pos:k])
	copy(w[pos+1:], p[pos:])
	poles[pos], w[pos] = 0, beta
	return poles, w, pos
}

// insertColumn makes the rows of V, in place, the rows of the basis [V, q] in the order
// of withZeroPole's poles — V's first pos columns move one place left, into the free
// column −1, and q takes position pos — and returns them (row stride t.ld). It is part of
// a commit: V is no longer the state's.
func (t *Thin) insertColumn(q []float64, pos int) []float64 {
	ld, k := t.ld, t.k
	for i := range t.rows {
		row := t.v[i*ld : i*ld+1+k]
		copy(row[:pos], row[1:1+pos])
		row[pos] = q[i]
	}
	return t.v
}

// maxPasses is the most Gram–Schmidt passes reorthogonalize makes after the first. A
// pass divides the part of q left in span(V) by about 1/δ, for δ = ‖VᵀV − I‖, and
// the loop ends as soon as a pass does not cancel: three extra passes suffice
// unless δ exceeds about 1e-5, which no update leaves (RemoveKeepRank's floor keeps
// each deletion's loss near 1e-10).
const maxPasses = 4

// reorthogonalize completes the Gram–Schmidt projection x ← x − V·Vᵀx begun by a first
// pass, adding each pass's coordinates to p: a second pass always ("twice is enough"
// for an orthonormal V: Kahan, Parlett), then further ones while a pass shrinks x by
// more than 1/√2 (the criterion of Daniel, Gragg, Kaufman and Stewart, 1976).
//
// Why more than two: V is orthonormal only to some δ — a RemoveKeepRank divides by √M and
// leaves δ near 1e-10 (docs/design.md, "Rank-r tracking") — and classical Gram–Schmidt
// against such a V leaves Δ^j·p of the border in span(V) after j passes, Δ = VᵀV − I.
// After two passes that is δ²‖p‖, which, divided by a β just above Border's threshold,
// made q overlap V by up to 5e-7 (found by FuzzThin and by a crafted border). A pass
// that does not cancel leaves a part in span(V) of at most δ + O(kε) times its
// predecessor's norm, which is at most √2 times its own: the overlap of the normalised
// q with V is then at most √2·(δ + O(kε)), never more than V's own loss. The passes
// converge to the projection onto span(V)⊥ with coordinates p = (VᵀV)⁻¹Vᵀb.
func (t *Thin) reorthogonalize(x, p []float64) {
	k := len(p)
	p2 := t.p2[:k]
	prev := vec.Norm(x)
	for range maxPasses {
		t.multiplyT(p2, x)
		t.subtract(x, p2)
		for i := range p {
			p[i] += p2[i]
		}
		norm := vec.Norm(x)
		if !(norm < prev*math.Sqrt2/2) { // no cancellation (or x is zero)
			return
		}
		prev = norm
	}
}

// kept returns how many of the ascending values the truncation keeps: the top ones.
func (t *Thin) kept(values []float64) int {
	nn := len(values)
	top := nn
	if t.trunc.Rank > 0 {
		top = min(top, t.trunc.Rank)
		for top > 0 && !(values[nn-top] > t.trunc.Floor) {
			top--
		}
	}
	return top
}

// Grow replaces A by diag(A, 0): V gains a zero row, and the new coordinate is outside
// the span of V. It is the start of a centred kernel matrix, whose single point has no
// component.
func (t *Thin) Grow() {
	n := t.rows
	t.growState(n+1, t.k)
	clear(t.row(n)[:t.k])
	t.rows = n + 1
	t.stats = Stats{Op: "grow", Stats: secular.Stats{Size: t.k}}
}

// axpy sets y ← y + a·x.
func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}
