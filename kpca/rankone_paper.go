package kpca

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/vec"
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
		if err := md.paper.sym.RankOne(0.5, vector(&md.vecA, p)); err != nil {
			return err
		}
		md.tally(md.paper.sym.Stats())
		if err := md.paper.sym.RankOne(-0.5, vector(&md.vecA, q)); err != nil {
			return err
		}
		md.tally(md.paper.sym.Stats())
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
	if err := md.paper.sym.Border(vector(&md.vecA, zero), s); err != nil {
		return err
	}
	md.tally(md.paper.sym.Stats())
	delta := math.Hypot(vec.Norm(a), gamma)
	if delta == 0 {
		return nil
	}
	alpha, beta := (gamma+delta)/2, (gamma-delta)/2
	k := md.work3[:m+1]
	copy(k, a)
	k[m] = alpha
	if err := md.paper.sym.RankOne(1/delta, vector(&md.vecA, k)); err != nil {
		return err
	}
	md.tally(md.paper.sym.Stats())
	k[m] = beta
	if err := md.paper.sym.RankOne(-1/delta, vector(&md.vecA, k)); err != nil {
		return err
	}
	md.tally(md.paper.sym.Stats())
	return nil
}

// paperDecomposition is the state of Hallgren and Northrop's method that a Model does
// not have: the full decomposition of K (uncentred) or of K′ = CKC with its trivial
// eigenvector along 1 (centred), which no restriction update keeps — so a RankOneModel
// has no removal, window or rank. The Model that a RankOneModel wraps holds it in its
// one field paper and otherwise shares the store, the running sums, the transactions
// and the read side (docs/design.md, "Two types, one store"); the hooks below are what
// that Model calls where the two methods differ.
type paperDecomposition struct {
	sym update.Sym
}

// setPaper gives a model of methodRankOne its decomposition with the solver options,
// and drops it from one of methodBordered (CopyFrom between the two, decoding).
func (md *Model) setPaper() {
	if md.opts.method != methodRankOne {
		md.paper = nil
		return
	}
	if md.paper == nil {
		md.paper = new(paperDecomposition)
	}
	md.paper.sym.SetOptions(md.opts.Update)
}

// bytes is the memory of the decomposition's arrays; zero for nil (a Model).
func (p *paperDecomposition) bytes() int {
	if p == nil {
		return 0
	}
	return p.sym.Bytes()
}

// reset empties the decomposition (a model without points).
func (p *paperDecomposition) reset() {
	if p != nil {
		p.sym.CopyFrom(new(update.Sym))
	}
}

// save records the decomposition into a txn's buffers; restore puts it back.
func (p *paperDecomposition) save(b *txnBuffers) {
	if b.paper == nil {
		b.paper = new(update.Sym)
	}
	b.paper.CopyFrom(&p.sym)
}

func (p *paperDecomposition) restore(b *txnBuffers) { p.sym.CopyFrom(b.paper) }

// setEigen starts the decomposition of a decoded model from its n eigenvalues and n×n
// eigenvectors (row-major).
func (p *paperDecomposition) setEigen(values, vecs []float64) error {
	n := len(values)
	if n == 0 {
		return nil // the zero Sym
	}
	if err := p.sym.SetEigen(values, mat.NewDense(n, n, vecs)); err != nil {
		return fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	return nil
}

// paperStep is addColumn's update for the kernel column a (of sum sa) and self-kernel c
// of a new point: the first point's 1×1 matrix [c] (centred [0]), Algorithm 1
// uncentred, Algorithm 2 centred.
func (md *Model) paperStep(a []float64, c, sa float64) error {
	switch {
	case md.m == 0:
		first := c
		if !md.opts.Uncentred {
			first = 0
		}
		if err := md.paper.sym.Border(vector(&md.vecA, a), first); err != nil {
			return err
		}
		md.tally(md.paper.sym.Stats())
		return nil
	case md.opts.Uncentred:
		return md.paperUncentred(a, c)
	}
	return md.paperCentred(a, c, sa)
}

// paperDecompose is decomposeMatrix's batch decomposition for a RankOneModel: K
// (uncentred), or K′ = CKC entrywise from the row sums and their total, its trivial
// vector included (centred). It changes the decomposition only if it succeeds.
func (md *Model) paperDecompose(K *mat.SymDense, rowSum []float64, total float64) error {
	m := md.m
	a := K
	if !md.opts.Uncentred {
		a = mat.NewSymDense(m, nil)
		fm := float64(m)
		for i := range m {
			for j := i; j < m; j++ {
				a.SetSym(i, j, K.At(i, j)-rowSum[i]/fm-rowSum[j]/fm+total/(fm*fm))
			}
		}
	}
	var fresh update.Sym
	fresh.SetOptions(md.opts.Update)
	if err := fresh.Factorize(a); err != nil {
		return kinds.Wrap(err, "batch decomposition")
	}
	md.paper.sym.CopyFrom(&fresh)
	return nil
}

// paperPairs is the number of pairs a RankOneModel reports: every eigenpair of K
// (uncentred), or of K′ but its trivial one (centred).
func (md *Model) paperPairs() int {
	if md.opts.Uncentred {
		return md.m
	}
	return max(md.m-1, 0)
}

// paperBasis is basis for a RankOneModel: every stored pair, centred leaving out the
// trivial eigenvector, the one most aligned with 1 (the largest |uⱼᵀ1|).
func (md *Model) paperBasis() basis {
	b := basis{skip: -1, values: md.paper.sym.Values(nil)}
	if d, ok := md.paper.sym.Vectors().(*mat.Dense); ok && !d.IsEmpty() {
		b.vecs = d.RawMatrix()
	}
	if md.opts.Uncentred || md.m == 0 {
		return b
	}
	n := md.paper.sym.Len()
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	proj := make([]float64, n)
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
