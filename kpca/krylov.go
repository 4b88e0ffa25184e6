package kpca

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// polished is the result of a Rayleigh–Ritz step: the Ritz pairs kept, and what
// replacing the tracked matrix by theirs changes (for the certificate).
type polished struct {
	values  []float64
	vectors *mat.Dense // m×k, orthonormal
	// change summarises the eigenvalues of V·Λ·Vᵀ − U·Θ·Uᵀ, the tracked matrix minus the
	// polished one, which the error E = K′ − K̃ gains (certificate).
	change update.Dropped
	slack  float64 // the rounding of change
	// restart is the certificate of the polished matrix from the polish alone (nil for
	// a kernel not known to be positive semi-definite): see restartCertificate.
	restart *certificate
}

// krylovRitz runs the passes of a Polish on fresh arrays, leaving the model as it is
// (docs/design.md, "Polishing"): the block Krylov basis of the tracked vectors
// (krylovBasis), the Rayleigh–Ritz step on it (ritzPairs) keeping the top Rank() pairs,
// the change of the tracked matrix for the accumulated certificate (trackedChange) and,
// for a positive semi-definite kernel, the restarted one (restartCertificate).
func (md *Model) krylovRitz(ctx context.Context, passes int) (polished, error) {
	m := md.m
	_, k := md.thin.Dims()
	V := newDense(m, k)
	md.thin.VectorsTo(V)
	lambda := md.thin.Values(nil)

	ps := md.passer()
	defer ps.release()
	// The values KeepKernel kept, if they are of every point: the first pass reads them
	// as the later ones read what it keeps, and the model keeps them again after, for a
	// Certify of the same points.
	md.adoptKept(ps)
	p, err := md.ritz(ctx, ps, V, lambda, passes)
	if err == nil {
		md.kept = ps.giveBack()
	}
	return p, err
}

// ritz is krylovRitz from the vectors V (m×k) with the passes of ps: the Ritz pairs on
// span{V, K′V, …, K′^(passes−1)·V}, the top k of them kept. lambda is the tracked values
// that go with V, for the change of the tracked matrix, or nil for a start that is a
// subspace alone (FitFrom), which has no tracked matrix and no change.
func (md *Model) ritz(ctx context.Context, ps *passer, V *mat.Dense, lambda []float64, passes int) (polished, error) {
	m, k := V.Dims()
	kb, err := krylovBasis(ctx, ps, V, passes, !md.opts.Uncentred)
	if err != nil {
		return polished{}, err
	}
	used, block := kb.used, kb.block
	Qu := kb.Q.Slice(0, m, 0, used).(*mat.Dense)
	theta, S, err := kb.ritzPairs()
	if err != nil {
		return polished{}, err
	}
	keep := min(k, used)
	St := S.Slice(0, used, used-keep, used).(*mat.Dense) // ascending: the top keep
	values := append([]float64(nil), theta[used-keep:]...)
	U := newDense(m, keep)
	native.Mul(U, Qu, St)

	var change update.Dropped
	if lambda != nil {
		if change, err = trackedChange(Qu, V, lambda, St, values); err != nil {
			return polished{}, err
		}
	}
	slack := ritzSlack(lambda, values, used)
	p := polished{values: values, vectors: U, change: change, slack: slack}
	if psd(md.kern) {
		last := kb.W.Slice(0, m, 0, block).(*mat.Dense) // K′ times the last block of Q
		tq := kb.t.Slice(0, used, used-block, used)     // and Qᵀ times that
		p.restart = md.restartCertificate(Qu, last, tq, St.Slice(used-block, used, 0, keep), theta[:used-keep], values, slack+kb.dropped)
	}
	return p, nil
}

// krylov is the block Krylov basis of a Polish and what its passes computed of it
// (krylovBasis).
type krylov struct {
	Q       *mat.Dense // [Q₀ Q₁ …], m×(passes·k), of which the first used columns are in use
	W       *mat.Dense // K′ times the last block of Q, in its first block columns
	t       *mat.Dense // QᵀK′Q, its upper blocks filled (the lower ones are their transposes)
	blockOf []int      // the pass each column of Q came from
	used    int        // the columns of Q in use
	block   int        // the last block's width
	dropped float64    // Σ of the tolerances below which directions of K′Qᵢ were dropped
}

