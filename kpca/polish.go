package kpca

import (
	"context"
	"fmt"
	"math"
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
// ErrorBound and ValueBounds stay valid, and for the package's positive semi-definite
// kernels restart from what the polish itself certifies: the residual of the Ritz pairs,
// which the block Krylov relation gives without another pass, and a bound on the rest of
// the spectrum from the trace, less the other Ritz values of the Krylov space (Cauchy
// interlacing) — or, if that is looser, the old bound with the change from V·Λ·Vᵀ to the
// polished matrix added (docs/design.md, "Polishing"). Certify says more precisely how
// good the polished model is. The exact model (Rank() = 0) is batch accurate already,
// and Polish does nothing to it. passes outside 1…MaxPolishPasses and
// a nil ctx are ErrArgument errors; a model without points
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
	case md.rank == 0:
		return nil
	}
	if _, k := md.thin.Dims(); k == 0 || md.m < 2 {
		return fmt.Errorf("%w: Polish: no eigenpair to polish", ErrEmpty)
	}
	return md.transact(scopeStep, func() error { return md.polish(ctx, passes) })
}

// polish is PolishContext of a validated call on a tracked model with pairs. It keeps the
// free-running certificate valid whichever way is tighter (docs/design.md, "Polishing"):
// the old one with the change of the tracked matrix added, or the one restarted from
// what the polish itself certifies (polished.restart), and starts the count of a
// window's steps to its next self-polish again.
func (md *Model) polish(ctx context.Context, passes int) error {
	p, err := md.krylovRitz(ctx, passes)
	if err != nil {
		return err
	}
	if err := md.thin.SetEigen(p.values, p.vectors); err != nil {
		return fmt.Errorf("kpca: Polish: %w", err)
	}
	md.cert.Drop(p.change)
	md.cert.Slack += p.slack
	if p.restart != nil {
		kept, keptAbove := md.errorRange()
		old := md.cert
		md.cert = *p.restart
		if below, above := md.errorRange(); math.Max(below, above) > math.Max(kept, keptAbove) {
			md.cert = old
		}
	}
	md.sincePolish = 0
	return nil
}
