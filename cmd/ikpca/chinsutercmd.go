package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/chinsuter"
)

// nameList splits a comma-separated list of names, trimmed of white space; empty entries
// are dropped, so that "" is the empty list.
func nameList(s string) []string {
	var out []string
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// intList parses a comma-separated list of integers of at least lo and at most
// maxCount.
func intList(flag, s string, lo int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < lo || v > maxCount {
			return nil, usageError{fmt.Errorf("--%s: bad entry %q (want integers from %d to %d)", flag, f, lo, maxCount)}
		}
		out = append(out, v)
	}
	return out, nil
}

func chinSuterCommand(e env) *cobra.Command {
	var (
		sf                                        studyFlags
		sizes, costSizes                          string
		components, preImages, chunk, khaPasses   int
		exactMax, streamN, streamEvery, costSteps int
		khaRate                                   float64
		seed                                      uint64
	)
	c := &cobra.Command{
		Use:   "chinsuter",
		Short: "Compare Chin–Suter incremental kernel PCA with batch KPCA, KHA and the exact bordered update, CSV and PNG",
		Long: `chinsuter runs the experiments of package chinsuter (Chin & Suter 2007, incremental kernel PCA
by SVD updating with reduced-set compression):

  Training time on the seed paper's toy (x ~ U[−1, 1], y = x² + N(0, 0.2²), RBF σ = 1) for each
  of --sizes: batch kernel PCA (kernel matrix and eigendecomposition), Chin–Suter compressed
  (--components r, --preimages n′, chunks of --chunk points), KHA (--kha-passes passes) and, up to
  --exact-max points, the exact incremental models (ours, bordered, and Chin–Suter
  uncompressed). Writes timing.csv and timing.png (log–log, with fitted exponents), and the
  projections of the smallest size's points onto the first three components against batch
  (projections.csv, projections.png).

  The compressed model over a stream of --stream-n toy points in chunks of 1 and of --chunk,
  against batch kernel PCA every --stream-every points: principal angles, the error of λ₁,
  ‖α′ᵀK′α′ − I‖₂ and the memory. Writes stream.csv and stream.png.

  The per-point cost of the exact updates at each of --cost-sizes: Chin–Suter, our bordered
  update and the seed paper's four rank-one updates, each step paired with one m×m×m dgemm.
  Writes cost.csv.

A markdown summary goes to standard output and to chinsuter.md in --out. --replot draws the
figures again from the CSV files.`,
	}
	f := c.Flags()
	sf.add(f, "ikpca-chinsuter")
	f.StringVar(&sizes, "sizes", "520,1000,1510,2020,2530,3100", "toy sizes n timed")
	f.IntVar(&components, "components", 5, "components r of the compressed Chin–Suter model and of KHA")
	f.IntVar(&preImages, "preimages", 10, "pre-images n′ per vector of the compressed model")
	f.IntVar(&chunk, "chunk", 50, "chunk size c of the compressed model")
	f.IntVar(&khaPasses, "kha-passes", 10, "KHA passes over the points")
	f.Float64Var(&khaRate, "kha-rate", 0.05, "KHA learning rate")
	f.IntVar(&exactMax, "exact-max", 1000, "largest toy size at which the exact incremental models are timed")
	f.IntVar(&streamN, "stream-n", 3000, "points of the long stream (0: skip)")
	f.IntVar(&streamEvery, "stream-every", 500, "points between checks against batch on the stream")
	f.StringVar(&costSizes, "cost-sizes", "500,1000,2000", "sizes m of the per-point cost comparison (empty: skip)")
	f.IntVar(&costSteps, "cost-steps", 3, "steps timed per method and size")
	f.Uint64Var(&seed, "seed", 1, "seed of the data")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		sz, err := intList("sizes", sizes, 20)
		if err != nil {
			return err
		}
		cs, err := intList("cost-sizes", costSizes, 2)
		if err != nil {
			return err
		}
		if len(sz) == 0 || components < 1 || preImages < 1 || chunk < 1 || khaPasses < 1 || !(khaRate > 0) ||
			streamN < 0 || streamEvery < 1 || costSteps < 1 {
			return usageError{fmt.Errorf("need --sizes, --components, --preimages, --chunk, --kha-passes, --stream-every, --cost-steps ≥ 1, --kha-rate > 0 and --stream-n ≥ 0")}
		}
		o := chinsuter.Options{Sizes: sz, Components: components, PreImages: preImages, Chunk: chunk, KHAPasses: khaPasses,
			KHARate: khaRate, ExactMax: exactMax, StreamN: streamN, StreamEvery: streamEvery, CostSizes: cs, CostSteps: costSteps, Seed: seed}
		return runStudy(cmd.Context(), e, sf, studyCommand{title: "Chin–Suter incremental kernel PCA", summary: "chinsuter.md", plots: chinsuter.Plots,
			progress: &o.Progress, run: func(ctx context.Context) ([]study.Output, error) { return chinsuter.Run(ctx, o) }})
	}
	return c
}