// krylovBasis builds the block Krylov basis span{V, K′V, …, K′^(passes−1)·V} with the
// passes of ps (docs/design.md, "Polishing"): Q₀ = V orthonormalised and Qᵢ₊₁ an
// orthonormal basis of K′Qᵢ with its parts in span(Q₀ … Qᵢ) and, centred, along 1
// removed (orthonormalise). The basis Q = [Q₀ Q₁ …] grows one block a pass in an array
// of its final size; of K′Q only the current block Wᵢ = K′Qᵢ is kept: the Rayleigh–Ritz
// matrix T = QᵀK′Q is filled a block column at a time, T[0…i, i] = [Q₀ … Qᵢ]ᵀWᵢ, and
// its lower blocks are the upper ones' transposes (K′ is symmetric). Memory: Q and one
// block. V is not changed.
func krylovBasis(ctx context.Context, ps *passer, V *mat.Dense, passes int, centred bool) (krylov, error) {
	m, k := V.Dims()
	Q := newDense(m, passes*k)
	W := newDense(m, k)
	t := mat.NewDense(passes*k, passes*k, nil)
	blockOf := make([]int, 0, passes*k) // the pass each column of Q came from
	q0 := orthonormalise(cloneDense(V), nil, centred, 0)
	if q0 == nil {
		return krylov{}, fmt.Errorf("%w: Polish: the tracked vectors are not finite", ErrNonFinite)
	}
	_, c := q0.Dims()
	Q.Slice(0, m, 0, c).(*mat.Dense).Copy(q0)
	used, block := 0, c // columns of Q in use before the block, and the block's width
	var dropped float64 // Σ of the tolerances below which directions of K′Qᵢ were dropped
	for i := range passes {
		qi := Q.Slice(0, m, used, used+block).(*mat.Dense)
		wi := W.Slice(0, m, 0, block).(*mat.Dense)
		if err := ps.pass(ctx, wi, qi); err != nil {
			return krylov{}, err
		}
		native.Mul(t.Slice(0, used+block, used, used+block).(*mat.Dense), Q.Slice(0, m, 0, used+block).T(), wi)
		for range block {
			blockOf = append(blockOf, i)
		}
		used += block
		if i == passes-1 {
			break
		}
		// The next block: what K′ adds to the span, orthogonal to all of it. Directions
		// below rounding of ‖K′Qᵢ‖ mean the space is invariant (to rounding): stop.
		tol := 64 * vec.Roundoff * float64(m) * maxColumnNorm(wi)
		dropped += tol
		next := orthonormalise(cloneDense(wi), Q.Slice(0, m, 0, used).(*mat.Dense), centred, tol)
		if next == nil {
			break
		}
		_, block = next.Dims()
		Q.Slice(0, m, used, used+block).(*mat.Dense).Copy(next)
	}
	return krylov{Q: Q, W: W, t: t, blockOf: blockOf, used: used, block: block, dropped: dropped}, nil
}

// ritzPairs is the Rayleigh–Ritz step on the Krylov basis (docs/design.md,
// "Polishing"): T = QᵀK′Q = S·Θ·Sᵀ, the values Θ ascending and S's columns with them.
// Within a block both triangles of T were computed, and are averaged (the computed
// product differs from symmetric by rounding); across blocks the upper one is the only
// one.
func (kb *krylov) ritzPairs() (theta []float64, S *mat.Dense, err error) {
	used, t := kb.used, kb.t
	T := mat.NewSymDense(used, nil)
	for i := range used {
		for j := i; j < used; j++ {
			v := t.At(i, j)
			if kb.blockOf[i] == kb.blockOf[j] {
				v = (v + t.At(j, i)) / 2
			}
			T.SetSym(i, j, v)
		}
	}
	S = new(mat.Dense)
	theta, err = native.EigenSym(nil, S, T)
	if err != nil {
		return nil, nil, fmt.Errorf("kpca: Polish: %w", err)
	}
	return theta, S, nil
}

