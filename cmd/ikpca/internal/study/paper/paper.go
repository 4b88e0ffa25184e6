// Package paper reproduces the two experiments of Hallgren and Northrop, "Incremental
// kernel PCA and the Nyström method" (2018), the seed paper of this module:
//
//   - Figure 1 ([Drift]): the drift of the incremental mean-adjusted decomposition from
//     the matrix it decomposes, ‖K'ₘ − VΛVᵀ‖ after each added point, m = m0+1, …, mmax,
//     for one run in file order, the mean over random orders, and (for comparison) the
//     paper's own algorithm;
//   - Figure 2 ([Nystrom]): the error ‖K − K̃ₘ‖ of the incremental Nyström approximation
//     of the kernel matrix of n points as landmarks are added.
//
// Both measure three norms: Frobenius, spectral and trace (nuclear). [Run] runs both on
// the embedded data sets and returns the outputs fig1-DATASET and fig2-DATASET (a CSV
// table and the figure drawn from it by [Plots]); the command "ikpca experiment" writes
// them.
package paper

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
)

// Options configure Run.
type Options struct {
	// Datasets are the embedded data sets to run on, among DataSets.
	Datasets []string
	// MagicRows is the number of MAGIC rows used (the paper: the first 10 000).
	MagicRows int
	// M0 is the size of the starting batch decomposition of Figure 1 (the paper: 20),
	// MMax the last model size, Runs the number of random orders averaged, and Paper
	// whether the paper's algorithm runs too (one run, in file order).
	M0, MMax, Runs int
	Paper          bool
	// NystromN is the number of points whose kernel matrix Figure 2 approximates (the
	// paper: 1000), NystromMMax the largest number of landmarks.
	NystromN, NystromMMax int
	// Seed seeds the random orders and the landmark order.
	Seed uint64
	// Progress reports the progress of each figure on each data set.
	Progress study.Progress
}

// DataSets are the data sets Run knows.
var DataSets = []string{"magic", "yeast"}

// Run runs both experiments on every data set and returns their outputs, with figures.
// It stops early with ctx's error when ctx is done. Options it cannot run with give an
// error wrapping study.ErrOptions.
func Run(ctx context.Context, o Options) ([]study.Output, error) {
	// Every data set's sizes, before any experiment runs.
	points := make([]*mat.Dense, len(o.Datasets))
	for i, name := range o.Datasets {
		x, err := load(name, o.MagicRows)
		if err != nil {
			return nil, err
		}
		if rows, _ := x.Dims(); o.MMax > rows || o.NystromN > rows || o.NystromN < 1 {
			return nil, fmt.Errorf("%w: %s has %d points: the model size %d and the Nyström size %d must not exceed it",
				study.ErrOptions, name, rows, o.MMax, o.NystromN)
		}
		points[i] = x
	}
	var outs []study.Output
	for i, name := range o.Datasets {
		x := points[i]
		rows, d := x.Dims()
		sigma, err := kernel.DefaultBandwidth(x)
		if err != nil {
			return nil, err
		}
		k := kernel.RBF{Sigma: sigma}
		drift, err := Drift(ctx, DriftOptions{Data: x, Kernel: k, M0: o.M0, MMax: o.MMax, Runs: o.Runs, Seed: o.Seed,
			Paper: o.Paper, Progress: o.Progress.Stage(name + ": Figure 1")})
		if err != nil {
			return nil, err
		}
		nys, err := Nystrom(ctx, NystromOptions{Data: mat.DenseCopyOf(x.Slice(0, o.NystromN, 0, d)), Kernel: k,
			MMax: o.NystromMMax, Seed: o.Seed, Progress: o.Progress.Stage(name + ": Figure 2")})
		if err != nil {
			return nil, err
		}
		outs = append(outs, drift.output(name, rows, sigma), nys.output(name))
	}
	return study.Draw(outs, Plots)
}

// load returns the points of an embedded data set: the first rows of MAGIC, or Yeast.
func load(name string, magicRows int) (*mat.Dense, error) {
	switch name {
	case "yeast":
		return data.Yeast().X, nil
	case "magic":
		if magicRows < 2 {
			return nil, fmt.Errorf("%w: %d MAGIC rows", study.ErrOptions, magicRows)
		}
		x := data.Magic().X
		rows, d := x.Dims()
		return mat.DenseCopyOf(x.Slice(0, min(magicRows, rows), 0, d)), nil
	}
	return nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, name, slices.Clone(DataSets))
}
