package update

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// RankOne replaces A by A + ρ·v·vᵀ, for ρ of either sign (docs/design.md,
// "Rank-one updates"): with z = Uᵀv, A + ρvvᵀ = U·(D + ρzzᵀ)·Uᵀ, whose small
// eigenproblem is solved by the secular solver; the new vectors are U·Ũ. On error s is
// unchanged.
func (s *Sym) RankOne(rho float64, v []float64) error {
	n := s.n
	if len(v) != n {
		return fmt.Errorf("%w: len(v) = %d, want %d", ErrLength, len(v), n)
	}
	if math.IsNaN(rho) || math.IsInf(rho, 0) {
		return fmt.Errorf("%w: rho = %g", ErrNonFinite, rho)
	}
	if err := finite("v", v); err != nil {
		return err
	}
	if n == 0 {
		s.stats = Stats{Op: "rank-one"}
		return nil
	}
	s.grow(n) // the second buffer, if s was only ever copied into
	t0 := time.Now()
	z := s.z[:n]
	s.multiplyT(z, v)
	t1 := time.Now()
	res, err := s.solver.RankOne(s.values[:n], z, rho)
	if err != nil {
		return fmt.Errorf("update: RankOne: %w", err)
	}
	t2 := time.Now()
	s.commit(res, false)
	s.stats = Stats{Op: "rank-one", Stats: res.Stats, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// Border replaces A by the (n+1)×(n+1) matrix [[A, a], [aᵀ, c]] (docs/design.md,
// "Bordering"): in the basis diag(U, 1) it is the arrowhead [[D, w], [wᵀ, c]] with
// w = Uᵀa, solved by the secular solver; the new vectors are diag(U, 1)·Ũ, one dgemm.
// On error s is unchanged.
func (s *Sym) Border(a []float64, c float64) error {
	return s.BorderWith(a, c, nil, nil)
}

// BorderWith is Border that also carries the product P = B·U along (see Product): B
// gains the column b (len P's rows) and P becomes [B, b]·U for the new U, at the cost of
// one more dgemm of P's rows times the non-deflated block. With p nil it is Border. On
// error s and p are unchanged.
func (s *Sym) BorderWith(a []float64, c float64, p *Product, b []float64) error {
	n := s.n
	if len(a) != n {
		return fmt.Errorf("%w: len(a) = %d, want %d", ErrLength, len(a), n)
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("%w: c = %g", ErrNonFinite, c)
	}
	if err := finite("a", a); err != nil {
		return err
	}
	if p != nil {
		if p.n != n {
			return fmt.Errorf("%w: the product has %d columns, the decomposition order %d", ErrLength, p.n, n)
		}
		if len(b) != p.r {
			return fmt.Errorf("%w: len(b) = %d, want %d", ErrLength, len(b), p.r)
		}
		if err := finite("b", b); err != nil {
			return err
		}
	}
	s.grow(n + 1)
	t0 := time.Now()
	w := s.z[:n]
	s.multiplyT(w, a)
	t1 := time.Now()
	res, err := s.solver.Arrow(s.values[:n], w, c)
	if err != nil {
		return fmt.Errorf("update: Border: %w", err)
	}
	t2 := time.Now()
	s.commit(res, true)
	if p != nil {
		p.follow(&s.tr, b)
	}
	s.stats = Stats{Op: "border", Stats: res.Stats, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// multiplyT sets dst = Uᵀx.
func (s *Sym) multiplyT(dst, x []float64) {
	n := s.n
	if n == 0 {
		return
	}
	native.Gemv(blas.Trans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: s.u[:n*n]},
		blas64.Vector{N: n, Data: x, Inc: 1}, 0, blas64.Vector{N: n, Data: dst, Inc: 1})
}

// commit forms the new eigenvectors from the solver's result and makes them current.
// It cannot fail: everything that can is done before it. The rows of the old U are
// transformed into the first n rows of the new one; for Border, the new last row is the
// tip component of each new vector (the old U has no component there).
func (s *Sym) commit(res *secular.Result, arrow bool) {
	n := s.n // old order
	nn := n  // new order
	if arrow {
		nn = n + 1
	}
	out := s.spare[:nn*nn]
	s.tr.setup(res, n)
	s.tr.apply(n, s.u[:n*n], n, nil, out, nn)
	if arrow {
		s.tr.tipRow(out[n*nn : n*nn+nn])
	}
	copy(s.values[:nn], res.Values)
	s.u, s.spare = s.spare, s.u
	s.n = nn
}
