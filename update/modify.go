package update

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// RankOne replaces A by A + ρ·v·vᵀ, for ρ of either sign (docs/design.md,
// "Rank-one updates"): with z = Uᵀv, A + ρvvᵀ = U·(D + ρzzᵀ)·Uᵀ, whose small
// eigenproblem is solved by the secular solver; the new vectors are U·Ũ.
//
// v (length n) is read in place from a *mat.VecDense of increment 1, and copied into
// s's scratch otherwise: an update allocates nothing. A vector of another type, the
// caller's own, is first copied once (an allocation), and one that lies about its length
// or panics in AtVec is ErrArgument. A v of another length is ErrDimension, nil
// ErrArgument (nil is accepted when n = 0), a NaN or infinite ρ or entry ErrNonFinite.
// On error s is unchanged.
func (s *Sym) RankOne(rho float64, v mat.Vector) error {
	n := s.n
	v, err := readVector("v", v)
	if err != nil {
		return err
	}
	if err := checkVector("v", v, n); err != nil {
		return err
	}
	if math.IsNaN(rho) || math.IsInf(rho, 0) {
		return fmt.Errorf("%w: rho = %g", ErrNonFinite, rho)
	}
	if n == 0 {
		s.stats = Stats{Op: "rank-one"}
		return nil
	}
	s.grow(n) // the second buffer, if s was only ever copied into
	t0 := time.Now()
	z := s.z[:n]
	s.multiplyT(z, vectorData(v, n, s.row))
	t1 := time.Now()
	res, err := s.solver.RankOne(s.values[:n], z, rho)
	if err != nil {
		return kinds.Wrap(err, "RankOne")
	}
	t2 := time.Now()
	s.commit(res, false)
	s.stats = Stats{Op: "rank-one", Stats: res.Stats, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// Border replaces A by the (n+1)×(n+1) matrix [[A, a], [aᵀ, c]] (docs/design.md,
// "Bordering"): in the basis diag(U, 1) it is the arrowhead [[D, w], [wᵀ, c]] with
// w = Uᵀa, solved by the secular solver; the new vectors are diag(U, 1)·Ũ, one dgemm.
// a (length n) is read as RankOne reads its v, and rejected alike; the first Border of
// an empty decomposition takes a nil (or empty) a. On error s is unchanged.
func (s *Sym) Border(a mat.Vector, c float64) error {
	return s.BorderWith(a, c, nil, nil)
}

// BorderWith is Border that also carries the product P = B·U along (see Product): B
// gains the column b (a vector of P's r rows, read like a) and P becomes [B, b]·U for the
// new U, at the cost of one more dgemm of P's rows times the non-deflated block. With p
// nil it is Border (and b is ignored). On error s and p are unchanged.
func (s *Sym) BorderWith(a mat.Vector, c float64, p *Product, b mat.Vector) error {
	n := s.n
	a, err := readVector("a", a)
	if err != nil {
		return err
	}
	if err := checkVector("a", a, n); err != nil {
		return err
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("%w: c = %g", ErrNonFinite, c)
	}
	if p != nil {
		if p.n != n {
			return fmt.Errorf("%w: the product has %d columns, the decomposition order %d", ErrDimension, p.n, n)
		}
		if b, err = readVector("b", b); err != nil {
			return err
		}
		if err := checkVector("b", b, p.r); err != nil {
			return err
		}
	}
	s.grow(n + 1)
	t0 := time.Now()
	w := s.z[:n]
	s.multiplyT(w, vectorData(a, n, s.row))
	t1 := time.Now()
	res, err := s.solver.Arrow(s.values[:n], w, c)
	if err != nil {
		return kinds.Wrap(err, "Border")
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
