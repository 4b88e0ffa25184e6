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

// build makes one method for one trial; skip is the number of training samples it has
// already consumed (the seed dictionary of iSPEED and siSPEED, which the curves count
// as seen).
func (o PredictOptions) build(name string, train *mat.Dense, seed uint64) (learner, int, error) {
	k := kernel.RBF{Sigma: o.Sigma}
	d := o.Order
	lms := func(m int) (kaf.Filter, error) { return kaf.NewLMS(m, o.Eta) }
	rls := func(m int) (kaf.Filter, error) { return kaf.NewRLS(m, kaf.RLSOptions{Delta: 1e-2}) }
	onMap := func(m featureMap, factory func(int) (kaf.Filter, error)) (learner, int, error) {
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
	onMapOf := func(m featureMap, err error) (learner, int, error) {
		if err != nil {
			return nil, 0, err
		}
		return onMap(m, lms)
	}
	seeded := func(thr float64, factory func(int) (kaf.Filter, error), cap int) (learner, int, error) {
		l, _, err := speed(train.Slice(0, o.Seed100, 0, d), 30, thr, factory, cap)
		return l, o.Seed100, err
	}
	rff := func(form features.Form) (*features.RFF, error) {
		return features.NewRFF(kernel.RBF{Sigma: o.Sigma}, d, features.RFFOptions{Dim: o.Features, Form: form, Seed: seed})
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
		return onMapOf(features.NewTaylor(kernel.RBF{Sigma: o.Sigma}, d, features.TaylorOptions{Degree: 4, Dim: o.Features}))
	case "GQ":
		return onMapOf(features.NewQuadrature(kernel.RBF{Sigma: o.Sigma}, d, features.QuadratureOptions{Dim: o.Features, Seed: seed}))
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
		return speed(noveltyDictionary(train, o.Train, o.Threshold), 30, -1, lms, 0)
	case "iSPEED":
		return seeded(0, lms, o.ISPEEDCap)
	case "siSPEED":
		return seeded(o.Threshold, lms, 0)
	case "KRLS on siSPEED":
		return seeded(o.Threshold, rls, 0)
	}
	return nil, 0, fmt.Errorf("%w: unknown method %q", study.ErrOptions, name)
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
