package kaf

import (
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kaf"
	"github.com/ikpca/ikpca/kernel"
)

// learner is one method of one trial: a filter that learns from (input, desired) pairs
// and predicts.
type learner interface {
	update(x []float64, d float64) error
	predict(x []float64) (float64, error)
	size() int // the dictionary or feature size
}

// featureMap is an explicit feature map.
type featureMap interface {
	Map(dst, x []float64) error
	OutDim() int
}

// featureLearner is a linear filter on an explicit map.
type featureLearner struct {
	m   featureMap
	f   kaf.Filter
	phi []float64
}

// update maps x and adapts the filter towards d.
func (l *featureLearner) update(x []float64, d float64) error {
	if err := l.m.Map(l.phi, x); err != nil {
		return err
	}
	_, err := l.f.Update(l.phi, d)
	return err
}

// predict returns the filter's output on the map of x.
func (l *featureLearner) predict(x []float64) (float64, error) {
	if err := l.m.Map(l.phi, x); err != nil {
		return 0, err
	}
	return l.f.Predict(l.phi)
}

// size returns the dimension of the map.
func (l *featureLearner) size() int { return l.m.OutDim() }

// identity is the linear "map" of plain LMS.
type identity int

// Map copies x.
func (d identity) Map(dst, x []float64) error { copy(dst, x); return nil }

// OutDim returns the input dimension.
func (d identity) OutDim() int { return int(d) }

// klmsLearner is KLMS (or QKLMS) as a learner: its size is its dictionary's.
type klmsLearner struct{ f *kaf.KLMS }

func (l klmsLearner) update(x []float64, d float64) error  { _, err := l.f.Update(x, d); return err }
func (l klmsLearner) predict(x []float64) (float64, error) { return l.f.Predict(x) }
func (l klmsLearner) size() int                            { return l.f.Len() }

// speedLearner is a filter on SPEED eigenfunction features as a learner: its size is
// its map's dictionary's.
type speedLearner struct{ f *kaf.SPEEDFilter }

func (l speedLearner) update(x []float64, d float64) error  { _, err := l.f.Update(x, d); return err }
func (l speedLearner) predict(x []float64) (float64, error) { return l.f.Predict(x) }
func (l speedLearner) size() int                            { return l.f.Map().Len() }

// build makes one method for one trial; skip is the number of training samples it has
// already consumed (the seed dictionary of iSPEED and siSPEED, which the curves count
// as seen).
func (o PredictOptions) build(name string, train *mat.Dense, seed uint64) (learner, int, error) {
	switch name {
	case "LMS":
		return onMap(identity(o.Order), o.newLMS)
	case "KLMS", "KLMS η=0.2", "QKLMS":
		return o.buildKLMS(name)
	case "RFF cos-sin", "RFF phase", "KRLS on RFF":
		return o.buildRFF(name, seed)
	case "Taylor":
		return o.lmsOnMap(features.NewTaylor(kernel.RBF{Sigma: o.Sigma}, o.Order, features.TaylorOptions{Degree: 4, Dim: o.Features}))
	case "GQ":
		return o.lmsOnMap(features.NewQuadrature(kernel.RBF{Sigma: o.Sigma}, o.Order, features.QuadratureOptions{Dim: o.Features, Seed: seed}))
	case "SPEED m=30", "SPEED m=50", "KRLS on SPEED m=30":
		m, factory := 30, o.newLMS
		if name == "SPEED m=50" {
			m = 50
		}
		if name == "KRLS on SPEED m=30" {
			factory = newRLS
		}
		return o.speed(train, m, -1, factory, 0)
	case "sparse SPEED":
		// Batch SPEED on the dictionary siSPEED's novelty criterion selects from the
		// training inputs in one pass.
		return o.speed(noveltyDictionary(train, o.Train, o.Threshold), 30, -1, o.newLMS, 0)
	case "iSPEED":
		return o.seeded(train, 0, o.newLMS, o.ISPEEDCap)
	case "siSPEED":
		return o.seeded(train, o.Threshold, o.newLMS, 0)
	case "KRLS on siSPEED":
		return o.seeded(train, o.Threshold, newRLS, 0)
	}
	return nil, 0, fmt.Errorf("%w: unknown method %q", study.ErrOptions, name)
}

// newLMS returns an LMS filter of m weights with the experiment's learning rate; it is
// the filter factory of every LMS-type method.
func (o PredictOptions) newLMS(m int) (kaf.Filter, error) { return kaf.NewLMS(m, o.Eta) }

