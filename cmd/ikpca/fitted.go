package main

import (
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// fitted is what fit asks of the model it streams, summarises and writes: the methods
// kpca.Model and kpca.RankOneModel (--method rank-one) share, and Rank and ErrorBound,
// which a RankOneModel — exact, every pair — answers through rankOneFit. What only a
// kpca.Model does (Polish, Certify, KeepKernel) is asked of a *kpca.Model.
type fitted interface {
	Add(x []float64) error
	AddBatch(X mat.Matrix) error
	Values(dst []float64) []float64
	Len() int
	Centred() bool
	Components() int
	ExplainedVariance(dst []float64) []float64
	Scores(dst *mat.Dense, k int) error
	MarshalBinaryTo(w io.Writer) (int, error)
	Kernel() kernel.Kernel
	Options() kpca.Options
	Rank() int
	ErrorBound() float64
}

// rankOneFit is a kpca.RankOneModel as fit sees it: it keeps every eigenpair, so that
// it tracks no rank and has no truncation to bound.
type rankOneFit struct{ *kpca.RankOneModel }

func (rankOneFit) Rank() int           { return 0 }
func (rankOneFit) ErrorBound() float64 { return 0 }

// fitStart fits the starting batch of a stream: a kpca.Model, or with --method rank-one
// a kpca.RankOneModel.
func fitStart(k kernel.Kernel, X mat.Matrix, opts kpca.Options, rankOne bool) (fitted, error) {
	if rankOne {
		md, err := kpca.FitRankOne(k, X, opts)
		if err != nil {
			return nil, err
		}
		return rankOneFit{md}, nil
	}
	md, err := kpca.Fit(k, X, opts)
	if err != nil {
		return nil, err
	}
	return md, nil
}