// trackedChange summarises the eigenvalues of D = V·Λ·Vᵀ − U·Θ·Uᵀ, the tracked matrix
// minus the polished one, which the error E = K′ − K̃ gains (docs/design.md,
// "Polishing": the accumulated certificate). V and U = Q·St lie in the span of the
// basis Qu, so D is computed in its coordinates: (QᵀV)·Λ·(QᵀV)ᵀ − St·Θ·Stᵀ, used×used,
// Λ = lambda and Θ = values.
func trackedChange(Qu, V *mat.Dense, lambda []float64, St *mat.Dense, values []float64) (update.Dropped, error) {
	_, used := Qu.Dims()
	k, keep := len(lambda), len(values)
	var vq mat.Dense
	native.Mul(&vq, Qu.T(), V)
	D := mat.NewSymDense(used, nil)
	for i := range used {
		for j := i; j < used; j++ {
			var s float64
			for l := range k {
				s += vq.At(i, l) * lambda[l] * vq.At(j, l)
			}
			for l := range keep {
				s -= St.At(i, l) * values[l] * St.At(j, l)
			}
			D.SetSym(i, j, s)
		}
	}
	dv, err := native.EigenSym(nil, nil, D)
	if err != nil {
		return update.Dropped{}, fmt.Errorf("kpca: Polish: %w", err)
	}
	return update.DroppedOf(dv), nil
}

// ritzSlack is the rounding of the change of a polish (polished.slack): 64ε times the
// order used + 2 of the Rayleigh–Ritz problem and the scale of the tracked and the
// polished values, the rounding the certificate allows a step (docs/design.md,
// "Rank-r tracking").
func ritzSlack(lambda, values []float64, used int) float64 {
	scale := 0.0
	for _, v := range lambda {
		scale = math.Max(scale, math.Abs(v))
	}
	for _, v := range values {
		scale = math.Max(scale, math.Abs(v))
	}
	return 64 * vec.Roundoff * float64(used+2) * scale
}

// orthonormalise returns an orthonormal basis (m×c′, c′ ≤ c) of the span of the columns
// of Z with their parts along the columns of prev (orthonormal, or nil) and, if
// centred, along 1 removed; nil if nothing is left. Directions whose singular value
// falls to tol or below after the first removal are dropped: they are what rounding
// leaves of vectors already in span(prev), which a block Krylov space reaches when it
// becomes invariant. Classical Gram–Schmidt twice ("twice is enough", Giraud et al.
// 2005), each round followed by an SVD of what remains (native.SVDLeft), whose left
// singular vectors are orthonormal to working precision whatever the conditioning of Z;
// the second round repairs the orthogonality to prev that the first loses in
// directions of small singular value. Z is overwritten.
func orthonormalise(Z, prev *mat.Dense, centred bool, tol float64) *mat.Dense {
	m, c := Z.Dims()
	nu := min(m, c)
	s := make([]float64, nu)
	// The SVD writes its left vectors to the other buffer: Z and u take turns, and the
	// result is the buffer the second round wrote.
	u := newDense(m, nu)
	for round := range 2 {
		if centred {
			centreColumns(Z)
		}
		if prev != nil {
			// Z ← Z − prev·(prevᵀZ), the product subtracted by one dgemm in place.
			var pz mat.Dense
			native.Mul(&pz, prev.T(), Z)
			native.Gemm(blas.NoTrans, blas.NoTrans, -1, prev.RawMatrix(), pz.RawMatrix(), 1, Z.RawMatrix())
		}
		_, c = Z.Dims()
		nu = min(m, c)
		raw := Z.RawMatrix()
		ur := u.RawMatrix()
		if err := native.SVDLeft(m, c, raw.Data, raw.Stride, s[:nu], ur.Data, ur.Stride); err != nil {
			return nil // a non-finite vector: the caller's products are checked finite first
		}
		cut := tol
		if round == 1 {
			cut = 0.5 // orthonormal columns: singular values 1 to rounding
		}
		keep := 0
		for keep < nu && s[keep] > cut {
			keep++
		}
		if keep == 0 {
			return nil
		}
		// The kept vectors become the next round's input, and the destroyed input the
		// next round's output buffer.
		next := u.Slice(0, m, 0, keep).(*mat.Dense)
		spare := mat.NewDense(m, keep, raw.Data[:m*keep])
		Z, u = next, spare
	}
	return Z
}
