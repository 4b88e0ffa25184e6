package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kaf"
	"github.com/ikpca/ikpca/kernel"
)

// KAFOptions configure KAF, the Mackey–Glass prediction experiment of Li & Príncipe's
// SPEED paper: one-step prediction of the Mackey–Glass series (τ = 30, sampled every 6,
// standardised to [−1, 1], additive noise), time embedding Order, Train consecutive
// training samples from a random start and Test test samples Gap steps after them, over
// Trials trials; test MSE recorded every Every training samples.
type KAFOptions struct {
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
	// Methods selects methods by name (nil: all, see KAFMethods).
	Methods  []string
	Seed     uint64
	Progress func(trial int)
}

// KAFMethods lists the methods in table order.
var KAFMethods = []string{"LMS", "KLMS", "KLMS η=0.2", "QKLMS", "RFF cos-sin", "RFF phase", "Taylor", "GQ",
	"SPEED m=30", "SPEED m=50", "sparse SPEED", "iSPEED", "siSPEED",
	"KRLS on SPEED m=30", "KRLS on RFF", "KRLS on siSPEED"}

// KAFResult holds the learning curves (mean test MSE over trials after each multiple of
// Every training samples), the final MSE of every trial, and the mean dictionary or
// feature size of every method.
type KAFResult struct {
	Options KAFOptions
	Steps   []int
	Curves  map[string][]float64
	Final   map[string][]float64
	Size    map[string]float64
}

// learner is one method of one trial.
type learner interface {
	update(x []float64, d float64) error
	predict(x []float64) (float64, error)
	size() int
}

// featureLearner is a linear filter on an explicit map.
type featureLearner struct {
	m interface {
		Map(dst, x []float64) error
		OutDim() int
	}
	f   kaf.Filter
	phi []float64
}

func (l *featureLearner) update(x []float64, d float64) error {
	if err := l.m.Map(l.phi, x); err != nil {
		return err
	}
	_, err := l.f.Update(l.phi, d)
	return err
}

func (l *featureLearner) predict(x []float64) (float64, error) {
	if err := l.m.Map(l.phi, x); err != nil {
		return 0, err
	}
	return l.f.Predict(l.phi)
}

func (l *featureLearner) size() int { return l.m.OutDim() }

// identity is the linear "map" of plain LMS.
type identity int

// Map copies x.
func (d identity) Map(dst, x []float64) error { copy(dst, x); return nil }

// OutDim returns the input dimension.
func (d identity) OutDim() int { return int(d) }

type klmsLearner struct{ f *kaf.KLMS }

func (l klmsLearner) update(x []float64, d float64) error  { _, err := l.f.Update(x, d); return err }
func (l klmsLearner) predict(x []float64) (float64, error) { return l.f.Predict(x) }
func (l klmsLearner) size() int                            { return l.f.Len() }

type speedLearner struct{ f *kaf.SPEEDFilter }

func (l speedLearner) update(x []float64, d float64) error  { _, err := l.f.Update(x, d); return err }
func (l speedLearner) predict(x []float64) (float64, error) { return l.f.Predict(x) }
func (l speedLearner) size() int                            { return l.f.Map().Len() }

// mackeyGlassData returns the standardised series the trials draw from.
func mackeyGlassData(n int) ([]float64, error) {
	s, err := kaf.MackeyGlass(n, kaf.MackeyGlassOptions{Discard: 300})
	if err != nil {
		return nil, err
	}
	return kaf.Standardise(s, -1, 1)
}

// KAF runs the experiment. It stops early with ctx's error when ctx is done.
func KAF(ctx context.Context, o KAFOptions) (*KAFResult, error) {
	if o.Trials < 1 || o.Train < 10 || o.Test < 1 || o.Order < 1 || o.Every < 1 || o.Features < 2 || o.Seed100 < 2 {
		return nil, errors.New("experiment: KAF options out of range")
	}
	methods := o.Methods
	if methods == nil {
		methods = KAFMethods
	}
	span := o.Order + o.Train + o.Gap + o.Test
	series, err := mackeyGlassData(span + 3000)
	if err != nil {
		return nil, err
	}
	res := &KAFResult{Options: o, Curves: map[string][]float64{}, Final: map[string][]float64{}, Size: map[string]float64{}}
	for s := o.Every; s <= o.Train; s += o.Every {
		res.Steps = append(res.Steps, s)
	}
	for trial := range o.Trials {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(trial)))
		start := rng.IntN(len(series) - span)
		noisy := make([]float64, span)
		for i := range noisy {
			noisy[i] = series[start+i] + o.Noise*rng.NormFloat64()
		}
		X, y, err := kaf.Embed(noisy, o.Order, 1)
		if err != nil {
			return nil, err
		}
		trainX := X.Slice(0, o.Train, 0, o.Order).(*mat.Dense)
		testX := X.Slice(o.Train+o.Gap, o.Train+o.Gap+o.Test, 0, o.Order).(*mat.Dense)
		trainY, testY := y[:o.Train], y[o.Train+o.Gap:o.Train+o.Gap+o.Test]
		for _, name := range methods {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			l, skip, err := o.build(name, trainX, uint64(trial))
			if err != nil {
				return nil, fmt.Errorf("experiment: %s: %w", name, err)
			}
			curve := res.Curves[name]
			if curve == nil {
				curve = make([]float64, len(res.Steps))
				res.Curves[name] = curve
			}
			k := 0
			// Steps within the seed dictionary (iSPEED, siSPEED): the filter has seen those
			// samples only as dictionary entries, not learnt from them; record its untrained
			// test MSE there.
			for k < len(res.Steps) && res.Steps[k] <= skip {
				mse, err := testMSE(l, testX, testY)
				if err != nil {
					return nil, err
				}
				curve[k] += mse / float64(o.Trials)
				k++
			}
			for i := skip; i < o.Train; i++ {
				if err := l.update(trainX.RawRowView(i), trainY[i]); err != nil {
					return nil, fmt.Errorf("experiment: %s: %w", name, err)
				}
				if (i+1)%o.Every == 0 {
					for k < len(res.Steps) && res.Steps[k] <= i+1 {
						mse, err := testMSE(l, testX, testY)
						if err != nil {
							return nil, err
						}
						curve[k] += mse / float64(o.Trials)
						k++
					}
				}
			}
			mse, err := testMSE(l, testX, testY)
			if err != nil {
				return nil, err
			}
			res.Final[name] = append(res.Final[name], mse)
			res.Size[name] += float64(l.size()) / float64(o.Trials)
		}
		if o.Progress != nil {
			o.Progress(trial + 1)
		}
	}
	return res, nil
}

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

