package kpca

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// The algorithms of Hallgren and Northrop (2018), kept as RankOneModel for comparison.
// Both express the new kernel matrix through rank-one modifications of the old
// decomposition; each rank-one update costs an m×m×m product, so a step costs two
// (uncentred) or four (centred) of them where the bordered path costs one.

// paperUncentred is Algorithm 1: [[K, a], [aᵀ, c]] = diag(K, s) + ρ(k₁k₁ᵀ − k₀k₀ᵀ) with
// k₁ = (a, α), k₀ = (a, β) (see expandBorder). On error the caller's txn (scopeAppend)
// restores the decomposition.
func (md *Model) paperUncentred(a []float64, c float64) error {
	return md.expandBorder(a, c)
}

// paperCentred is Algorithm 2 on K' = CKC (m×m, including its trivial eigenvector):
// with T = 1ᵀK1, T' = T + 2Σa + c and
//
//	u = K1/(m(m+1)) − a/(m+1) + ½(T'/(m+1)² − T/m²)·1,
//
// the top-left m×m block of the new centred matrix is K' + 1uᵀ + u1ᵀ, two rank-one
// updates; then the decomposition is expanded and bordered with the new centred column
// v = k − (Σk·1 + K̂1 − T'/(m+1)·1)/(m+1), k = (a, c), two more. On error the caller's
// txn (scopeAppend) restores the decomposition.
func (md *Model) paperCentred(a []float64, c, sa float64) error {
	m := len(a)
	fm := float64(m)
	t2 := md.total + 2*sa + c
	cc := -md.total/(fm*fm) + t2/((fm+1)*(fm+1))
	u := md.work[:m]
	for i := range m {
		u[i] = md.rowSum[i]/(fm*(fm+1)) - a[i]/(fm+1) + cc/2
	}
	// 1uᵀ + u1ᵀ = ½[(t·1 + u/t)(t·1 + u/t)ᵀ − (t·1 − u/t)(t·1 − u/t)ᵀ]; the paper takes
	// t = 1, we take t² = ‖u‖/‖1‖ so that the two terms have the size of the change
	// rather than of ‖1‖² = m.
	if un := vec.Norm(u); un > 0 {
		t := math.Sqrt(un / math.Sqrt(fm))
		p, q := md.work2[:m], md.work3[:m]
		for i := range m {
			p[i] = t + u[i]/t
			q[i] = t - u[i]/t
		}
		if err := md.sym.RankOne(0.5, vector(&md.vecA, p)); err != nil {
			return err
		}
		md.tally(md.sym.Stats())
		if err := md.sym.RankOne(-0.5, vector(&md.vecA, q)); err != nil {
			return err
		}
		md.tally(md.sym.Stats())
	}
	// The new centred column.
	ksum := sa + c
	v := md.work[:m+1]
	for i := range m {
		v[i] = a[i] - (ksum+md.rowSum[i]+a[i]-t2/(fm+1))/(fm+1)
	}
	v[m] = c - (ksum+ksum-t2/(fm+1))/(fm+1)
	if err := md.expandBorder(v[:m], v[m]); err != nil {
		return err
	}
	return nil
}

// expandBorder borders the decomposition of A with (a, c) as Hallgren and Northrop do:
// expand to diag(A, s) with s = c/4, then
//
//	[[A, a], [aᵀ, c]] = diag(A, s) + ρ(k₁k₁ᵀ − k₀k₀ᵀ),  k₁ = (a, α), k₀ = (a, β),
//
// which holds whenever ρ(α − β) = 1 and α + β = c − s. The paper takes ρ = 4/c
// (α = c/2, β = c/4), unbounded as c → 0; we take α − β = δ = ‖(a, c − s)‖, so that
// both terms are of the size of the border. On error the caller restores the
// decomposition.
func (md *Model) expandBorder(a []float64, c float64) error {
	m := len(a)
	s := c / 4
	gamma := c - s
	zero := md.work2[:m]
	clear(zero)
	if err := md.sym.Border(vector(&md.vecA, zero), s); err != nil {
		return err
	}
	md.tally(md.sym.Stats())
	delta := math.Hypot(vec.Norm(a), gamma)
	if delta == 0 {
		return nil
	}
	alpha, beta := (gamma+delta)/2, (gamma-delta)/2
	k := md.work3[:m+1]
	copy(k, a)
	k[m] = alpha
	if err := md.sym.RankOne(1/delta, vector(&md.vecA, k)); err != nil {
		return err
	}
	md.tally(md.sym.Stats())
	k[m] = beta
	if err := md.sym.RankOne(-1/delta, vector(&md.vecA, k)); err != nil {
		return err
	}
	md.tally(md.sym.Stats())
	return nil
}
