package kpca

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The algorithms of Hallgren and Northrop (2018), kept as RankOneModel for comparison.
// Both express the new kernel matrix through rank-one modifications of the old
// decomposition; each rank-one update costs an m×m×m product, so a step costs two
// (uncentred) or four (centred) of them where the bordered path costs one.

// paperUncentred is Algorithm 1: [[K, a], [aᵀ, c]] = diag(K, s) + ρ(k₁k₁ᵀ − k₀k₀ᵀ) with
// k₁ = (a, α), k₀ = (a, β) (see expandBorder). On error the caller's txn (scopeAppend)
// restores the decomposition.
func (r *RankOneModel) paperUncentred(a []float64, c float64) error {
	return r.expandBorder(a, c)
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
func (r *RankOneModel) paperCentred(a []float64, c, sa float64) error {
	md := r.md
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
		if err := r.sym.RankOne(0.5, vector(&md.vecA, p)); err != nil {
			return err
		}
		md.tally(r.sym.Stats())
		if err := r.sym.RankOne(-0.5, vector(&md.vecA, q)); err != nil {
			return err
		}
		md.tally(r.sym.Stats())
	}
	// The new centred column.
	ksum := sa + c
	v := md.work[:m+1]
	for i := range m {
		v[i] = a[i] - (ksum+md.rowSum[i]+a[i]-t2/(fm+1))/(fm+1)
	}
	v[m] = c - (ksum+ksum-t2/(fm+1))/(fm+1)
	return r.expandBorder(v[:m], v[m])
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
func (r *RankOneModel) expandBorder(a []float64, c float64) error {
	md := r.md
	m := len(a)
	s := c / 4
	gamma := c - s
	zero := md.work2[:m]
	clear(zero)
	if err := r.sym.Border(vector(&md.vecA, zero), s); err != nil {
		return err
	}
	md.tally(r.sym.Stats())
	delta := math.Hypot(vec.Norm(a), gamma)
	if delta == 0 {
		return nil
	}
	alpha, beta := (gamma+delta)/2, (gamma-delta)/2
	k := md.work3[:m+1]
	copy(k, a)
	k[m] = alpha
	if err := r.sym.RankOne(1/delta, vector(&md.vecA, k)); err != nil {
		return err
	}
	md.tally(r.sym.Stats())
	k[m] = beta
	if err := r.sym.RankOne(-1/delta, vector(&md.vecA, k)); err != nil {
		return err
	}
	md.tally(r.sym.Stats())
	return nil
}

// setEigen starts the decomposition of a decoded model from its n eigenvalues and n×n
// eigenvectors (row-major).
func (r *RankOneModel) setEigen(values, vecs []float64) error {
	n := len(values)
	if n == 0 {
		return nil // the zero Sym
	}
	if err := r.sym.SetEigen(values, mat.NewDense(n, n, vecs)); err != nil {
		return fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	return nil
}

// step is the update for the kernel column a (of sum sa) and self-kernel c of a new
// point: the first point's 1×1 matrix [c] (centred [0]), Algorithm 1 uncentred,
// Algorithm 2 centred.
func (r *RankOneModel) step(a []float64, c, sa float64) error {
	md := r.md
	switch {
	case md.m == 0:
		first := c
		if !md.opts.Uncentred {
			first = 0
		}
		if err := r.sym.Border(vector(&md.vecA, a), first); err != nil {
			return err
		}
		md.tally(r.sym.Stats())
		return nil
	case md.opts.Uncentred:
		return r.paperUncentred(a, c)
	}
	return r.paperCentred(a, c, sa)
}

// decompose computes the decomposition of the points from scratch, as Model.decompose
// does: the kernel matrix K, its running sums, and a batch decomposition of K
// (uncentred) or of K′ = CKC formed entrywise from the row sums and their total, its
// trivial vector included (centred). It changes the model only if it succeeds.
func (r *RankOneModel) decompose() error {
	md := r.md
	m := md.m
	if m == 0 {
		r.sym.CopyFrom(new(update.Sym))
		md.setSums(matrixSums{}, certificate{})
		return nil
	}
	if _, err := kinds.Floats("the kernel matrix of a batch decomposition", m, m); err != nil {
		return err
	}
	K := kernel.Matrix(md.kern, &md.view)
	sums, err := kernelSums(wholeKernel(K))
	if err != nil {
		return err
	}
	a := K
	if !md.opts.Uncentred {
		a = mat.NewSymDense(m, nil)
		fm := float64(m)
		for i := range m {
			for j := i; j < m; j++ {
				a.SetSym(i, j, K.At(i, j)-sums.rowSum[i]/fm-sums.rowSum[j]/fm+sums.total/(fm*fm))
			}
		}
	}
	var fresh update.Sym
	fresh.SetOptions(md.opts.Update)
	if err := fresh.Factorize(a); err != nil {
		return kinds.Wrap(err, "batch decomposition")
	}
	r.sym.CopyFrom(&fresh)
	md.setSums(sums, certificate{})
	return nil
}

// pairs is the number of pairs a RankOneModel reports: every eigenpair of K
// (uncentred), or of K′ but its trivial one (centred).
func (r *RankOneModel) pairs() int {
	md := r.model()
	if md.opts.Uncentred {
		return md.m
	}
	return max(md.m-1, 0)
}

// basis is the decomposition as the store's read side takes it: every stored pair,
// centred leaving out the trivial eigenvector, the one most aligned with 1 (the largest
// |uⱼᵀ1|).
func (r *RankOneModel) basis() basis {
	md := r.model()
	b := basis{skip: -1, values: r.sym.Values(nil)}
	if d, ok := r.sym.Vectors().(*mat.Dense); ok && !d.IsEmpty() {
		b.vecs = d.RawMatrix()
	}
	if md.opts.Uncentred || md.m == 0 {
		return b
	}
	n := r.sym.Len()
	r.ones = hugepage.Grow(r.ones, n)
	r.proj = hugepage.Grow(r.proj, n)
	ones, proj := r.ones[:n], r.proj[:n]
	for i := range ones {
		ones[i] = 1
	}
	native.Gemv(blas.Trans, 1, b.vecs, blas64.Vector{N: n, Inc: 1, Data: ones}, 0, blas64.Vector{N: n, Inc: 1, Data: proj})
	best := 0
	for j, v := range proj {
		if math.Abs(v) > math.Abs(proj[best]) {
			best = j
		}
	}
	b.skip = best
	return b
}
