package update

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/secular"
)

// RankOne replaces A = V·diag(λ)·Vᵀ by A + ρ·v·vᵀ, for ρ of either sign, and keeps the
// top eigenpairs the Truncation allows (docs/design.md, "Rank-one updates"). With
// p = Vᵀv and r = v − V·p, β = ‖r‖ and r̂ = r/β, v = V·p + β·r̂, so in the orthonormal
// basis E = [V, r̂] (n×(k+1))
//
//	A + ρ·v·vᵀ = E·(diag(λ, 0) + ρ·z·zᵀ)·Eᵀ,   z = (p, β),
//
// exactly: a rank-one problem of order k+1 for the secular solver (deflation, roots,
// Gu–Eisenstat vectors, as Sym.RankOne), with the pole 0 of r̂ inserted among λ in
// order; the new vectors are E times its kept eigenvectors, one n×(k+1)×k′ product. r is
// computed as Border computes its new direction: two passes of classical Gram–Schmidt,
// and more while a pass cancels (reorthogonalize), so that r̂ is orthogonal to V to the
// level of V's own orthonormality even when v lies almost in span(V).
//
// r̂ is left out when V spans Rⁿ (k = n: then RankOne is Sym.RankOne) and when its weight
// is negligible: |ρ|·‖v‖·β ≤ 64ε·max(max|λ|, |ρ|·‖v‖²), the secular solver's own rule
// for a negligible weight (docs/design.md, "Deflation"), which would otherwise leave r̂
// as a spurious eigenpair of eigenvalue 0. Leaving it out neglects
// ρ·(V·p·β·r̂ᵀ + β·r̂·(V·p)ᵀ + β²·r̂·r̂ᵀ), of norm at most 3·|ρ|·‖v‖·β: a backward error of
// the order of the deflation's. Without a truncation the rank grows by one when r̂ is
// kept; with one, Stats().Dropped describes the eigenvalues left out. ρ = 0 changes
// nothing.
//
// v is copied into t's scratch from a *mat.VecDense, whatever its increment: an update
// allocates nothing. A vector of another type, the caller's own, is first copied once (an
// allocation), and one that lies about its length or panics in AtVec is ErrArgument. A v
// of another length
// is ErrDimension, nil ErrArgument (accepted when n = 0), a NaN or infinite ρ or entry
// ErrNonFinite. On error t is unchanged.
func (t *Thin) RankOne(rho float64, v mat.Vector) error {
	n, k := t.rows, t.k
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
	if rho == 0 || n == 0 {
		t.stats = Stats{Op: "rank-one", Stats: secular.Stats{Size: k}}
		return nil
	}
	if k < n {
		t.grow(n, k+1) // room for r̂
	} else {
		t.grow(n, k)
	}
	t0 := time.Now()
	x := t.border[:n]
	copyVector(x, v)
	p := t.z[:k]
	t.multiplyT(p, x)
	q := t.q[:n]
	var beta float64
	hasQ := false
	if k < n {
		copy(q, x)
		t.subtract(q, p)
		t.reorthogonalize(q, p)
		beta = vec.Norm(q)
		normV := vec.Norm(x)
		weight := math.Abs(rho) * normV
		if weight*beta > 64*vec.Roundoff*math.Max(vec.MaxAbs(t.values[:k]), weight*normV) {
			hasQ = true
			for i := range q {
				q[i] /= beta
			}
		}
	}
	poles, z, pos := t.withZeroPole(p, beta, hasQ)
	cols := len(poles)
	if cols == 0 {
		// No pairs and a negligible v: A stays zero.
		t.stats = Stats{Op: "rank-one", Project: time.Since(t0)}
		return nil
	}
	t1 := time.Now()
	res, err := t.solver.RankOne(poles, z, rho)
	if err != nil {
		return kinds.Wrap(err, "RankOne")
	}
	t2 := time.Now()

	// Commit: E times the kept eigenvectors (the top ones), n rows.
	top := t.kept(res.Values)
	from := cols - top
	in := t.v[1:]
	if hasQ {
		in = t.insertColumn(q, pos)
	}
	t.tr.setup(res, cols)
	t.tr.applyFrom(from, n, in, t.ld, nil, t.spare[1:], t.ld)
	drop := DroppedOf(res.Values[:from])
	copy(t.values, res.Values[from:])
	t.v, t.spare = t.spare, t.v
	t.k = top
	t.stats = Stats{Op: "rank-one", Stats: res.Stats, Dropped: drop, Project: t1.Sub(t0), Solve: t2.Sub(t1), Assemble: time.Since(t2)}
	return nil
}
