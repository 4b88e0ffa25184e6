package streaming

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/stream"
)

// ToyOptions configure Toy, the online kernel PCA experiment of the seed paper: x ~
// U[−1, 1], y = x² + N(0, 0.2²), the homogeneous polynomial kernel (aᵀb)², N samples
// presented Passes times to KRQA and to KHA, over Runs Monte-Carlo runs.
type ToyOptions struct {
	Runs, N, Passes int
	// KHARate and KHADecay are KHA's learning rate η₀ and decay τ (stream.KHAOptions).
	KHARate, KHADecay float64
	// Tolerance is the relative eigenvalue error at which a method counts as converged
	// (for the passes-to-converge columns).
	Tolerance float64
	Seed      uint64
	// Progress, if set, is called after each run with the runs done and their total.
	Progress func(done, total int)
}

// ToyRun is one Monte-Carlo run: the exact eigenvalues eig(K̃)/N (three non-zero), the
// final estimates of both methods (Rayleigh quotients of their directions, /N), and the
// first pass after which all three relative errors are below the tolerance (−1: never).
type ToyRun struct {
	Exact, KRQA, KHA [3]float64
	// KRQAOwn is KRQA's own running estimate n·uᵀP/N.
	KRQAOwn               [3]float64
	KRQAPasses, KHAPasses int
	KRQAErrors, KHAErrors []float64 // max relative error after each pass
}

// ToyResult holds all runs.
type ToyResult struct {
	Options ToyOptions
	Runs    []ToyRun
}

// online is an online kernel PCA method of the toy: samples are stored as they arrive,
// then presented again pass after pass.
type online struct {
	add  func([]float64) error
	pass func() error
	// estimate returns the eigenvalue estimates compared with the exact ones: the
	// Rayleigh quotients of the method's directions on the stored samples.
	estimate func([]float64) []float64
}

// Toy runs the experiment. It stops early with ctx's error when ctx is done.
func Toy(ctx context.Context, o ToyOptions) (*ToyResult, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	k := kernel.Polynomial{Degree: 2, Gamma: 1}
	res := &ToyResult{Options: o}
	for run := range o.Runs {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(run)))
		X := synth.Toy(o.N, rng)
		md, err := kpca.Fit(k, X, kpca.Options{Components: kpca.All})
		if err != nil {
			return nil, err
		}
		vals := md.Values(nil)
		var r ToyRun
		for i := range 3 {
			r.Exact[i] = vals[i] / float64(o.N)
		}
		krqa, err := stream.NewKRQA(k, 2, stream.KRQAOptions{Components: 3, Seed: uint64(run)})
		if err != nil {
			return nil, err
		}
		kha, err := stream.NewKHA(k, 2, stream.KHAOptions{Components: 3, Rate: o.KHARate, Decay: o.KHADecay, Seed: uint64(run)})
		if err != nil {
			return nil, err
		}
		methods := []struct {
			m      online
			errs   *[]float64
			passes *int
			final  *[3]float64
		}{
			{online{krqa.Add, krqa.Pass, krqa.RayleighQuotients}, &r.KRQAErrors, &r.KRQAPasses, &r.KRQA},
			{online{kha.Add, kha.Pass, kha.Values}, &r.KHAErrors, &r.KHAPasses, &r.KHA},
		}
		for _, m := range methods {
			*m.passes = -1
			for i := range o.N {
				if err := m.m.add(X.RawRowView(i)); err != nil {
					return nil, err
				}
			}
			var est []float64
			for p := 1; p <= o.Passes; p++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if p > 1 {
					if err := m.m.pass(); err != nil {
						return nil, err
					}
				}
				est = m.m.estimate(est)
				worst := 0.0
				for i := range 3 {
					worst = math.Max(worst, math.Abs(est[i]/float64(o.N)-r.Exact[i])/r.Exact[i])
				}
				*m.errs = append(*m.errs, worst)
				if *m.passes < 0 && worst < o.Tolerance {
					*m.passes = p
				}
			}
			for i := range 3 {
				m.final[i] = est[i] / float64(o.N)
			}
		}
		own := krqa.Values(nil)
		for i := range 3 {
			r.KRQAOwn[i] = own[i] / float64(o.N)
		}
		res.Runs = append(res.Runs, r)
		if o.Progress != nil {
			o.Progress(run+1, o.Runs)
		}
	}
	return res, nil
}

// medianPasses returns the median of v over all runs, counting a run that never
// converged (−1) as converging after every finite count; ok is false when at least half
// never did (the median is then "more than the passes run").
func medianPasses(v []int) (median float64, never int, ok bool) {
	sorted := make([]int, len(v))
	for i, x := range v {
		if x < 0 {
			never++
			x = math.MaxInt
		}
		sorted[i] = x
	}
	slices.Sort(sorted)
	n := len(sorted)
	if n == 0 || 2*never >= n {
		return math.NaN(), never, false
	}
	if n%2 == 1 {
		return float64(sorted[n/2]), never, true
	}
	if sorted[n/2] == math.MaxInt {
		return math.NaN(), never, false
	}
	return float64(sorted[n/2-1]+sorted[n/2]) / 2, never, true
}

// curves returns the mean over runs of the largest relative error after each pass.
func (r *ToyResult) curves() (krqa, kha []float64) {
	passes := r.Options.Passes
	krqa, kha = make([]float64, passes), make([]float64, passes)
	for _, run := range r.Runs {
		for p := range passes {
			krqa[p] += run.KRQAErrors[p] / float64(len(r.Runs))
			kha[p] += run.KHAErrors[p] / float64(len(r.Runs))
		}
	}
	return krqa, kha
}
