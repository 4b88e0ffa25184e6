package kpca

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/probe"
	"github.com/ikpca/ikpca/kernel"
)

// Start is where FitFrom starts: a subspace of point coordinates, and how many passes
// over the points refine it.
type Start struct {
	// Vectors is n×c, n the points and Components ≤ c ≤ Rank, the starting subspace in
	// point coordinates: for example a merged Nyström model's scores of the points
	// (nystrom.Model.Transform), which are its eigenvectors lifted to the points up to
	// the scale of each column. Only its span matters; centred, its part along 1 is
	// removed. nil starts from Rank random vectors (Seed).
	Vectors mat.Matrix
	// Seed seeds the random vectors of a nil Vectors; zero is a seed like any other.
	Seed uint64
	// Passes is the number of passes, 1 to MaxPolishPasses: the block Krylov space of
	// the start has Passes blocks.
	Passes int
}

// FitFrom is FitFromContext without a deadline or cancellation.
func FitFrom(k kernel.Kernel, X mat.Matrix, start Start, opts Options) (*Model, error) {
	return FitFromContext(context.Background(), k, X, start, opts)
}

// FitFromContext returns the model of the rows of X (n points) at rank r for the kernel
// k without tracking them and without their n×n kernel matrix: its pairs are the top
// Ritz pairs of K′ (or K, Options.Uncentred) on the block Krylov space
// span{S, K′S, …, K′^(p−1)·S} of the starting subspace S (Start.Vectors, or random
// vectors), p = Start.Passes, computed as Polish computes them, in passes over the
// points (docs/design.md, "Starting subspaces"). It costs p + 1 passes (the first gives
// the running sums, K·1) of O(n²·(d + r)) flops each and O(n·(d + p·r)) memory, where Fit
// tracks the points in O(n·r²) work a point: it is the start that needs no sequential
// pass over the data, and the one that scales out (a subspace from a merged Nyström
// model, docs/design.md, "Polish and Certify over sharded points").
//
// The model continues as any other (Add, Remove, Polish, Certify, MarshalBinary). Its
// certificate (ErrorBound, ValueBounds) is the one a Polish restarts from (Polish): it
// bounds K′ − V·Λ·Vᵀ from the Krylov relation and the trace, whatever the start, so a
// poor start or too few passes gives a true, wide bound, never a false narrow one.
// That needs a positive semi-definite kernel (RBF, Laplacian, polynomial of a
// non-negative offset, linear, cosine); another is an ErrArgument.
//
// Options must have Components k (not All) and no Window; Start.Vectors must be n×c with
// Components ≤ c ≤ Rank (ErrDimension) and finite, with at least one direction outside
// 1 when centred (ErrNonFinite, ErrArgument); Passes outside 1…MaxPolishPasses and a nil
// ctx are ErrArgument errors. X's errors are Fit's (fewer than two rows: ErrEmpty), and a model of kernel.Precomputed,
// which has no points to pass over, is an ErrNoKernel. It is all or nothing.
func FitFromContext(ctx context.Context, k kernel.Kernel, X mat.Matrix, start Start, opts Options) (*Model, error) {
	md, err := newModel(k, opts)
	if err != nil {
		return nil, err
	}
	if err := md.needKernel("FitFrom"); err != nil {
		return nil, err
	}
	switch {
	case ctx == nil:
		return nil, fmt.Errorf("%w: FitFrom: nil context", ErrArgument)
	case md.rank == 0 || md.opts.Window > 0:
		return nil, fmt.Errorf("%w: FitFrom fits a model at a rank without a window (Components %d, Window %d)", ErrArgument, md.opts.Components, md.opts.Window)
	case !psd(md.kern):
		return nil, fmt.Errorf("%w: FitFrom: kernel %v is not known to be positive semi-definite, and the certificate of a start needs it", ErrArgument, md.kern)
	case start.Passes < 1 || start.Passes > MaxPolishPasses:
		return nil, fmt.Errorf("%w: FitFrom: %d passes (1 to %d)", ErrArgument, start.Passes, MaxPolishPasses)
	}
	X, n, d, err := kinds.Data(X)
	if err != nil {
		return nil, err
	}
	if err := md.setDim(d); err != nil {
		return nil, err
	}
	V, err := md.startVectors(start, n)
	if err != nil {
		return nil, err
	}
	_, c := V.Dims()
	if _, err := kinds.Floats("the Krylov basis of FitFrom", n, start.Passes*c); err != nil {
		return nil, err
	}
	md.ensure(n)
	for i := range n {
		mat.Row(md.x[i*d:(i+1)*d], i, X)
	}
	md.m = n
	md.setView()
	ps := md.passer()
	defer ps.release()
	if err := md.startSums(ctx, ps); err != nil {
		return nil, err
	}
	p, err := md.ritz(ctx, ps, V, nil, start.Passes)
	if err != nil {
		return nil, kinds.Wrap(err, "FitFrom")
	}
	if p.restart == nil {
		return nil, fmt.Errorf("%w: FitFrom: the residual of the Ritz pairs is not finite", ErrNonFinite)
	}
	if err := md.thin.SetEigen(p.values, p.vectors); err != nil {
		return nil, kinds.Wrap(err, "FitFrom")
	}
	md.cert = *p.restart
	md.pending = md.pending[:0]
	md.endStep()
	return md, nil
}

