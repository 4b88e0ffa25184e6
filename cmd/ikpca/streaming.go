package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/streaming"
)

func streamingCommand(e env) *cobra.Command {
	var (
		sf                        studyFlags
		datasets, ells            string
		n, test, features, steps  int
		exact                     bool
		toyRuns, toyN, toyPasses  int
		rffN, rffSeeds, rffMaxLog int
		khaRate, khaDecay, tol    float64
		seed                      uint64
		nyDatasets, nyRanks       string
		nyN, nyK                  int
	)
	c := &cobra.Command{
		Use:   "streaming",
		Short: "Compare the streaming methods (SKPCA, RNCA, KRQA, KHA) with Nyström and the exact model, CSV and PNG",
		Long:  streamingLong,
	}
	f := c.Flags()
	sf.add(f, "ikpca-streaming")
	f.StringVar(&datasets, "datasets", "cpu_act,a9a", "data sets for the kernel approximation: cpu_act, a9a, magic; empty: none")
	f.IntVar(&n, "n", 2000, "training points per data set")
	f.IntVar(&test, "test", 500, "held-out points projected")
	f.IntVar(&features, "features", 1000, "random Fourier features D")
	f.StringVar(&ells, "ells", "2,5,10,20,30,50", "sketch sizes ℓ")
	f.BoolVar(&exact, "exact", true, "include the exact incremental model")
	f.IntVar(&steps, "exact-steps", 20, "incremental steps timed for the exact model (after a batch start)")
	f.IntVar(&toyRuns, "toy-runs", 100, "Monte-Carlo runs of the toy (0: skip)")
	f.IntVar(&toyN, "toy-n", 200, "toy samples")
	f.IntVar(&toyPasses, "toy-passes", 300, "passes over the toy samples")
	f.Float64Var(&khaRate, "kha-rate", 0.05, "KHA learning rate η₀")
	f.Float64Var(&khaDecay, "kha-decay", 0, "KHA learning-rate decay τ (0: constant)")
	f.Float64Var(&tol, "tolerance", 1e-3, "relative eigenvalue error counted as converged")
	f.IntVar(&rffN, "rff-n", 300, "points for the random-feature convergence (0: skip)")
	f.IntVar(&rffSeeds, "rff-seeds", 5, "feature maps averaged per dimension")
	f.IntVar(&rffMaxLog, "rff-maxlog", 13, "largest feature dimension, as a power of two")
	f.Uint64Var(&seed, "seed", 1, "seed of the samples, features and initial directions")
	f.StringVar(&nyDatasets, "nyskpca", "", "data sets for Nyström kernel PCA against exact kernel PCA: magic, yeast, a9a; empty: none")
	f.IntVar(&nyN, "nyskpca-n", 10000, "points per data set for Nyström kernel PCA (at most the data set's)")
	f.StringVar(&nyRanks, "nyskpca-ranks", "50,100,200,500", "numbers of landmarks r for Nyström kernel PCA")
	f.IntVar(&nyK, "nyskpca-k", 10, "leading components compared for Nyström kernel PCA")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ellList, err := intList("ells", ells, 1)
		if err != nil {
			return err
		}
		if len(ellList) == 0 || n < 2 || test < 1 || features < 2 || features%2 != 0 || toyRuns < 0 || toyN < 4 || toyPasses < 1 || !(tol > 0) ||
			rffN < 0 || rffN == 1 || rffSeeds < 1 || rffMaxLog < 5 || rffMaxLog > 16 {
			return usageError{fmt.Errorf("need --ells, --n ≥ 2, --test ≥ 1, an even --features ≥ 2, --toy-n ≥ 4, --toy-passes ≥ 1, --tolerance > 0, --rff-n 0 or ≥ 2, --rff-seeds ≥ 1, 5 ≤ --rff-maxlog ≤ 16")}
		}
		rankList, err := intList("nyskpca-ranks", nyRanks, 2)
		if err != nil {
			return err
		}
		if nyN < 3 || nyK < 1 {
			return usageError{fmt.Errorf("need --nyskpca-n ≥ 3 and --nyskpca-k ≥ 1")}
		}
		names, nyNames := nameList(datasets), nameList(nyDatasets)
		o := streaming.Options{Datasets: names,
			Approx: streaming.ApproxOptions{N: n, Test: test, Features: features, Ells: ellList, Exact: exact, ExactSteps: steps, Seed: seed},
			Toy: streaming.ToyOptions{Runs: toyRuns, N: toyN, Passes: toyPasses, KHARate: khaRate, KHADecay: khaDecay,
				Tolerance: tol, Seed: seed},
			RFF:             streaming.RFFOptions{Dataset: "cpu_act", N: rffN, Seeds: rffSeeds, MaxLog: rffMaxLog, Seed: seed},
			NystromDatasets: nyNames,
			Nystrom:         streaming.NystromOptions{N: nyN, Ranks: rankList, Components: nyK, Seed: seed}}
		return runStudy(cmd.Context(), e, sf, studyCommand{title: "Streaming kernel PCA", summary: "streaming.md", plots: streaming.Plots,
			progress: &o.Progress, run: func(ctx context.Context) ([]study.Output, error) { return streaming.Run(ctx, o) }})
	}
	return c
}

// streamingLong is the help of the streaming command.
var streamingLong = `streaming runs the experiments of the streaming kernel PCA methods in package stream:

  Kernel approximation (Ghashami, Perry & Phillips 2016): on --n training points of each data
  set (cpu_act and a9a embedded; magic too), the spectral error ‖G − G̃‖₂ of the uncentred RBF
  kernel matrix (median-distance bandwidth) for SKPCA (random Fourier features + Frequent
  Directions), RNCA (the same features, exact D×D eigendecomposition), Nyström (ℓ landmarks)
  and the exact model's top-ℓ truncation, for every --ells, with memory, training time and
  the time to project --test held-out points. Writes skpca-DATASET.csv and three PNGs (error
  against ℓ, against memory, and times).

  Online kernel PCA on the toy (x ~ U[−1, 1], y = x² + N(0, 0.2²), kernel (aᵀb)²): KRQA and
  KHA over --toy-runs Monte-Carlo runs of --toy-n samples presented --toy-passes times,
  against the exact eigenvalues. Writes toy.csv (one row per run), toy-curves.csv and toy.png
  (convergence), and the mean ± sd table.

  Random Fourier features (--rff-n points of cpu_act): the error of z(x)ᵀz(y) against the
  Gaussian kernel for D = 16 … 2^--rff-maxlog, both forms, with the fitted rate (−½ is
  O(1/√D)). Writes rff.csv and rff.png.

  Nyström kernel PCA (package nystrom), with --nyskpca data sets (magic, yeast, a9a): on
  --nyskpca-n points, the top --nyskpca-k eigenvalues and eigenvector spaces against exact
  kernel PCA (Lanczos on the n×n kernel matrix) for --nyskpca-ranks landmarks chosen
  uniformly, from the stream and greedily, beside SKPCA at the same memory. Writes
  nyskpca-DATASET.csv.

A markdown summary of them all goes to standard output and to streaming.md in --out.
--replot draws the figures again from the CSV files.`
