package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/tracking"
)

// trackingShort are the tiny sizes of tracking --short, for flags not given.
var trackingShort = map[string]string{
	"magic-n": "400", "a9a-n": "300", "ranks": "5,10,20", "k": "5", "m0": "40", "exact-n": "150",
	"chinsuter-ranks": "5", "chunk": "50", "headline": "10",
	"window-per-class": "150", "window": "60", "window-rank": "8", "window-growing-rank": "10", "window-k": "3", "window-every": "10",
}

func trackingCommand(e env) *cobra.Command {
	var (
		sf                                        studyFlags
		datasets, ranks, csRanks, solvers         string
		magicN, a9aN, k, m0, exactN, ell          int
		chunk, headline                           int
		python, script                            string
		perClass, window, wRank, gRank, wK, every int
		wExact, short                             bool
		seed                                      uint64
	)
	c := &cobra.Command{
		Use:   "tracking",
		Short: "Measure rank-r tracking and sliding windows on MAGIC and a9a against batch KPCA, SKPCA, Chin–Suter and scikit-learn, CSV and PNG",
		Long:  trackingLong,
	}
	f := c.Flags()
	sf.add(f, "ikpca-tracking")
	f.StringVar(&datasets, "datasets", "magic,a9a", "data sets of the rank-r comparison: magic, a9a; empty: none")
	f.IntVar(&magicN, "magic-n", 0, "MAGIC points (0: all 19,020)")
	f.IntVar(&a9aN, "a9a-n", 10000, "a9a points (0: all 32,561, which scikit-learn's dense solver cannot fit in 24 GiB)")
	f.StringVar(&ranks, "ranks", "10,20,50,100", "ranks r of the rank-r models")
	f.IntVar(&k, "k", 10, "leading eigenpairs compared")
	f.IntVar(&m0, "m0", 200, "batch start of the rank-r, exact and Chin–Suter models (more than every rank)")
	f.IntVar(&exactN, "exact-n", 3000, "points of exact growth (0: none)")
	f.IntVar(&ell, "sketch-rows", 0, "SKPCA's sketch rows ℓ (0: r; negative: no SKPCA)")
	f.StringVar(&csRanks, "chinsuter-ranks", "10,20,50,100", "ranks at which compressed Chin–Suter runs (empty: none)")
	f.IntVar(&chunk, "chunk", 500, "Chin–Suter's chunk size c")
	f.StringVar(&solvers, "sklearn", "dense,arpack", "scikit-learn's KernelPCA eigen solvers fitted on all the points: dense, arpack; empty: none")
	f.StringVar(&python, "python", "/usr/bin/python3", "Python with scikit-learn")
	f.StringVar(&script, "sklearn-script", "bench/sklearn_fit.py", "the script that fits scikit-learn's KernelPCA")
	f.IntVar(&headline, "headline", 50, "the rank of MAGIC's headline (issue 13's targets are for 50)")
	f.IntVar(&perClass, "window-per-class", 1500, "window experiment: MAGIC rows of each class (0: no window experiment)")
	f.IntVar(&window, "window", 500, "window experiment: the window w, and the recent points of the batch reference")
	f.IntVar(&wRank, "window-rank", 20, "window experiment: rank of the rank-r window (0: none)")
	f.IntVar(&gRank, "window-growing-rank", 50, "window experiment: rank of the growing rank-r model (0: none)")
	f.BoolVar(&wExact, "window-exact", true, "window experiment: include a growing exact model")
	f.IntVar(&wK, "window-k", 5, "window experiment: dimension of the subspaces compared")
	f.IntVar(&every, "window-every", 25, "window experiment: points between measurements")
	f.BoolVar(&short, "short", false, "tiny sizes, to check that everything runs")
	f.Uint64Var(&seed, "seed", 1, "seed of the orders, samples and random features")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if short {
			if err := setUnchanged(f, trackingShort); err != nil {
				return err
			}
		}
		rankList, err := intList("ranks", ranks, 1)
		if err != nil {
			return err
		}
		csList, err := intList("chinsuter-ranks", csRanks, 1)
		if err != nil {
			return err
		}
		names, solverList := nameList(datasets), nameList(solvers)
		if len(names) > 0 && len(rankList) == 0 || magicN < 0 || a9aN < 0 || exactN < 0 || perClass < 0 || chunk < 1 {
			return usageError{fmt.Errorf("need --ranks, --magic-n, --a9a-n, --exact-n and --window-per-class ≥ 0, --chunk ≥ 1")}
		}
		o := tracking.Options{Headline: headline, Window: tracking.WindowOptions{PerClass: perClass, Size: window, WindowRank: wRank,
			Rank: gRank, Exact: wExact, Components: wK, Every: every, Seed: seed}}
		if perClass == 0 {
			o.Window.PerClass = -1
		}
		base := tracking.CompareOptions{Ranks: rankList, Components: k, M0: m0, ExactN: exactN, SketchRows: ell,
			ChinSuterRanks: csList, Chunk: chunk, Sklearn: solverList, Python: python, Script: script, Seed: seed}
		if o.Compare, err = trackingCompare(names, magicN, a9aN, base); err != nil {
			return err
		}
		return runStudy(cmd.Context(), e, sf, studyCommand{title: "Rank-r tracking and sliding windows", summary: "tracking.md", plots: tracking.Plots,
			progress: &o.Progress, run: func(ctx context.Context) ([]study.Output, error) { return tracking.Run(ctx, o) }})
	}
	return c
}

