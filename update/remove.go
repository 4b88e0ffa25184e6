package update

import (
	"fmt"
	"math"
	"time"

	"github.com/ikpca/ikpca/secular"
)

// Remove deletes row and column i of A (docs/design.md, "Removing a point"). With
// z = Uᵀeᵢ, the row i of U, the eigenvalues of the remaining matrix are those of
// diag(λ) restricted to the hyperplane z⊥, the roots of Σⱼ zⱼ²/(λⱼ − μ) = 0, solved by
// the secular solver (secular.Solver.Restrict); the new vectors are U·Ũ without its
// row i, one n×(n−1)×n dgemm on the part that did not deflate. The new eigenvalues
// interlace the old ones (Cauchy).
//
// Row i of U·Ũ vanishes in exact arithmetic: every column of Ũ is orthogonal to z. It
// is deleted; Stats().Removed reports its largest entry, of the order of n·ε (and at
// most 64ε for a deflated column), which is the loss of orthonormality the deletion
// causes (UᵀU = I − rrᵀ for the deleted row r). On error s is unchanged; an index out
// of range, or any index of an empty decomposition, is ErrIndex.
func (s *Sym) Remove(i int) error {
	return s.RemoveWith(i, nil)
}

// RemoveWith is Remove that also carries the product P = B·U along (see Product): B
// loses its column i, the one that matched the removed row of A, and P becomes
// B'·U' for the new U'. B is not needed: B'·U' = B·(U·Ũ) − bᵢ·r with bᵢ the removed
// column and r the deleted row of U·Ũ, which is zero up to rounding, so P ← P·Ũ, one
// more dgemm of P's rows times the non-deflated block, is B'·U' to working precision.
// With p nil it is Remove. On error s and p are unchanged.
func (s *Sym) RemoveWith(i int, p *Product) error {
	n := s.n
	if i < 0 || i >= n {
		return fmt.Errorf("%w: row %d of a decomposition of order %d", ErrIndex, i, n)
	}
	if p != nil && p.n != n {
		return fmt.Errorf("%w: the product has %d columns, the decomposition order %d", ErrDimension, p.n, n)
	}
	s.grow(n) // the second buffer, if s was only ever copied into
	t0 := time.Now()
	z := s.z[:n]
	copy(z, s.u[i*n:i*n+n])
	t1 := time.Now()
	res, err := s.solver.Restrict(s.values[:n], z)
	if err != nil {
		return kinds.Wrap(err, "Remove")
	}
	t2 := time.Now()
	removed := s.commitRemove(res, i)
	if p != nil {
		p.followRemove(&s.tr)
	}
	s.stats = Stats{Op: "remove", Stats: res.Stats, Removed: removed, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// commitRemove forms U·Ũ from the solver's result (n rows of n−1 columns), deletes its
// row i, makes the result current and returns the largest entry of the deleted row. It
// cannot fail: everything that can is done before it.
func (s *Sym) commitRemove(res *secular.Result, i int) (removed float64) {
	n := s.n
	nn := n - 1
	out := s.spare[:n*nn]
	s.tr.setup(res, n)
	s.tr.apply(n, s.u[:n*n], n, nil, out, nn)
	for _, v := range out[i*nn : i*nn+nn] {
		removed = math.Max(removed, math.Abs(v))
	}
	copy(out[i*nn:], out[(i+1)*nn:n*nn])
	copy(s.values[:nn], res.Values)
	s.u, s.spare = s.spare, s.u
	s.n = nn
	return removed
}
