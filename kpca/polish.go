package kpca

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// MaxPolishPasses bounds the passes of one Polish: the block Krylov basis holds
// passes·Rank() vectors of m entries, twice (the basis and its product with K′).
const MaxPolishPasses = 20

// Polish is PolishContext without a deadline or cancellation.
func (md *Model) Polish(passes int) error { return md.PolishContext(context.Background(), passes) }

// PolishContext brings the tracked eigenpairs of a rank-r model to batch accuracy: it
// replaces them by the Ritz pairs of the true matrix of the points, K′ (centred: C·K·C)
// or K, on the block Krylov space span{V, K′V, …, K′^(passes−1)·V} of the tracked
// vectors V (docs/design.md, "Polishing"). Each pass is one product of K′ with a block
// of at most Rank() vectors, computed from the stored points in kernel blocks and never
// formed (O(m²·(d + r)) flops at the speed of a dgemm); the basis is orthonormalised
// with full reorthogonalisation, and the Rayleigh–Ritz step keeps its top Rank() pairs.
// Tracking is the warm start that makes a few passes enough: from a basis whose top-10
// sine is 1e-3, two passes give the top 10 eigenvalues to about 1e-11·λ₁ and three to
// rounding. Tracking then continues from the polished pairs.
//
// It allocates O(m·r·passes) and nothing of order m². It checks ctx between blocks of
// rows (a pass over 70,000 points takes minutes) and is transactional: on any error —
// ctx's, a kernel value that is not finite, an eigensolver that fails — the model is
// unchanged.
//
// ErrorBound and ValueBounds stay valid: the change from the tracked matrix V·Λ·Vᵀ to the
// polished one is added to the truncations they account for, so they may grow; after a
// polish, Certify says how good the model is. The exact model (Rank() = 0) is batch
// accurate already, and Polish does nothing to it. passes outside 1…MaxPolishPasses, a
// nil ctx, and a model of method RankOne are ErrArgument errors; a model without points
// or pairs is an ErrEmpty.
func (md *Model) PolishContext(ctx context.Context, passes int) error {
	if err := md.ready(); err != nil {
		return err
	}
	if err := md.needKernel("Polish"); err != nil {
		return err
	}
	switch {
	case ctx == nil:
		return fmt.Errorf("%w: Polish: nil context", ErrArgument)
	case passes < 1 || passes > MaxPolishPasses:
		return fmt.Errorf("%w: Polish: %d passes (1 to %d)", ErrArgument, passes, MaxPolishPasses)
	case !md.bordered():
		return fmt.Errorf("%w: Polish: a model of method RankOne (Polish needs method Bordered)", ErrArgument)
	case md.rank == 0:
		return nil
	}
	if _, k := md.thin.Dims(); k == 0 || md.m < 2 {
		return fmt.Errorf("%w: Polish: no eigenpair to polish", ErrEmpty)
	}
	p, err := md.krylovRitz(ctx, passes)
	if err != nil {
		return err
	}
	if err := md.thin.SetEigen(p.values, p.vectors); err != nil {
		return fmt.Errorf("kpca: Polish: %w", err)
	}
	md.cert.drop(p.change)
	md.cert.slack += p.slack
	return nil
}

// polished is the result of a Rayleigh–Ritz step: the Ritz pairs kept, and what
// replacing the tracked matrix by theirs changes (for the certificate).
type polished struct {
	values  []float64
	vectors *mat.Dense // m×k, orthonormal
	// change summarises the eigenvalues of V·Λ·Vᵀ − U·Θ·Uᵀ, the tracked matrix minus the
	// polished one, which the error E = K′ − K̃ gains (certificate).
	change update.Dropped
	slack  float64 // the rounding of change
}

