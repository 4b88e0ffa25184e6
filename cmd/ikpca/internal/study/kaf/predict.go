package kaf

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kaf"
)

// PredictOptions configure Predict, the Mackey–Glass prediction experiment of Li &
// Príncipe's SPEED paper: one-step prediction of the Mackey–Glass series (τ = 30,
// sampled every 6, standardised to [−1, 1], additive noise), time embedding Order,
// Train consecutive training samples from a random start and Test test samples Gap
// steps after them, over Trials trials; test MSE recorded every Every training samples.
type PredictOptions struct {
	Trials, Train, Test, Gap, Order, Every int
	Noise                                  float64
	// Eta is the learning rate of every LMS-type filter; KLMSEta that of the KLMS
	// sanity anchor (0.2 with the kernel exp(−‖d‖²), σ = 1/√2).
	Eta, KLMSEta float64
	// Sigma is the Gaussian kernel width of every method, in kernel.RBF's convention.
	Sigma float64
	// Features is the dimension of the explicit maps (RFF, Taylor, GQ): 330.
	Features int
	// Quantisation is QKLMS's ε; Threshold siSPEED's novelty threshold; Seed100 the
	// dictionary iSPEED and siSPEED start from; ISPEEDCap caps iSPEED's dictionary.
	Quantisation, Threshold float64
	Seed100, ISPEEDCap      int
	// Methods selects methods by name (nil: all, see Methods).
	Methods []string
	Seed    uint64
	// Progress, if set, is called after each trial with the trials done and their total.
	Progress func(done, total int)
}

// Methods lists the methods in table order.
var Methods = []string{"LMS", "KLMS", "KLMS η=0.2", "QKLMS", "RFF cos-sin", "RFF phase", "Taylor", "GQ",
	"SPEED m=30", "SPEED m=50", "sparse SPEED", "iSPEED", "siSPEED",
	"KRLS on SPEED m=30", "KRLS on RFF", "KRLS on siSPEED"}

// PredictResult holds the learning curves (mean test MSE over trials after each
// multiple of Every training samples), the final MSE of every trial, and the mean
// dictionary or feature size of every method.
type PredictResult struct {
	Options PredictOptions
	Steps   []int
	Curves  map[string][]float64
	Final   map[string][]float64
	Size    map[string]float64
}

// Predict runs the experiment. It stops early with ctx's error when ctx is done.
func Predict(ctx context.Context, o PredictOptions) (*PredictResult, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	methods := o.Methods
	if methods == nil {
		methods = Methods
	}
	span := o.Order + o.Train + o.Gap + o.Test
	series, err := mackeyGlass(span + 3000)
	if err != nil {
		return nil, err
	}
	res := &PredictResult{Options: o, Curves: map[string][]float64{}, Final: map[string][]float64{}, Size: map[string]float64{}}
	for s := o.Every; s <= o.Train; s += o.Every {
		res.Steps = append(res.Steps, s)
	}
	for trial := range o.Trials {
		t, err := o.trialData(series, span, trial)
		if err != nil {
			return nil, err
		}
		for _, name := range methods {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := o.runMethod(res, name, trial, t); err != nil {
				return nil, err
			}
		}
		if o.Progress != nil {
			o.Progress(trial+1, o.Trials)
		}
	}
	return res, nil
}

// predictTrial is one trial's data: the embedded training and test inputs and their
// desired outputs, shared by every method so that all learn and are tested alike.
type predictTrial struct {
	trainX, testX *mat.Dense
	trainY, testY []float64
}

// trialData draws one trial's data: a span-long segment of series from a random start,
// with noise, time-embedded and split into training and test samples Gap steps apart.
// Its draws come from the trial's own stream, so that trials do not depend on one
// another or on the methods run.
func (o PredictOptions) trialData(series []float64, span, trial int) (predictTrial, error) {
	rng := rand.New(rand.NewPCG(o.Seed, uint64(trial)))
	start := rng.IntN(len(series) - span)
	noisy := make([]float64, span)
	for i := range noisy {
		noisy[i] = series[start+i] + o.Noise*rng.NormFloat64()
	}
	X, y, err := kaf.Embed(noisy, o.Order, 1)
	if err != nil {
		return predictTrial{}, err
	}
	return predictTrial{
		trainX: X.Slice(0, o.Train, 0, o.Order).(*mat.Dense),
		testX:  X.Slice(o.Train+o.Gap, o.Train+o.Gap+o.Test, 0, o.Order).(*mat.Dense),
		trainY: y[:o.Train],
		testY:  y[o.Train+o.Gap : o.Train+o.Gap+o.Test],
	}, nil
}

// runMethod builds the named method for the trial, trains it on the trial's training
// samples one at a time, and adds its test MSE to res: to the learning curve at every
// step (averaged over trials), to the final MSEs, and its size to the mean sizes.
func (o PredictOptions) runMethod(res *PredictResult, name string, trial int, t predictTrial) error {
	l, skip, err := o.build(name, t.trainX, uint64(trial))
	if err != nil {
		return fmt.Errorf("kaf study: %s: %w", name, err)
	}
	curve := res.Curves[name]
	if curve == nil {
		curve = make([]float64, len(res.Steps))
		res.Curves[name] = curve
	}
	k := 0
	// record adds the test MSE to the curve at every step up to `seen` samples.
	record := func(seen int) error {
		for k < len(res.Steps) && res.Steps[k] <= seen {
			mse, err := testMSE(l, t.testX, t.testY)
			if err != nil {
				return err
			}
			curve[k] += mse / float64(o.Trials)
			k++
		}
		return nil
	}
	// Steps within the seed dictionary (iSPEED, siSPEED): the filter has seen those
	// samples only as dictionary entries, not learnt from them; record its untrained
	// test MSE there.
	if err := record(skip); err != nil {
		return err
	}
	for i := skip; i < o.Train; i++ {
		if err := l.update(t.trainX.RawRowView(i), t.trainY[i]); err != nil {
			return fmt.Errorf("kaf study: %s: %w", name, err)
		}
		if (i+1)%o.Every == 0 {
			if err := record(i + 1); err != nil {
				return err
			}
		}
	}
	mse, err := testMSE(l, t.testX, t.testY)
	if err != nil {
		return err
	}
	res.Final[name] = append(res.Final[name], mse)
	res.Size[name] += float64(l.size()) / float64(o.Trials)
	return nil
}

// testMSE returns the mean squared error of the learner's predictions of y from the rows
// of X.
func testMSE(l learner, X *mat.Dense, y []float64) (float64, error) {
	var s float64
	for i, d := range y {
		p, err := l.predict(X.RawRowView(i))
		if err != nil {
			return 0, err
		}
		s += (p - d) * (p - d)
	}
	return s / float64(len(y)), nil
}

// methodsIn returns the methods of r in table order.
func (r *PredictResult) methodsIn() []string {
	var out []string
	for _, m := range Methods {
		if _, ok := r.Curves[m]; ok {
			out = append(out, m)
		}
	}
	return out
}
