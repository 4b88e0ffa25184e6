// Package chinsuter runs the experiments that measure Chin and Suter's incremental
// kernel PCA (package chinsuter) against batch kernel PCA, the kernel Hebbian algorithm
// and this module's exact bordered update ("ikpca chinsuter"):
//
//   - training time on the seed paper's toy against n, with the accuracy of the exact
//     form and the projections onto the first components ([Timing] rows, [ExactRow],
//     [ProjectionSeries]);
//   - the compressed model over a long stream, against batch every so many points
//     ([StreamRow]);
//   - the per-point cost of the exact updates, each step paired with one dgemm
//     ([CostRow]).
//
// [Run] runs them and returns the outputs timing, projections, stream and cost (tables,
// with the figures timing, projections and stream drawn from them by [Plots]).
package chinsuter

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/stats"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Options configure Run.
type Options struct {
	// Sizes are the toy sizes n timed (the seed paper's 520 … 3100).
	Sizes []int
	// Components r, PreImages n′ and Chunk c of the compressed Chin–Suter model.
	Components, PreImages, Chunk int
	// KHAPasses and KHARate configure the kernel Hebbian baseline (Components
	// components).
	KHAPasses int
	KHARate   float64
	// ExactMax is the largest n at which the exact incremental models (ours, bordered,
	// and Chin–Suter uncompressed) are timed on the toy: their total cost grows as n⁴.
	ExactMax int
	// StreamN points are streamed to the compressed model, checked against batch
	// kernel PCA every StreamEvery points, for chunk sizes 1 and Chunk.
	StreamN, StreamEvery int
	// CostSizes are the m of the per-point cost comparison, CostSteps the steps timed
	// at each (the median is reported).
	CostSizes []int
	CostSteps int
	Seed      uint64
	// Progress reports the progress of each experiment.
	Progress study.Progress
}

// TimingRow is the training time of one method at one toy size.
type TimingRow struct {
	N       int
	Method  string
	Seconds float64
}

// Result holds all the experiments.
type Result struct {
	Options     Options
	Backend     string
	Timing      []TimingRow
	Exponents   map[string]float64 // method → fitted exponent of time against n
	Projections []ProjectionSeries
	ProjN       int
	Exact       []ExactRow
	Stream      []StreamRow
	Cost        []CostRow
}

// The methods compared, in table and legend order.
const (
	methodBatch   = "batch KPCA"
	methodCS      = "Chin–Suter (compressed)"
	methodKHA     = "KHA"
	methodOurs    = "ikpca (bordered, exact)"
	methodCSExact = "Chin–Suter (exact)"
)

var methods = []string{methodBatch, methodCS, methodKHA, methodOurs, methodCSExact}

// Run runs the experiments and returns their outputs, with figures. It stops early with
// ctx's error when ctx is done. Options it cannot run with give an error wrapping
// study.ErrOptions.
func Run(ctx context.Context, o Options) ([]study.Output, error) {
	r, err := run(ctx, o)
	if err != nil {
		return nil, err
	}
	return study.Draw(r.outputs(), Plots)
}

// run runs the experiments: training time on the seed paper's toy against n,
// projections onto the first components against batch, the compressed model over a
// long stream, and the per-point cost of the exact updates.
func run(ctx context.Context, o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	res := &Result{Options: o, Backend: native.Compiled, Exponents: map[string]float64{}}
	k := kernel.RBF{Sigma: 1}
	rng := rand.New(rand.NewPCG(o.Seed, 8))
	all := synth.Toy(max(slices.Max(o.Sizes), o.StreamN), rng)

	// 1. Training time against n, the exact form's accuracy, and the projections at the
	// smallest n.
	if err := res.toy(ctx, k, all); err != nil {
		return nil, err
	}
	res.Exponents = exponents(res.Timing)

	// 2. The compressed model over a long stream.
	if o.StreamN > 0 {
		chunks := chunkSizes(o.Chunk)
		for i, c := range chunks {
			rows, err := longStream(ctx, k, all.Slice(0, o.StreamN, 0, 2).(*mat.Dense), c, o)
			if err != nil {
				return nil, err
			}
			res.Stream = append(res.Stream, rows...)
			o.Progress.Report("stream", i+1, len(chunks))
		}
	}

	// 3. Per-point cost of the exact updates.
	for i, m := range o.CostSizes {
		row, err := costAt(ctx, m, o)
		if err != nil {
			return nil, err
		}
		res.Cost = append(res.Cost, row)
		o.Progress.Report("cost", i+1, len(o.CostSizes))
	}
	return res, nil
}