// krylovRitz runs the passes of a Polish on fresh arrays, leaving the model as it is.
func (md *Model) krylovRitz(ctx context.Context, passes int) (polished, error) {
	m := md.m
	_, k := md.thin.Dims()
	centred := !md.opts.Uncentred
	V := mat.NewDense(m, k, nil)
	md.thin.VectorsTo(V)
	lambda := md.thin.Values(nil)

	ps := md.passer()
	defer ps.release()
	// The basis Q = [Q₀ Q₁ …] and W = K′Q, block i of Q orthonormal to the blocks before
	// it, grown one pass at a time in arrays of their final size.
	// The basis Q = [Q₀ Q₁ …] grows one block a pass in an array of its final size; of
	// K′Q only the current block Wᵢ = K′Qᵢ is kept: the Rayleigh–Ritz matrix T = QᵀK′Q is
	// filled a block column at a time, T[0…i, i] = [Q₀ … Qᵢ]ᵀWᵢ, and its lower blocks
	// are the upper ones' transposes (K′ is symmetric). Memory: Q and one block.
	Q := mat.NewDense(m, passes*k, nil)
	W := mat.NewDense(m, k, nil)
	t := mat.NewDense(passes*k, passes*k, nil)
	blockOf := make([]int, 0, passes*k) // the pass each column of Q came from
	q0 := orthonormalise(mat.DenseCopyOf(V), nil, centred, 0)
	if q0 == nil {
		return polished{}, fmt.Errorf("%w: Polish: the tracked vectors are not finite", ErrNonFinite)
	}
	_, c := q0.Dims()
	Q.Slice(0, m, 0, c).(*mat.Dense).Copy(q0)
	used, block := 0, c // columns of Q in use before the block, and the block's width
	for i := range passes {
		qi := Q.Slice(0, m, used, used+block).(*mat.Dense)
		wi := W.Slice(0, m, 0, block).(*mat.Dense)
		if err := ps.pass(ctx, wi, qi); err != nil {
			return polished{}, err
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
		next := orthonormalise(mat.DenseCopyOf(wi), Q.Slice(0, m, 0, used).(*mat.Dense), centred, 64*roundoff*float64(m)*maxColumnNorm(wi))
		if next == nil {
			break
		}
		_, block = next.Dims()
		Q.Slice(0, m, used, used+block).(*mat.Dense).Copy(next)
	}
	Qu := Q.Slice(0, m, 0, used).(*mat.Dense)

	// Rayleigh–Ritz: T = QᵀK′Q, T = S·Θ·Sᵀ, the top k pairs kept. Within a block both
	// triangles were computed, and are averaged (the computed product differs from
	// symmetric by rounding); across blocks the upper one is the only one.
	T := mat.NewSymDense(used, nil)
	for i := range used {
		for j := i; j < used; j++ {
			v := t.At(i, j)
			if blockOf[i] == blockOf[j] {
				v = (v + t.At(j, i)) / 2
			}
			T.SetSym(i, j, v)
		}
	}
	var S mat.Dense
	theta, err := native.EigenSym(nil, &S, T)
	if err != nil {
		return polished{}, fmt.Errorf("kpca: Polish: %w", err)
	}
	keep := min(k, used)
	St := S.Slice(0, used, used-keep, used).(*mat.Dense) // ascending: the top keep
	values := append([]float64(nil), theta[used-keep:]...)
	U := mat.NewDense(m, keep, nil)
	native.Mul(U, Qu, St)

	// The change of the tracked matrix, in the coordinates of Q (V and U lie in its span):
	// D = (QᵀV)·Λ·(QᵀV)ᵀ − S·Θ·Sᵀ, used×used.
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
		return polished{}, fmt.Errorf("kpca: Polish: %w", err)
	}
	change := update.DroppedOf(dv)
	scale := 0.0
	for _, v := range lambda {
		scale = math.Max(scale, math.Abs(v))
	}
	for _, v := range values {
		scale = math.Max(scale, math.Abs(v))
	}
	return polished{values: values, vectors: U, change: change, slack: 64 * roundoff * float64(used+2) * scale}, nil
}
