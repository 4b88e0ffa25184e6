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
// b and e are copied into t's scratch from a *mat.VecDense or any mat.RawVectorer,
// whatever its increment, or through AtVec: an update allocates nothing. A nil e (an
// untyped nil or a nil pointer) is the zero vector. On error t is unchanged; b, e of the
// wrong length are ErrDimension, a nil b (for n > 0) ErrArgument, non-finite input
// ErrNonFinite and an (e, f) that is not a unit vector ErrArgument.
func (t *Thin) Border(b, e mat.Vector, f, c float64) error {
	n, k := t.rows, t.k
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

// Remove restricts A to the vectors x in the span of V with xⱼ = 0, and deletes row j
// (docs/design.md, "Removing a point"). With z the row j of V, the restriction is
// that of diag(λ) to z⊥: k−1 eigenvalues, the roots of Σᵢ zᵢ²/(λᵢ − μ) = 0, which
// interlace λ (secular.Solver.Restrict), and vectors V·Ũ whose row j vanishes — one
// n×k×(k−1) product. When V spans all of Rⁿ that is the deletion of row and column j
// of A, as Sym.Remove; when it spans a hyperplane e⊥ with eⱼ ≠ 0 (a centred kernel
// matrix, e = 1), it is the deletion of row and column j of A as a matrix on e⊥: the
// columns stay orthogonal to e without the row, since the row held zeros. A row j of
// zeros restricts nothing: the row is deleted and k stays. Stats().Removed reports the
// largest entry of the deleted row, zero in exact arithmetic. An index out of range is
// ErrIndex. On error t is unchanged. It loses a pair, where RemoveKeepRank keeps k.
func (t *Thin) Remove(j int) error {
	n, k := t.rows, t.k
	if j < 0 || j >= n {
		return fmt.Errorf("%w: row %d of %d", ErrIndex, j, n)
	}
	t.grow(n, k)
	t0 := time.Now()
	z := t.z[:k]
	copy(z, t.row(j))
	if k == 0 || vec.MaxAbs(z) == 0 {
		t.deleteRow(t.v, j, n)
		t.rows = n - 1
		t.stats = Stats{Op: "remove", Stats: secular.Stats{Size: k}}
		return nil
	}
	t1 := time.Now()
	res, err := t.solver.Restrict(t.values[:k], z)
	if err != nil {
		return kinds.Wrap(err, "Remove")
	}
	t2 := time.Now()
	ld, kk := t.ld, k-1
	t.tr.setup(res, k)
	t.tr.apply(n, t.v[1:], ld, nil, t.spare[1:], ld)
	var removed float64
	for _, x := range t.spare[j*ld+1 : j*ld+1+kk] {
		removed = math.Max(removed, math.Abs(x))
	}
	t.deleteRow(t.spare, j, n)
	copy(t.values, res.Values)
	t.v, t.spare = t.spare, t.v
	t.rows, t.k = n-1, kk
	t.stats = Stats{Op: "remove", Stats: res.Stats, Removed: removed, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// deleteRow removes row j of the n rows in buf (row stride t.ld).
func (t *Thin) deleteRow(buf []float64, j, n int) {
	copy(buf[j*t.ld:], buf[(j+1)*t.ld:n*t.ld])
}

// RemoveKeepRank replaces the rank-k matrix A = V·diag(λ)·Vᵀ by A without row and
// column j, keeping k eigenpairs — with centre, by C·A₋ⱼ·C, C = I − 11ᵀ/(n−1) the
// centring of the n−1 rows left, for a V whose columns are orthogonal to 1
// (docs/design.md, "Rank-r tracking"). With W the rows of V other than j (centred: C·W),
// WᵀW = I − zzᵀ for z the row j of V (centred: times √(n/(n−1))), so A₋ⱼ = WΛWᵀ has the
// eigenvalues M of the k×k matrix
// Λ^½(I − zzᵀ)Λ^½ = Y·M·Yᵀ, a rank-one downdate (secular.Solver.RankOne with ρ = −1),
// and the vectors W·Λ^½·Y·M^−½: one n×k×k product. Unlike Remove it keeps the rank
// (the restriction would lose a dimension at every deletion), at the price of dividing
// by √M, which costs orthogonality of the order of ε·max|λ|/M (the rounding of
// W·Λ^½·Y, of size ε·√max|λ|, against a column of norm √M): eigenvalues at most
// 2⁻²⁰·max|λ| are dropped, so that the loss stays below about 1e-10, with the
// eigenvalues λ ≤ 0 (which have no square root) and those the Truncation drops;
// Stats().Dropped describes them all.
//
// It is the removal for a truncated decomposition (rank-r tracking), where A is an
// approximation of the matrix it tracks: the result is exact for A itself, which Remove
// is only when V spans Rⁿ (or e⊥). An index out of range is ErrIndex. On error t is
// unchanged.
func (t *Thin) RemoveKeepRank(j int, centre bool) error {
	n, k := t.rows, t.k
	if j < 0 || j >= n {
		return fmt.Errorf("%w: row %d of %d", ErrIndex, j, n)
	}
	t.grow(n, k)
	if k == 0 || centre && n == 1 {
		// Nothing to downdate; one centred row has no component.
		t.stats = Stats{Op: "remove-keep-rank", Stats: secular.Stats{Size: 0}, Dropped: DroppedOf(t.values[:k])}
		t.deleteRow(t.v, j, n)
		t.rows, t.k = n-1, 0
		return nil
	}
	// The downdate Λ^½(I − zzᵀ)Λ^½ = Λ − yyᵀ, y = Λ^½z (centred: z times √(n/(n−1))).
	t0 := time.Now()
	scale := 1.0
	if centre {
		scale = math.Sqrt(float64(n) / float64(n-1))
	}
	y := t.z[:k]
	for i, x := range t.row(j) {
		y[i] = math.Sqrt(math.Max(t.values[i], 0)) * x * scale
	}
	t1 := time.Now()
	res, err := t.solver.RankOne(t.values[:k], y, -1)
	if err != nil {
		return kinds.Wrap(err, "RemoveKeepRank")
	}
	t2 := time.Now()
	from := t.keptDowndate(res.Values)
	drop := t.commitDowndate(res, j, from, centre)
	t.stats = Stats{Op: "remove-keep-rank", Stats: res.Stats, Dropped: drop, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// keptDowndate returns the index from of the first eigenvalue M that RemoveKeepRank
// keeps of the ascending mu: those above deleteFloor·max|λ| — dividing by √M costs
// orthogonality ε·max|λ|/M (docs/design.md, "Rank-r tracking", "Removing a point") —
// and the truncation's floor, the top Rank.
func (t *Thin) keptDowndate(mu []float64) (from int) {
	k := t.k
	tol := deleteFloor * vec.MaxAbs(t.values[:k])
	if t.trunc.Rank > 0 {
		tol = math.Max(tol, t.trunc.Floor)
	}
	for from < k && !(mu[from] > tol) {
		from++
	}
	if t.trunc.Rank > 0 {
		from = max(from, k-t.trunc.Rank)
	}
	return from
}

// commitDowndate makes the downdate res t's decomposition, keeping its eigenvalues
// from on, and deletes row j (docs/design.md, "Rank-r tracking", "Removing a point"):
// the vectors W·Λ^½·Y·M^−½ — W (centred: C·W, recentre) with its columns scaled by √λ,
// times Y's kept columns, scaled by 1/√M. It returns what it dropped.
func (t *Thin) commitDowndate(res *secular.Result, j, from int, centre bool) Dropped {
	n, k := t.rows, t.k
	mu := res.Values
	top := k - from
	ld := t.ld
	if centre {
		t.recentre(j)
	}
	y := t.z[:k]
	for c := range k {
		y[c] = math.Sqrt(math.Max(t.values[c], 0))
	}
	for i := range n {
		row := t.row(i)
		for c := range row {
			row[c] *= y[c]
		}
	}
	t.tr.setup(res, k)
	t.tr.applyFrom(from, n, t.v[1:], ld, nil, t.spare[1:], ld)
	for c := range top {
		y[c] = 1 / math.Sqrt(mu[from+c])
	}
	for i := range n {
		row := t.spare[i*ld+1 : i*ld+1+top]
		for c := range row {
			row[c] *= y[c]
		}
	}
	t.deleteRow(t.spare, j, n)
	drop := DroppedOf(mu[:from])
	copy(t.values, mu[from:])
	t.v, t.spare = t.spare, t.v
	t.rows, t.k = n-1, top
	return drop
}

// recentre subtracts from every row of V the mean of the rows other than j: W ← C·W,
// C = I − 11ᵀ/(n−1) the centring of the n−1 rows left after deleting row j
// (docs/design.md, "Rank-r tracking", "Removing a point"), row j changed too, and
// deleted after.
func (t *Thin) recentre(j int) {
	n, k := t.rows, t.k
	sums := t.sums[:k]
	clear(sums)
	for i := range n {
		if i != j {
			axpy(1, t.row(i), sums)
		}
	}
	for c := range sums {
		sums[c] /= float64(n - 1)
	}
	for i := range n {
		axpy(-1, sums, t.row(i))
	}
}

// axpy sets y ← y + a·x.
func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}
