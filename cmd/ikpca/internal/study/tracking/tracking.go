// Package tracking runs the measurements of rank-r tracking and sliding windows
// (kpca.Options Rank and Window; docs/design.md, "Rank-r tracking", "Removing a point")
// for "ikpca tracking":
//
//   - [Compare]: on one data set (MAGIC, a9a), rank-r models streamed one point at a
//     time for several r, against a batch kernel PCA of all the points (top pairs by
//     Lanczos on the formed kernel matrix): the top-k eigenvalues, the top-k subspace and
//     the best-separated leading one, time, memory (Bytes and peak resident) and the
//     certificate against the true ‖K′ − K̃‖₂; beside exact growth on a prefix, SKPCA and
//     compressed Chin–Suter at the rank-r model's memory, and scikit-learn's KernelPCA
//     (bench/sklearn_fit.py) fitted once on all the points;
//   - [Window]: MAGIC's two classes one after the other, and the angle between the top
//     subspace of window and growing models and a batch kernel PCA of the recent points.
//
// [Run] runs them and returns their outputs: rank-DATASET (a table and the figure drawn
// from it), sines-DATASET (a table: the sine of every top-j subspace), the headline
// (markdown: rank r on all of MAGIC against issue 13's targets) and window (a table and
// its figure); [Plots] draws the figures.
package tracking

import (
	"context"
	"fmt"
	"slices"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Options configure Run.
type Options struct {
	// Compare configures one comparison per data set; the Progress of each is set by Run.
	Compare []CompareOptions
	// Headline is the rank whose row of the MAGIC comparison the headline reports
	// (0: 50), if that comparison has it.
	Headline int
	// Window configures the window experiment (PerClass < 0: skip); its Progress is set
	// by Run.
	Window WindowOptions
	// Progress reports the progress of each stage.
	Progress study.Progress
}

// Run runs the comparisons and the window experiment and returns their outputs, with
// figures. It stops early with ctx's error when ctx is done; options it cannot run with
// give an error wrapping study.ErrOptions.
func Run(ctx context.Context, o Options) ([]study.Output, error) {
	if o.Headline == 0 {
		o.Headline = 50
	}
	// Every comparison's options and the window's, before any of them runs.
	for _, c := range o.Compare {
		if !slices.Contains(DataSets, c.Dataset) {
			return nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, c.Dataset, DataSets)
		}
		if err := c.prepare(rows(c.Dataset, c.N)); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Dataset, err)
		}
	}
	if w := o.Window; w.PerClass >= 0 {
		if err := w.prepare(); err != nil {
			return nil, fmt.Errorf("window: %w", err)
		}
	}
	var outs []study.Output
	for _, c := range o.Compare {
		c.Progress = o.Progress
		res, err := Compare(ctx, c)
		if err != nil {
			return nil, err
		}
		if c.Dataset == "magic" && slices.Contains(c.Ranks, o.Headline) {
			outs = append(outs, res.headline(o.Headline))
		}
		outs = append(outs, res.outputs()...)
	}
	if o.Window.PerClass >= 0 {
		w := o.Window
		w.Progress = o.Progress.Stage("window on MAGIC's classes")
		res, err := Window(ctx, w)
		if err != nil {
			return nil, err
		}
		outs = append(outs, res.output())
	}
	return study.Draw(outs, Plots)
}
