package main

import (
	"context"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/kaf"
)

func kafCommand(e env) *cobra.Command {
	o := kaf.PredictOptions{Train: 2000, Test: 200, Gap: 200, Order: 7, Every: 20, Noise: 0.02, Eta: 0.1,
		KLMSEta: 0.2, Sigma: 1 / math.Sqrt2, Features: 330, Quantisation: 0.28, Threshold: 0.3, Seed100: 100, ISPEEDCap: 400}
	var (
		sf    studyFlags
		basis kaf.BasisOptions
	)
	c := &cobra.Command{
		Use:   "kaf",
		Short: "Kernel adaptive filtering on Mackey–Glass: SPEED, iSPEED, siSPEED against KLMS, QKLMS and explicit features",
		Long: `kaf runs Li & Príncipe's SPEED experiments (package kaf) on the Mackey–Glass series (τ = 30,
sampled every 6, standardised to [−1, 1], noise σ = --noise, time embedding 7): learning curves
(test MSE against training samples, mean of --trials trials, each --train consecutive training
samples from a random start and --test test samples --gap steps later) for LMS, KLMS, QKLMS,
RFF-KLMS (both forms), Taylor and Gaussian-quadrature features (D = --features), SPEED (m = 30
and 50 of the training dictionary), sparse SPEED, iSPEED and siSPEED (from --seed-dictionary
samples) and the KRLS versions; plus the Gram reconstruction error of the eigenmap against m
(Figure 2) and the largest principal angle between iSPEED and batch SPEED as the dictionary
grows (Figure 3). Writes kaf-curves.csv/png, speed-basis.csv, speed-gram.png, speed-angle.png
and kaf.md to --out. --replot draws the figures again from the CSV files.

The kernel is exp(−‖d‖²) (σ = 1/√2) as in the paper's KLMS anchor. The novelty threshold and
QKLMS's quantisation are in the units of the standardised series: 0.3 and 0.28 give dictionaries
of about 350 and 400 samples of 2000 (the paper's 0.06 refers to its own scaling).`,
	}
	f := c.Flags()
	sf.add(f, "ikpca-kaf")
	f.IntVar(&o.Trials, "trials", 100, "independent trials")
	f.IntVar(&o.Train, "train", o.Train, "training samples per trial")
	f.IntVar(&o.Test, "test", o.Test, "test samples per trial")
	f.IntVar(&o.Gap, "gap", o.Gap, "steps between the training and the test samples")
	f.IntVar(&o.Every, "every", o.Every, "training samples between two test-MSE measurements")
	f.Float64Var(&o.Noise, "noise", o.Noise, "standard deviation of the additive noise")
	f.Float64Var(&o.Eta, "eta", o.Eta, "learning rate of the LMS-type filters")
	f.Float64Var(&o.Quantisation, "quantisation", o.Quantisation, "QKLMS quantisation size ε")
	f.Float64Var(&o.Threshold, "threshold", o.Threshold, "siSPEED novelty threshold")
	f.IntVar(&o.Seed100, "seed-dictionary", o.Seed100, "samples iSPEED and siSPEED start from")
	f.IntVar(&o.ISPEEDCap, "ispeed-cap", o.ISPEEDCap, "largest iSPEED dictionary")
	f.IntVar(&basis.N, "basis-n", 1000, "Figures 2 and 3: dictionary size")
	f.IntVar(&basis.M, "basis-m", 30, "Figure 3: eigenfunctions compared")
	f.IntVar(&basis.Every, "basis-every", 50, "Figure 3: dictionary sizes between two comparisons")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the starts, the noise and the random features")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if o.Trials < 1 || o.Train < 10 || o.Test < 1 || o.Gap < 0 || o.Every < 1 || o.Every > o.Train || o.Seed100 < 2 || o.Seed100 >= o.Train ||
			basis.N < 10 || basis.M < 1 || basis.M >= basis.N || basis.Every < 1 || o.Noise < 0 || !(o.Eta > 0) || o.Quantisation < 0 {
			return usageError{fmt.Errorf("need --trials ≥ 1, --train ≥ 10, --test ≥ 1, --gap ≥ 0, 1 ≤ --every ≤ --train, 2 ≤ --seed-dictionary < --train, --basis-n ≥ 10, 1 ≤ --basis-m < --basis-n, --noise ≥ 0, --eta > 0, --quantisation ≥ 0")}
		}
		basis.Seed, basis.Sigma = min(o.Seed100, basis.N-1), o.Sigma
		ko := kaf.Options{Predict: o, Basis: basis}
		return runStudy(cmd.Context(), e, sf, studyCommand{title: "Kernel adaptive filtering on SPEED features", summary: "kaf.md",
			plots:    kaf.Plots,
			progress: &ko.Progress, run: func(ctx context.Context) ([]study.Output, error) { return kaf.Run(ctx, ko) }})
	}
	return c
}
