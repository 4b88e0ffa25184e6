package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/experiment"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

func experimentCommand(e env) *cobra.Command {
	var (
		outDir        string
		datasets      string
		mmax, runs    int
		nysN, nysMMax int
		seed          uint64
		paper         bool
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
fig2-DATASET.csv/.png to --out. The defaults finish in a minute or two; the paper's sizes are
--mmax 100 --runs 50 for Figure 1 and --nystrom-n 1000 for Figure 2 (the defaults go further).`,
	}
	f := c.Flags()
	f.StringVar(&outDir, "out", "ikpca-experiment", "directory for the CSV and PNG files (created)")
	f.StringVar(&datasets, "datasets", "magic,yeast", "data sets: magic, yeast or both")
	f.IntVar(&mmax, "mmax", 200, "Figure 1: last model size")
	f.IntVar(&runs, "runs", 50, "Figure 1: random orders averaged")
	f.BoolVar(&paper, "paper", true, "Figure 1: also run the paper's algorithm (one run)")
	f.IntVar(&nysN, "nystrom-n", 1000, "Figure 2: number of points approximated")
	f.IntVar(&nysMMax, "nystrom-mmax", 200, "Figure 2: largest number of landmarks")
	f.Uint64Var(&seed, "seed", 1, "seed of the random orders")
	f.IntVar(&magicRows, "magic-rows", 10000, "MAGIC rows used (the paper: the first 10 000)")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if mmax <= 20 || runs < 0 || nysN < 1 || nysMMax < 1 || nysMMax > nysN || magicRows < 2 {
			return usageError{fmt.Errorf("need --mmax > 20, --runs ≥ 0, 1 ≤ --nystrom-mmax ≤ --nystrom-n, --magic-rows ≥ 2")}
		}
		native.Use()
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
		for _, name := range strings.Split(datasets, ",") {
			name = strings.TrimSpace(name)
			x, err := datasetPoints(name)
			if err != nil {
				return err
			}
			if name == "magic" {
				rows, d := x.Dims()
				x = mat.DenseCopyOf(x.Slice(0, min(magicRows, rows), 0, d))
			}
			if err := experimentOn(cmd.Context(), e, name, x, outDir, mmax, runs, paper, nysN, nysMMax, seed); err != nil {
				return err
			}
		}
		return nil
	}
	return c
}

func experimentOn(ctx context.Context, e env, name string, x *mat.Dense, dir string, mmax, runs int, paper bool, nysN, nysMMax int, seed uint64) error {
	rows, d := x.Dims()
	if mmax > rows || nysN > rows {
		return usageError{fmt.Errorf("%s has %d points: --mmax and --nystrom-n must not exceed it", name, rows)}
	}
	sigma, err := kernel.DefaultBandwidth(x)
	if err != nil {
		return err
	}
	k := kernel.RBF{Sigma: sigma}
	fmt.Fprintf(e.out, "%s: %d points, RBF σ = %.4g (median distance)\n", name, rows, sigma)

	bar := newProgress(e, name+": Figure 1", 1)
	drift, err := experiment.Drift(ctx, experiment.DriftOptions{Data: x, Kernel: k, M0: 20, MMax: mmax, Runs: runs, Seed: seed, Paper: paper,
		Progress: func(done, total int) { bar.total = total; bar.set(done) }})
	bar.finish()
	if err != nil {
		return interruption(err)
	}
	if err := writeFigure(e, dir, "fig1-"+name, func(w io.Writer) error { return experiment.WriteDriftCSV(w, drift) },
		func(w io.Writer) error {
			return experiment.PlotDrift(w, fmt.Sprintf("Figure 1, %s: drift of the mean-adjusted incremental KPCA", name), drift)
		}); err != nil {
		return err
	}
	last := len(drift.M) - 1
	fmt.Fprintf(e.out, "  Figure 1: at m = %d the drift is %.2g (Frobenius, mean of %d orders)", drift.M[last], drift.Mean[0][last], runs)
	if paper {
		fmt.Fprintf(e.out, "; the paper's algorithm %.2g", drift.Paper[0][last])
	}
	fmt.Fprintln(e.out)

	xn := mat.DenseCopyOf(x.Slice(0, nysN, 0, d))
	bar = newProgress(e, name+": Figure 2", nysMMax)
	nys, err := experiment.Nystrom(ctx, experiment.NystromOptions{Data: xn, Kernel: k, MMax: nysMMax, Seed: seed,
		Progress: func(done, _ int) { bar.set(done) }})
	bar.finish()
	if err != nil {
		return interruption(err)
	}
	if err := writeFigure(e, dir, "fig2-"+name, func(w io.Writer) error { return experiment.WriteNystromCSV(w, nys) },
		func(w io.Writer) error {
			return experiment.PlotNystrom(w, fmt.Sprintf("Figure 2, %s: incremental Nyström error, n = %d", name, nysN), nys)
		}); err != nil {
		return err
	}
	fmt.Fprintf(e.out, "  Figure 2: with %d landmarks ‖K − K̃‖_F = %.3g (%.2g of ‖K‖_F)\n", nysMMax, nys.Errors[0][nysMMax-1], nys.Errors[0][nysMMax-1]/nys.Norm)
	return nil
}

func writeFigure(e env, dir, base string, csvOut, pngOut func(io.Writer) error) error {
	if err := create(e, filepath.Join(dir, base+".csv"), csvOut); err != nil {
		return err
	}
	if err := create(e, filepath.Join(dir, base+".png"), pngOut); err != nil {
		return err
	}
	fmt.Fprintf(e.out, "  wrote %s.csv and %s.png\n", filepath.Join(dir, base), filepath.Join(dir, base))
	return nil
}

// interruption turns a context cancellation into errInterrupted.
func interruption(err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w", errInterrupted)
	}
	return err
}
