// Package kaf runs Li & Príncipe's SPEED experiments (package kaf) on the Mackey–Glass
// series ("ikpca kaf"):
//
//   - [Predict]: one-step prediction, the learning curves (test MSE against training
//     samples) of LMS, KLMS, QKLMS, filters on explicit features (random Fourier,
//     Taylor, Gaussian quadrature), SPEED, sparse SPEED, iSPEED, siSPEED and the KRLS
//     versions;
//   - [Basis]: the SPEED paper's Figures 2 and 3, the Gram reconstruction error of the
//     eigenmap against the number of eigenfunctions, and the largest principal angle
//     between iSPEED, grown one bordered update at a time, and batch SPEED.
//
// [Run] runs both and returns their outputs: kaf-curves (a table and the figure drawn
// from it) and speed-basis (a table, and the figures speed-gram and speed-angle drawn
// from it); [Plots] draws the figures.
package kaf

import (
	"context"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/kaf"
)

// Options configure Run.
type Options struct {
	// Predict configures the learning curves; Basis the eigenmap's figures. Their
	// Progress is set by Run.
	Predict PredictOptions
	Basis   BasisOptions
	// Progress reports the progress of both.
	Progress study.Progress
}

// Run runs both experiments and returns their outputs, with figures. It stops early with
// ctx's error when ctx is done. Options it cannot run with give an error wrapping
// study.ErrOptions.
func Run(ctx context.Context, o Options) ([]study.Output, error) {
	// Both experiments' options, before either runs.
	if err := o.Predict.check(); err != nil {
		return nil, err
	}
	if err := o.Basis.check(); err != nil {
		return nil, err
	}
	p := o.Predict
	p.Progress = o.Progress.Stage("prediction")
	pred, err := Predict(ctx, p)
	if err != nil {
		return nil, err
	}
	b := o.Basis
	b.Progress = o.Progress.Stage("eigenmap")
	basis, err := Basis(ctx, b)
	if err != nil {
		return nil, err
	}
	return study.Draw([]study.Output{pred.output(), basis.output()}, Plots)
}

// mackeyGlass returns the standardised series the experiments draw from: n samples of
// the Mackey–Glass series (τ = 30, sampled every 6, after 300 samples discarded),
// scaled to [−1, 1].
func mackeyGlass(n int) ([]float64, error) {
	s, err := kaf.MackeyGlass(n, kaf.MackeyGlassOptions{Discard: 300})
	if err != nil {
		return nil, err
	}
	return kaf.Standardise(s, -1, 1)
}