// startVectors returns an orthonormal basis (orthonormalise) of the starting subspace of
// FitFrom for n points: of start.Vectors read through the checks of untrusted matrices (check.Kinds.Matrix),
// or min(Rank, n) random columns, entries uniform in [−½, ½) (probe.Fill), seeded by
// start.Seed. The vectors must be finite and span a direction (outside 1, centred),
// and there must be two points at least.
func (md *Model) startVectors(start Start, n int) (*mat.Dense, error) {
	if n < 2 {
		return nil, fmt.Errorf("%w: FitFrom of %d point: a start needs two", ErrEmpty, n)
	}
	var V *mat.Dense
	if start.Vectors == nil {
		V = mat.NewDense(n, min(md.rank, n), nil)
		col := make([]float64, n)
		for j := range min(md.rank, n) {
			probe.Fill(col, (start.Seed+uint64(j))*0x9E3779B97F4A7C15|1)
			V.SetCol(j, col)
		}
	} else {
		S, r, c, err := kinds.Matrix(start.Vectors)
		if err != nil {
			return nil, err
		}
		if r != n || c < min(md.opts.Components, n) || c > md.rank {
			return nil, fmt.Errorf("%w: FitFrom: start vectors %d×%d for %d points (want %d rows and %d to %d columns: Components to Rank)",
				ErrDimension, r, c, n, n, md.opts.Components, md.rank)
		}
		V = mat.DenseCopyOf(S)
	}
	for i := range n {
		for j, v := range V.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: FitFrom: start vector %d has %g at point %d", ErrNonFinite, j, v, i)
			}
		}
	}
	// Its orthonormal basis (centred, in 1⊥) is the start itself: checked here, so that an
	// empty span is an ErrArgument, and the copy above is what is overwritten.
	Q := orthonormalise(V, nil, !md.opts.Uncentred, 0)
	if Q == nil {
		return nil, fmt.Errorf("%w: FitFrom: the start vectors span nothing (centred: nothing outside 1)", ErrArgument)
	}
	return Q, nil
}

// startSums sets the running sums of a model whose points were set without them: the
// row sums K·1 and their total by one pass (uncentred, as verify's), and the trace
// Σk(xᵢ, xᵢ). The pass sums K·1 in tiles where Fit sums each row in order, so the two
// differ by rounding, within what verify allows (check.SumsTolerance).
func (md *Model) startSums(ctx context.Context, ps *passer) error {
	m := md.m
	ones := mat.NewDense(m, 1, nil)
	for i := range m {
		ones.Set(i, 0, 1)
	}
	var W mat.Dense
	ps.raw = true
	err := ps.pass(ctx, &W, ones)
	ps.raw = false
	if err != nil {
		return err
	}
	md.total, md.self = 0, 0
	for i := range m {
		md.rowSum[i] = W.At(i, 0)
		md.total += md.rowSum[i]
		x := md.point(i)
		md.self += md.kern.Eval(x, x)
	}
	return nil
}
