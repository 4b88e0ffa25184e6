package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/paper"
)

func experimentCommand(e env) *cobra.Command {
	var (
		sf            studyFlags
		datasets      string
		mmax, runs    int
		nysN, nysMMax int
		seed          uint64
		withPaper     bool
		magicRows     int
	)
	c := &cobra.Command{
		Use:   "experiment",
		Short: "Reproduce Hallgren and Northrop's Figures 1 and 2 as CSV and PNG",
		Long: `experiment reproduces the two experiments of "Incremental kernel PCA and the Nyström
method" (Hallgren and Northrop, 2018) on the embedded MAGIC (first 10 000 rows, as the paper)
and Yeast data, with the RBF kernel and the median-distance bandwidth:

  Figure 1  the drift ‖K' − VΛVᵀ‖ of the incremental mean-adjusted decomposition after each point,
            from m = 21 to --mmax: one run in file order, the mean over --runs random orders, and
            (--paper) the paper's own four-update algorithm;
  Figure 2  the error ‖K − K̃‖ of the incremental Nyström approximation of the first --nystrom-n
            points for 1 to --nystrom-mmax landmarks.

Both in the Frobenius, spectral and trace norms. It writes fig1-DATASET.csv/.png and
fig2-DATASET.csv/.png to --out, and a summary to standard output. The defaults finish in a
minute or two; the paper's sizes are --mmax 100 --runs 50 for Figure 1 and --nystrom-n 1000
for Figure 2 (the defaults go further). --replot draws the figures again from the CSV files.`,
	}
	f := c.Flags()
	sf.add(f, "ikpca-experiment")
	f.StringVar(&datasets, "datasets", "magic,yeast", "data sets: magic, yeast or both")
	f.IntVar(&mmax, "mmax", 200, "Figure 1: last model size")
	f.IntVar(&runs, "runs", 50, "Figure 1: random orders averaged")
	f.BoolVar(&withPaper, "paper", true, "Figure 1: also run the paper's algorithm (one run)")
	f.IntVar(&nysN, "nystrom-n", 1000, "Figure 2: number of points approximated")
	f.IntVar(&nysMMax, "nystrom-mmax", 200, "Figure 2: largest number of landmarks")
	f.Uint64Var(&seed, "seed", 1, "seed of the random orders")
	f.IntVar(&magicRows, "magic-rows", 10000, "MAGIC rows used (the paper: the first 10 000)")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if mmax <= 20 || runs < 0 || nysN < 1 || nysMMax < 1 || nysMMax > nysN || magicRows < 2 {
			return usageError{fmt.Errorf("need --mmax > 20, --runs ≥ 0, 1 ≤ --nystrom-mmax ≤ --nystrom-n, --magic-rows ≥ 2")}
		}
		var names []string
		for _, name := range strings.Split(datasets, ",") {
			names = append(names, strings.TrimSpace(name))
		}
		o := paper.Options{Datasets: names, MagicRows: magicRows, M0: 20, MMax: mmax, Runs: runs, Paper: withPaper,
			NystromN: nysN, NystromMMax: nysMMax, Seed: seed}
		return runStudy(cmd.Context(), e, sf, studyCommand{title: "Hallgren and Northrop's Figures 1 and 2", plots: paper.Plots,
			progress: &o.Progress, run: func(ctx context.Context) ([]study.Output, error) { return paper.Run(ctx, o) }})
	}
	return c
}