// newRLS returns an RLS filter of m weights; it is the filter factory of the KRLS
// methods, which all share the same regularisation.
func newRLS(m int) (kaf.Filter, error) { return kaf.NewRLS(m, kaf.RLSOptions{Delta: 1e-2}) }

// onMap returns a linear filter, made by factory, on the explicit map m; such a learner
// consumes no training samples before learning, so skip is 0.
func onMap(m featureMap, factory func(int) (kaf.Filter, error)) (learner, int, error) {
	f, err := factory(m.OutDim())
	if err != nil {
		return nil, 0, err
	}
	return &featureLearner{m: m, f: f, phi: make([]float64, m.OutDim())}, 0, nil
}

// lmsOnMap returns an LMS filter on the map m, or err if making the map failed; it
// takes a map constructor's results as they are, so that each explicit map is built
// in one line.
func (o PredictOptions) lmsOnMap(m featureMap, err error) (learner, int, error) {
	if err != nil {
		return nil, 0, err
	}
	return onMap(m, o.newLMS)
}

// buildKLMS makes the kernel LMS methods: KLMS with the common learning rate, the KLMS
// sanity anchor with its own rate, and QKLMS with its quantisation.
func (o PredictOptions) buildKLMS(name string) (learner, int, error) {
	eta, eps := o.Eta, 0.0
	if name == "KLMS η=0.2" {
		eta = o.KLMSEta
	}
	if name == "QKLMS" {
		eps = o.Quantisation
	}
	f, err := kaf.NewKLMS(kernel.RBF{Sigma: o.Sigma}, o.Order, eta, eps)
	return klmsLearner{f}, 0, err
}

// buildRFF makes the random Fourier feature methods: LMS on the cos-sin and on the
// random-phase forms, and RLS on the cos-sin form. The features are drawn from the
// trial's seed, so that every trial draws its own.
func (o PredictOptions) buildRFF(name string, seed uint64) (learner, int, error) {
	form, factory := features.CosSin, o.newLMS
	if name == "RFF phase" {
		form = features.RandomPhase
	}
	if name == "KRLS on RFF" {
		factory = newRLS
	}
	m, err := features.NewRFF(kernel.RBF{Sigma: o.Sigma}, o.Order, features.RFFOptions{Dim: o.Features, Form: form, Seed: seed})
	if err != nil {
		return nil, 0, err
	}
	return onMap(m, factory)
}

// speed returns a SPEED filter: the SPEED map of m components on the dictionary dict,
// and a filter made by factory on it, with the novelty threshold thr (negative: the
// dictionary is fixed) and the dictionary cap maxDict (0: none).
func (o PredictOptions) speed(dict mat.Matrix, m int, thr float64, factory func(int) (kaf.Filter, error), maxDict int) (learner, int, error) {
	s, err := kaf.NewSPEED(kernel.RBF{Sigma: o.Sigma}, dict, kaf.SPEEDOptions{Components: m})
	if err != nil {
		return nil, 0, err
	}
	f, err := kaf.NewSPEEDFilter(s, factory, kaf.SPEEDFilterOptions{Threshold: thr, MaxDictionary: maxDict})
	if err != nil {
		return nil, 0, err
	}
	return speedLearner{f}, 0, nil
}

// seeded returns a SPEED filter of 30 components that starts from the first Seed100
// training inputs as its dictionary (iSPEED and siSPEED); it reports them as consumed,
// even on error, so that the curves count them as seen.
func (o PredictOptions) seeded(train *mat.Dense, thr float64, factory func(int) (kaf.Filter, error), maxDict int) (learner, int, error) {
	l, _, err := o.speed(train.Slice(0, o.Seed100, 0, o.Order), 30, thr, factory, maxDict)
	return l, o.Seed100, err
}

// noveltyDictionary returns the rows, among the first n ≥ 1 of train, that lie at
// least threshold from every row kept before them: siSPEED's novelty criterion, in one
// pass.
func noveltyDictionary(train *mat.Dense, n int, threshold float64) *mat.Dense {
	var rows []int
	for i := range n {
		x := train.RawRowView(i)
		novel := true
		for _, r := range rows {
			if floats.Distance(train.RawRowView(r), x, 2) < threshold {
				novel = false
				break
			}
		}
		if novel {
			rows = append(rows, i)
		}
	}
	_, d := train.Dims()
	dict := mat.NewDense(len(rows), d, nil) // the first row is always novel
	for j, r := range rows {
		dict.SetRow(j, train.RawRowView(r))
	}
	return dict
}
