package update

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/secular"
)

// RankOne replaces A by A + ρ·v·vᵀ, for ρ of either sign (DESIGN.md §4.1): with
// z = Uᵀv, A + ρvvᵀ = U·(D + ρzzᵀ)·Uᵀ, whose small eigenproblem is solved by the
// secular solver; the new vectors are U·Ũ. On error s is unchanged.
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

// Border replaces A by the (n+1)×(n+1) matrix [[A, a], [aᵀ, c]] (DESIGN.md §4.2): in
// the basis diag(U, 1) it is the arrowhead [[D, w], [wᵀ, c]] with w = Uᵀa, solved by the
// secular solver; the new vectors are diag(U, 1)·Ũ, one dgemm. On error s is unchanged.
func (s *Sym) Border(a []float64, c float64) error {
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
	s.stats = Stats{Op: "border", Stats: res.Stats, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}

// multiplyT sets dst = Uᵀx.
func (s *Sym) multiplyT(dst, x []float64) {
	n := s.n
	if n == 0 {
		return
	}
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: s.u[:n*n]},
		blas64.Vector{N: n, Data: x, Inc: 1}, 0, blas64.Vector{N: n, Data: dst, Inc: 1})
}

// commit forms the new eigenvectors from the solver's result and makes them current.
// It cannot fail: everything that can is done before it.
//
// The new vectors are, column by column in the order of res.Values, either a secular
// eigenvector — the kept columns of U times a row of res.Vectors (plus, for Border, the
// new last coordinate) — or a deflated column of U after the deflation rotations. The
// kept-column products are one dgemm. Without deflation the dgemm writes the new U
// directly. With deflation, a first pass over the rows of U applies the rotations and
// moves the kept columns to the front, the dgemm writes the secular vectors to the front
// of each new row, and a second pass spreads them to their sorted positions, filling the
// deflated columns in between.
func (s *Sym) commit(res *secular.Result, arrow bool) {
	n := s.n // old order
	nn := n  // new order
	if arrow {
		nn = n + 1
	}
	k := len(res.Keep)
	K, stride := res.K, res.Stride
	out := s.spare[:nn*nn]
	u := s.u[:n*n]
	t := res.Vectors

	if len(res.Rotations) == 0 && k == n {
		// No deflation: new U = [U; tip]·Ũ with Ũ's rows the secular vectors.
		if n > 0 {
			blas64.Gemm(blas.NoTrans, blas.Trans, 1,
				blas64.General{Rows: n, Cols: n, Stride: n, Data: u},
				blas64.General{Rows: K, Cols: k, Stride: stride, Data: t},
				0, blas64.General{Rows: n, Cols: K, Stride: nn, Data: out})
		}
		if arrow {
			last := out[n*nn : n*nn+nn]
			for r := range K {
				last[r] = t[r*stride+k]
			}
		}
	} else {
		s.permute(res, n)
		if k > 0 {
			blas64.Gemm(blas.NoTrans, blas.Trans, 1,
				blas64.General{Rows: n, Cols: k, Stride: n, Data: u},
				blas64.General{Rows: K, Cols: k, Stride: stride, Data: t},
				0, blas64.General{Rows: n, Cols: K, Stride: nn, Data: out})
		} else if arrow {
			// Only the tip is a secular vector: it has no component in the old basis.
			for i := range n {
				out[i*nn] = 0
			}
		}
		if arrow {
			last := out[n*nn : n*nn+nn]
			for r := range K {
				last[r] = t[r*stride+k]
			}
		}
		s.spread(res, n, nn, out)
	}
	copy(s.values[:nn], res.Values)
	s.u, s.spare = s.spare, s.u
	s.n = nn
}

// permute applies the deflation rotations to every row of U and reorders its columns:
// the kept columns first, in the order of res.Keep, then the deflated ones. Working row
// by row keeps all of it in cache; the rotations are column operations, identical on
// every row.
func (s *Sym) permute(res *secular.Result, n int) {
	order := s.order[:n]
	copy(order, res.Keep)
	p := len(res.Keep)
	for _, src := range res.Source {
		if src < 0 {
			c := -1 - src
			s.place[c] = p
			order[p] = c
			p++
		}
	}
	row := s.row[:n]
	for i := range n {
		x := s.u[i*n : i*n+n]
		for _, g := range res.Rotations {
			g.Apply(x)
		}
		for q, c := range order {
			row[q] = x[c]
		}
		copy(x, row)
	}
}

// spread moves, in every row of the new U, the secular vectors from the front to their
// sorted positions and fills the deflated columns from the permuted old U. It works
// from the last position down: secular vector r never moves left (its position is at
// least r), so nothing is overwritten before it is read.
func (s *Sym) spread(res *secular.Result, n, nn int, out []float64) {
	for i := range nn {
		row := out[i*nn : i*nn+nn]
		for q := nn - 1; q >= 0; q-- {
			src := res.Source[q]
			switch {
			case src >= 0:
				row[q] = row[src]
			case i < n:
				row[q] = s.u[i*n+s.place[-1-src]]
			default:
				row[q] = 0 // the new last row has no component in a deflated column
			}
		}
	}
}
