package paper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// Norms indexes the three norms of a series.
const (
	Frobenius = iota
	Spectral
	Trace
)

// NormNames are the names of the three norms, in index order.
var NormNames = [3]string{"Frobenius", "spectral", "trace"}

// Series holds one curve per norm.
type Series [3][]float64

// DriftOptions configure Drift.
type DriftOptions struct {
	Data   *mat.Dense    // the data set, one point per row
	Kernel kernel.Kernel // the kernel (the paper: RBF with the median distance)
	M0     int           // points in the starting batch decomposition (the paper: 20)
	MMax   int           // last model size
	Runs   int           // random orders averaged for the mean curve (the paper: 50)
	Seed   uint64        // seeds the random orders
	Paper  bool          // also run the paper's algorithm (kpca.RankOneModel), in file order
	// Progress, if set, is called after each model step with the steps done and the total.
	Progress func(done, total int)
}

// DriftResult holds the curves of Figure 1.
type DriftResult struct {
	M      []int  // model sizes m0+1, …, mmax
	Runs   int    // random orders averaged in Mean
	Single Series // file order, bordered (this library)
	Mean   Series // mean over the random orders, bordered
	Paper  Series // file order, the paper's algorithm; nil curves if not run
}

// Drift runs Figure 1's experiment. It stops early with ctx's error when ctx is done.
func Drift(ctx context.Context, o DriftOptions) (*DriftResult, error) {
	if o.Data == nil || o.Kernel == nil {
		return nil, fmt.Errorf("%w: data and kernel are required", study.ErrOptions)
	}
	n, _ := o.Data.Dims()
	if o.M0 < 1 || o.MMax <= o.M0 || o.MMax > n {
		return nil, fmt.Errorf("%w: need 1 ≤ m0 < mmax ≤ %d points, got m0 = %d, mmax = %d", study.ErrOptions, n, o.M0, o.MMax)
	}
	if o.Runs < 0 {
		return nil, fmt.Errorf("%w: negative number of runs", study.ErrOptions)
	}
	steps := o.MMax - o.M0
	res := &DriftResult{M: make([]int, steps), Runs: o.Runs}
	for i := range steps {
		res.M[i] = o.M0 + 1 + i
	}
	total := steps * (1 + o.Runs)
	if o.Paper {
		total += steps
	}
	done := 0
	tick := func() {
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	identity := make([]int, n)
	for i := range identity {
		identity[i] = i
	}
	var err error
	if res.Single, err = driftRun(ctx, o, identity, false, tick); err != nil {
		return nil, err
	}
	if o.Paper {
		if res.Paper, err = driftRun(ctx, o, identity, true, tick); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0xD1B54A32D192ED03))
	for r := range o.Runs {
		s, err := driftRun(ctx, o, rng.Perm(n), false, tick)
		if err != nil {
			return nil, err
		}
		for k := range 3 {
			if r == 0 {
				res.Mean[k] = make([]float64, steps)
			}
			for i, v := range s[k] {
				res.Mean[k][i] += v / float64(o.Runs)
			}
		}
	}
	return res, nil
}

// driftModel is what driftRun asks of a kpca.Model and of a kpca.RankOneModel.
type driftModel interface {
	Add(x []float64) error
	Values(dst []float64) []float64
	VectorsTo(dst *mat.Dense)
}

// fitDrift fits the model of a drift run: a kpca.Model, or the paper's kpca.RankOneModel.
func fitDrift(k kernel.Kernel, x mat.Matrix, paper bool) (driftModel, error) {
	opts := kpca.Options{Components: kpca.All}
	if paper {
		return kpca.FitRankOne(k, x, opts)
	}
	return kpca.Fit(k, x, opts)
}

// driftRun adds the points in the given order and measures the drift after each step,
// of the paper's algorithm (kpca.RankOneModel) or of kpca.Model.
func driftRun(ctx context.Context, o DriftOptions, order []int, paper bool, tick func()) (Series, error) {
	_, d := o.Data.Dims()
	x := mat.NewDense(o.MMax, d, nil)
	for i := range o.MMax {
		x.SetRow(i, o.Data.RawRowView(order[i]))
	}
	model, err := fitDrift(o.Kernel, x.Slice(0, o.M0, 0, d), paper)
	if err != nil {
		return Series{}, err
	}
	k := kernel.Matrix(o.Kernel, x) // the kernel matrix of all mmax points, read by blocks
	var out Series
	for m := o.M0 + 1; m <= o.MMax; m++ {
		if err := ctx.Err(); err != nil {
			return Series{}, err
		}
		if err := model.Add(x.RawRowView(m - 1)); err != nil {
			return Series{}, fmt.Errorf("paper: point %d: %w", m, err)
		}
		norms, err := driftNorms(model, k, m)
		if err != nil {
			return Series{}, err
		}
		for i := range 3 {
			out[i] = append(out[i], norms[i])
		}
		tick()
	}
	return out, nil
}

// driftNorms returns the three norms of E = K'ₘ − V·Λ·Vᵀ for the model of the first m
// points, K'ₘ the centred kernel matrix of those points (kernel.Centre of the leading
// block of k).
func driftNorms(model driftModel, k *mat.SymDense, m int) ([3]float64, error) {
	var v mat.Dense
	model.VectorsTo(&v)
	e := kernel.Centre(synth.Leading(k, m))
	rec := synth.Reconstruct(model.Values(nil), &v)
	rec.ScaleSym(-1, rec)
	e.AddSym(e, rec)
	lambda, err := native.EigenSym(nil, nil, e)
	if err != nil {
		return [3]float64{}, err
	}
	var spec, tr float64
	for _, l := range lambda {
		spec = math.Max(spec, math.Abs(l))
		tr += math.Abs(l)
	}
	return [3]float64{mat.Norm(e, 2), spec, tr}, nil
}