// trackingCompare returns the rank-r comparisons of the data sets names, each base with
// its data set and its points: magicN for MAGIC, a9aN for a9a.
func trackingCompare(names []string, magicN, a9aN int, base tracking.CompareOptions) ([]tracking.CompareOptions, error) {
	var out []tracking.CompareOptions
	for _, name := range names {
		if !slices.Contains(tracking.DataSets, name) {
			return nil, usageError{fmt.Errorf("--datasets: unknown data set %q (want %s)", name, strings.Join(tracking.DataSets, ", "))}
		}
		c := base
		c.Dataset, c.N = name, magicN
		if name == "a9a" {
			c.N = a9aN
		}
		out = append(out, c)
	}
	return out, nil
}

// setUnchanged gives each flag of f named in values that value, unless the command
// line set it.
func setUnchanged(f *pflag.FlagSet, values map[string]string) error {
	for name, v := range values {
		if !f.Changed(name) {
			if err := f.Set(name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// trackingLong is the help of the tracking command.
var trackingLong = `tracking measures what issue 13 asks of rank-r tracking (kpca.Options.Rank) and sliding windows
(kpca.Options.Window):

  Rank r on each of --datasets (magic: --magic-n points of a seeded random order, 0 for all
  19,020; a9a: --a9a-n of its 32,561), centred, Gaussian kernel with the median-distance
  bandwidth (kernel.DefaultBandwidth): for every r of --ranks a model started from a batch
  decomposition of the first --m0 points takes the others one at a time; its time, memory
  (Bytes, and peak resident memory beyond what the process held), top --k eigenvalues and
  subspaces, and its certificate against the true ‖K′ − K̃‖₂ are measured against a batch
  kernel PCA of all the points (Lanczos on the formed n×n kernel matrix: 2.9 GB for MAGIC).
  Beside it: exact growth to the first --exact-n points; SKPCA (--sketch-rows, 0 for r) and
  compressed Chin–Suter (r components, chunks of --chunk, at --chinsuter-ranks) with the
  largest D and n′ whose memory is the rank-r model's; and scikit-learn's KernelPCA fitted once
  on all the points with each of --sklearn's solvers, by --sklearn-script run with --python.
  Writes rank-DATASET.csv and .png and sines-DATASET.csv (the sine of every top-j subspace),
  and the --headline rank's row of MAGIC against issue 13's targets.

  A window (--window w) on a stream whose distribution changes: --window-per-class gamma rows
  of MAGIC, then as many hadron rows. Every --window-every points, the angle in feature space
  between the top --window-k subspace of each model — the window, a rank --window-rank window,
  a growing exact model (--window-exact) and a growing rank --window-growing-rank model — and
  that of a batch kernel PCA of the last w points. Writes window.csv and window.png.

A markdown summary goes to standard output and to tracking.md in --out. --replot draws the
figures again from the CSV files. --short runs everything at tiny sizes (seconds), to check
that it runs; flags given explicitly still apply.

The full run with the defaults takes about two hours on two idle cores and needs about 4 GB
for MAGIC's kernel matrix and scikit-learn's dense solver (8.4 GiB on all of MAGIC) besides:
compressed Chin–Suter at the rank-r models' memory takes most of it (its compressions cost
minutes each at r = 100), then scikit-learn's dense solver (about 10 minutes on MAGIC),
exact growth to 3000 points (a few minutes per data set) and the references. Without
Chin–Suter (--chinsuter-ranks "") and with --sklearn arpack it takes about half an hour.`
