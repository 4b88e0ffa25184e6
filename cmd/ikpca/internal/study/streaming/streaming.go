// Package streaming runs the experiments of the streaming kernel PCA methods of package
// stream ("ikpca streaming"):
//
//   - [Approx]: the kernel-approximation comparison of SKPCA, RNCA, Nyström and the exact
//     model (after Ghashami, Perry & Phillips 2016);
//   - [Toy]: the online kernel PCA toy of the seed paper, for KRQA and KHA;
//   - [RFF]: the convergence rate of random Fourier features;
//   - [NystromKPCA]: the accuracy of Nyström kernel PCA (package nystrom) against exact
//     kernel PCA, for each landmark strategy and number of landmarks, beside SKPCA at
//     the same memory.
//
// [Run] runs them and returns their outputs: skpca-DATASET (a table, and the figures
// skpca-DATASET-ell, -memory and -time drawn from it), toy and toy-curves (the figure
// toy is drawn from toy-curves), rff, and nyskpca-DATASET (a table); [Plots] draws the
// figures.
package streaming

import (
	"context"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Options configure Run.
type Options struct {
	// Datasets are the data sets of the kernel-approximation comparison, among DataSets
	// (empty: none). Approx configures it; its Dataset and Progress are set by Run.
	Datasets []string
	Approx   ApproxOptions
	// Toy configures the online kernel PCA toy (Runs 0: skip); its Progress is set by
	// Run.
	Toy ToyOptions
	// RFF configures the random-feature convergence (N 0: skip); its Progress is set by
	// Run.
	RFF RFFOptions
	// NystromDatasets are the data sets of the Nyström kernel PCA study, among
	// NystromDataSets (empty: none). Nystrom configures it; its Dataset and Progress
	// are set by Run.
	NystromDatasets []string
	Nystrom         NystromOptions
	// Progress reports the progress of each experiment.
	Progress study.Progress
}

// Run runs the experiments and returns their outputs, with figures. It stops early with
// ctx's error when ctx is done. Options it cannot run with give an error wrapping
// study.ErrOptions, before any experiment runs.
func Run(ctx context.Context, o Options) ([]study.Output, error) {
	// Every experiment's options, before any of them runs.
	if err := o.check(); err != nil {
		return nil, err
	}
	var outs []study.Output
	if o.RFF.N > 0 {
		r := o.RFF
		r.Progress = o.Progress.Stage("random features")
		res, err := RFF(ctx, r)
		if err != nil {
			return nil, err
		}
		outs = append(outs, res.output())
	}
	for _, name := range o.Datasets {
		a := o.Approx
		a.Dataset, a.Progress = name, o.Progress.Stage(name)
		res, err := Approx(ctx, a)
		if err != nil {
			return nil, err
		}
		outs = append(outs, res.output())
	}
	for _, name := range o.NystromDatasets {
		ny := o.Nystrom
		ny.Dataset, ny.Progress = name, o.Progress.Stage("Nyström kernel PCA, "+name)
		res, err := NystromKPCA(ctx, ny)
		if err != nil {
			return nil, err
		}
		outs = append(outs, res.output())
	}
	if o.Toy.Runs > 0 {
		t := o.Toy
		t.Progress = o.Progress.Stage("toy")
		res, err := Toy(ctx, t)
		if err != nil {
			return nil, err
		}
		outs = append(outs, res.outputs()...)
	}
	return study.Draw(outs, Plots)
}