// check returns an error wrapping study.ErrOptions if run cannot run with o: a count
// out of range, or a size whose arrays would not fit.
func (o Options) check() error {
	if len(o.Sizes) == 0 || o.Components < 1 || o.PreImages < 1 || o.Chunk < 1 || o.KHAPasses < 1 || !(o.KHARate > 0) ||
		o.StreamN < 0 || (o.StreamN > 0 && o.StreamEvery < 1) || o.CostSteps < 1 {
		return fmt.Errorf("%w: chinsuter needs sizes, r, n′, c, KHA passes ≥ 1, a positive KHA rate, stream every ≥ 1 and cost steps ≥ 1", study.ErrOptions)
	}
	// Every size is bounded so that its n×n arrays stay within check.MaxFloats: batch
	// kernel PCA and the exact models of n points, the batch references along the
	// stream, a chunk's update, and the (r+1)·n′ pre-images of a compression
	// (docs/design.md, "Sizes").
	const maxSquare = 1 << 15
	for _, n := range o.Sizes {
		if n < 20 || n > maxSquare {
			return fmt.Errorf("%w: toy size %d: want 20 to %d (batch kernel PCA's n×n matrix)", study.ErrOptions, n, maxSquare)
		}
	}
	for _, m := range o.CostSizes {
		if m < 2 || m > maxSquare {
			return fmt.Errorf("%w: cost size %d: want 2 to %d (the exact models' m×m state)", study.ErrOptions, m, maxSquare)
		}
	}
	switch {
	case o.StreamN > maxSquare:
		return fmt.Errorf("%w: a stream of %d points: at most %d (the batch references' n×n matrices)", study.ErrOptions, o.StreamN, maxSquare)
	case o.Chunk > maxSquare:
		return fmt.Errorf("%w: chunks of %d points: at most %d", study.ErrOptions, o.Chunk, maxSquare)
	case o.PreImages > maxSquare/(o.Components+1):
		return fmt.Errorf("%w: %d components of %d pre-images each: (r+1)·n′ is at most %d (the compression's kernel matrix)", study.ErrOptions, o.Components, o.PreImages, maxSquare)
	}
	return nil
}

// toy runs the first experiment on the first n points of all, for every toy size n:
// it trains every method, adding their training times to r.Timing, the exact form's
// accuracy to r.Exact where the exact models were trained, and, at the smallest n, the
// projections onto the first components to r.Projections.
func (r *Result) toy(ctx context.Context, k kernel.Kernel, all *mat.Dense) error {
	o := r.Options
	for i, n := range o.Sizes {
		X := mat.DenseCopyOf(all.Slice(0, n, 0, 2))
		times, models, err := trainToy(ctx, k, X, o)
		if err != nil {
			return err
		}
		for _, m := range methods {
			if s, ok := times[m]; ok {
				r.Timing = append(r.Timing, TimingRow{N: n, Method: m, Seconds: s})
			}
		}
		if models.exact != nil {
			row, err := exactAccuracy(k, X, models)
			if err != nil {
				return err
			}
			r.Exact = append(r.Exact, row)
		}
		if n == slices.Min(o.Sizes) {
			r.ProjN = n
			if r.Projections, err = projections(X, models); err != nil {
				return err
			}
		}
		o.Progress.Report("toy", i+1, len(o.Sizes))
	}
	return nil
}

// exponents fits the exponent of time against n for every method timed at two sizes or
// more.
func exponents(timing []TimingRow) map[string]float64 {
	out := map[string]float64{}
	for _, m := range methods {
		var ns, ts []float64
		for _, r := range timing {
			if r.Method == m && r.Seconds > 0 {
				ns, ts = append(ns, float64(r.N)), append(ts, r.Seconds)
			}
		}
		if len(ns) >= 2 {
			out[m] = stats.LogSlope(ns, ts)
		}
	}
	return out
}

// chunkSizes are the chunk sizes of the long stream: one point at a time, and c.
func chunkSizes(c int) []int {
	if c == 1 {
		return []int{1}
	}
	return []int{1, c}
}
