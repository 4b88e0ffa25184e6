package chinsuter

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/stats"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// CostRow is the per-point cost of the exact updates at one size m, each step paired
// with one m×m×m dgemm timed just before it.
type CostRow struct {
	M            int
	Dgemm        float64 // seconds, median
	SVD          float64 // seconds: dgesvd (left vectors) of an (m+1)×(m+2) matrix, the size of F
	ChinSuter    float64 // seconds per point, exact Chin–Suter (all components kept)
	Bordered     float64 // seconds per point, our mean-adjusted bordered update
	Paper        float64 // seconds per point, the seed paper's four rank-one updates
	CSComponents int     // r kept by Chin–Suter at m
	// Flop counts of the operations performed (analytic), in units of m³.
	CSFlops, BorderedFlops, PaperFlops float64
}

// costAt measures one step of each exact update at size m on 10-dimensional Gaussian
// points with the RBF kernel of bandwidth √10 (a kernel matrix of full numerical rank,
// so that Chin–Suter keeps all m−1 components and nothing deflates trivially).
func costAt(ctx context.Context, m int, o Options) (CostRow, error) {
	const d = 10
	rng := rand.New(rand.NewPCG(o.Seed, uint64(m)))
	steps := o.CostSteps
	X := synth.Normal(m+steps, d, rng)
	k := kernel.RBF{Sigma: math.Sqrt(d)}
	stick := yardstick.New(m)
	row := CostRow{M: m}
	x0 := X.Slice(0, m, 0, d)

	var gemm []float64
	timeSteps := func(add func(i int) error) (float64, error) {
		var ts []float64
		for s := range steps {
			gemm = append(gemm, stick.Dgemm().Seconds())
			t0 := time.Now()
			if err := add(m + s); err != nil {
				return 0, err
			}
			ts = append(ts, time.Since(t0).Seconds())
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		return stats.Median(ts), nil
	}

	cs, err := chinsuter.Fit(k, x0, chinsuter.Options{})
	if err != nil {
		return row, err
	}
	row.CSComponents = cs.Components()
	if row.ChinSuter, err = timeSteps(func(i int) error { return cs.Add(X.RawRowView(i)) }); err != nil {
		return row, err
	}
	// The bordered method (kpca.Model) and the paper's (kpca.RankOneModel), each reserved
	// for every step first.
	type adder interface {
		Reserve(n int) error
		Add(x []float64) error
	}
	timeModel := func(md adder, err error) (float64, error) {
		if err != nil {
			return 0, err
		}
		md.Reserve(m + steps)
		return timeSteps(func(i int) error { return md.Add(X.RawRowView(i)) })
	}
	if row.Bordered, err = timeModel(kpca.Fit(k, x0, kpca.Options{Components: kpca.All})); err != nil {
		return row, err
	}
	if row.Paper, err = timeModel(kpca.FitRankOne(k, x0, kpca.Options{Components: kpca.All})); err != nil {
		return row, err
	}
	row.Dgemm = stats.Median(gemm)

	// The SVD of a matrix of F's size alone, as the update computes it (native.SVDLeft).
	F := make([]float64, (m+1)*(m+2))
	for i := range m + 1 {
		F[i*(m+2)+i] = float64(m - i)
		F[i*(m+2)+m+1] = rng.NormFloat64()
	}
	sv, u := make([]float64, m+1), make([]float64, (m+1)*(m+1))
	t0 := time.Now()
	if err := native.SVDLeft(m+1, m+2, F, m+2, sv, u, m+1); err != nil {
		return row, err
	}
	row.SVD = time.Since(t0).Seconds()

	// Analytic flop counts, in m³: Chin–Suter P = K_A·α (2m³), the new coefficients
	// (2m³) and the SVD of F (Golub & Van Loan's count for Σ and U₁ of a square matrix by
	// QR iteration, 12m³; divide and conquer does less when it deflates); ours one
	// dgemm (2m³); the paper's four rank-one updates, one m×m×m product each (8m³).
	row.CSFlops, row.BorderedFlops, row.PaperFlops = 16, 2, 8
	return row, nil
}