// build makes one method for one trial; skip is the number of training samples it has
// already consumed (the seed dictionary of iSPEED and siSPEED, which the curves count
// as seen).
func (o KAFOptions) build(name string, train *mat.Dense, seed uint64) (learner, int, error) {
	k := kernel.RBF{Sigma: o.Sigma}
	d := o.Order
	lms := func(m int) (kaf.Filter, error) { return kaf.NewLMS(m, o.Eta) }
	rls := func(m int) (kaf.Filter, error) { return kaf.NewRLS(m, kaf.RLSOptions{Delta: 1e-2}) }
	onMap := func(m interface {
		Map(dst, x []float64) error
		OutDim() int
	}, factory func(int) (kaf.Filter, error)) (learner, int, error) {
		f, err := factory(m.OutDim())
		if err != nil {
			return nil, 0, err
		}
		return &featureLearner{m: m, f: f, phi: make([]float64, m.OutDim())}, 0, nil
	}
	speed := func(dict mat.Matrix, m int, thr float64, factory func(int) (kaf.Filter, error), cap int) (learner, int, error) {
		s, err := kaf.NewSPEED(k, dict, kaf.SPEEDOptions{Components: m})
		if err != nil {
			return nil, 0, err
		}
		f, err := kaf.NewSPEEDFilter(s, factory, kaf.SPEEDFilterOptions{Threshold: thr, MaxDictionary: cap})
		if err != nil {
			return nil, 0, err
		}
		return speedLearner{f}, 0, nil
	}
	seeded := func(thr float64, factory func(int) (kaf.Filter, error), cap int) (learner, int, error) {
		l, _, err := speed(train.Slice(0, o.Seed100, 0, d), 30, thr, factory, cap)
		return l, o.Seed100, err
	}
	rff := func(form features.Form) (*features.RFF, error) {
		return features.NewRFF(d, features.RFFOptions{Dim: o.Features, Sigma: o.Sigma, Form: form, Seed: seed})
	}
	switch name {
	case "LMS":
		return onMap(identity(d), lms)
	case "KLMS", "KLMS η=0.2", "QKLMS":
		eta, eps := o.Eta, 0.0
		if name == "KLMS η=0.2" {
			eta = o.KLMSEta
		}
		if name == "QKLMS" {
			eps = o.Quantisation
		}
		f, err := kaf.NewKLMS(k, d, eta, eps)
		return klmsLearner{f}, 0, err
	case "RFF cos-sin", "RFF phase", "KRLS on RFF":
		form, factory := features.CosSin, lms
		if name == "RFF phase" {
			form = features.RandomPhase
		}
		if name == "KRLS on RFF" {
			factory = rls
		}
		m, err := rff(form)
		if err != nil {
			return nil, 0, err
		}
		return onMap(m, factory)
	case "Taylor":
		m, err := features.NewTaylor(d, features.TaylorOptions{Degree: 4, Sigma: o.Sigma, Dim: o.Features})
		if err != nil {
			return nil, 0, err
		}
		return onMap(m, lms)
	case "GQ":
		m, err := features.NewQuadrature(d, features.QuadratureOptions{Dim: o.Features, Sigma: o.Sigma, Seed: seed})
		if err != nil {
			return nil, 0, err
		}
		return onMap(m, lms)
	case "SPEED m=30", "SPEED m=50", "KRLS on SPEED m=30":
		m, factory := 30, lms
		if name == "SPEED m=50" {
			m = 50
		}
		if name == "KRLS on SPEED m=30" {
			factory = rls
		}
		return speed(train, m, -1, factory, 0)
	case "sparse SPEED":
		// Batch SPEED on the dictionary siSPEED's novelty criterion selects from the
		// training inputs in one pass.
		var rows []int
		var dict mat.Dense
		for i := range o.Train {
			x := train.RawRowView(i)
			novel := true
			for _, r := range rows {
				if dist(train.RawRowView(r), x) < o.Threshold {
					novel = false
					break
				}
			}
			if novel {
				rows = append(rows, i)
			}
		}
		dict.ReuseAs(len(rows), d)
		for j, r := range rows {
			dict.SetRow(j, train.RawRowView(r))
		}
		return speed(&dict, 30, -1, lms, 0)
	case "iSPEED":
		return seeded(0, lms, o.ISPEEDCap)
	case "siSPEED":
		return seeded(o.Threshold, lms, 0)
	case "KRLS on siSPEED":
		return seeded(o.Threshold, rls, 0)
	}
	return nil, 0, fmt.Errorf("unknown method %q", name)
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		t := a[i] - b[i]
		s += t * t
	}
	return math.Sqrt(s)
}
