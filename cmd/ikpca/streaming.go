package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ikpca/ikpca/internal/experiment"
	"github.com/ikpca/ikpca/native"
)

func streamingCommand(e env) *cobra.Command {
	var (
		outDir, datasets, ells    string
		n, test, features, steps  int
		exact                     bool
		toyRuns, toyN, toyPasses  int
		rffN, rffSeeds, rffMaxLog int
		khaRate, khaDecay, tol    float64
		seed                      uint64
	)
	c := &cobra.Command{
		Use:   "streaming",
		Short: "Compare the streaming methods (SKPCA, RNCA, KRQA, KHA) with Nyström and the exact model, CSV and PNG",
		Long: `streaming runs the experiments of the streaming kernel PCA methods in package stream:

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

A markdown summary of all three goes to standard output and to streaming.md in --out.`,
	}
	f := c.Flags()
	f.StringVar(&outDir, "out", "ikpca-streaming", "directory for the CSV, PNG and markdown files (created)")
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
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		var ellList []int
		for _, s := range strings.Split(ells, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || v < 1 {
				return usageError{fmt.Errorf("--ells: bad entry %q", s)}
			}
			ellList = append(ellList, v)
		}
		if n < 2 || test < 1 || features < 2 || features%2 != 0 || toyRuns < 0 || toyN < 4 || toyPasses < 1 || !(tol > 0) ||
			rffN < 0 || rffN == 1 || rffSeeds < 1 || rffMaxLog < 5 || rffMaxLog > 16 {
			return usageError{fmt.Errorf("need --n ≥ 2, --test ≥ 1, an even --features ≥ 2, --toy-n ≥ 4, --toy-passes ≥ 1, --tolerance > 0, --rff-n 0 or ≥ 2, --rff-seeds ≥ 1, 5 ≤ --rff-maxlog ≤ 16")}
		}
		native.Use()
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
		var md bytes.Buffer
		out := io.MultiWriter(e.out, &md)
		fmt.Fprintf(out, "## Streaming kernel PCA (%s)\n\n", native.Active())
		if rffN > 0 {
			res, err := experiment.RFFConvergence(cmd.Context(), "cpu_act", rffN, rffSeeds, rffMaxLog, seed)
			if err != nil {
				return interruption(err)
			}
			if err := experiment.WriteRFFMarkdown(out, res); err != nil {
				return err
			}
			base := filepath.Join(outDir, "rff")
			if err := create(e, base+".csv", func(w io.Writer) error { return experiment.WriteRFFCSV(w, res) }); err != nil {
				return err
			}
			if err := create(e, base+".png", func(w io.Writer) error { return experiment.PlotRFF(w, res) }); err != nil {
				return err
			}
		}
		for _, name := range strings.Split(datasets, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			bar := newProgress(e, name, 4*len(ellList))
			done := 0
			res, err := experiment.Streaming(cmd.Context(), experiment.StreamingOptions{Dataset: name, N: n, Test: test,
				Features: features, Ells: ellList, Exact: exact, ExactSteps: steps, Seed: seed,
				Progress: func(string) { done++; bar.set(done) }})
			bar.finish()
			if err != nil {
				return interruption(err)
			}
			if err := experiment.WriteStreamingMarkdown(out, res); err != nil {
				return err
			}
			base := filepath.Join(outDir, "skpca-"+name)
			if err := create(e, base+".csv", func(w io.Writer) error { return experiment.WriteStreamingCSV(w, res) }); err != nil {
				return err
			}
			for _, x := range []string{"ell", "memory", "time"} {
				if err := create(e, base+"-"+x+".png", func(w io.Writer) error { return experiment.PlotStreaming(w, res, x) }); err != nil {
					return err
				}
			}
			fmt.Fprintf(e.errw, "wrote %s.csv and %s-{ell,memory,time}.png\n", base, base)
		}
		if toyRuns > 0 {
			bar := newProgress(e, "toy", toyRuns)
			res, err := experiment.Toy(cmd.Context(), experiment.ToyOptions{Runs: toyRuns, N: toyN, Passes: toyPasses,
				KHARate: khaRate, KHADecay: khaDecay, Tolerance: tol, Seed: seed, Progress: bar.set})
			bar.finish()
			if err != nil {
				return interruption(err)
			}
			if err := experiment.WriteToyMarkdown(out, res); err != nil {
				return err
			}
			base := filepath.Join(outDir, "toy")
			if err := create(e, base+".csv", func(w io.Writer) error { return experiment.WriteToyCSV(w, res) }); err != nil {
				return err
			}
			if err := create(e, base+"-curves.csv", func(w io.Writer) error { return experiment.WriteToyCurvesCSV(w, res) }); err != nil {
				return err
			}
			if err := create(e, base+".png", func(w io.Writer) error { return experiment.PlotToy(w, res) }); err != nil {
				return err
			}
		}
		return create(e, filepath.Join(outDir, "streaming.md"), func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err })
	}
	return c
}
