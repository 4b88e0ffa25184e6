package update

import (
	"fmt"
	"math"
	"time"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/secular"
)

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
