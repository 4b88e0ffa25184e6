package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

func demoCommand(e env) *cobra.Command {
	var n, m0, top int
	c := &cobra.Command{
		Use:   "demo",
		Short: "Stream the embedded Yeast data through incremental kernel PCA (the default command)",
		Long: `demo streams the embedded UCI Yeast data, point by point, through a mean-adjusted
incremental kernel PCA (Gaussian kernel, median-distance bandwidth) and prints the leading
eigenvalues, their explained variance, the drift from a batch kernel PCA of the same points,
the backend in use and the time per point.`,
	}
	c.Flags().IntVarP(&n, "n", "n", 600, "number of Yeast points to stream (at most 1484)")
	c.Flags().IntVar(&m0, "m0", 20, "points in the starting batch decomposition")
	c.Flags().IntVar(&top, "top", 5, "number of leading components to print")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		return runDemo(cmd, e, n, m0, top)
	}
	return c
}

func runDemo(cmd *cobra.Command, e env, n, m0, top int) error {
	out := e.out
	ds := data.Yeast()
	rows, cols := ds.X.Dims()
	switch {
	case n < 2 || n > rows:
		return usageError{fmt.Errorf("-n must be between 2 and %d, got %d", rows, n)}
	case m0 < 1 || m0 > n:
		return usageError{fmt.Errorf("--m0 must be between 1 and -n, got %d", m0)}
	case top < 1 || top >= n:
		return usageError{fmt.Errorf("--top must be between 1 and -n − 1, got %d", top)}
	}
	fmt.Fprintf(out, "backend:  %v\n", native.Use())

	x := mat.DenseCopyOf(ds.X.Slice(0, n, 0, cols))
	sigma, err := kernel.DefaultBandwidth(ds.X)
	if err != nil {
		return err
	}
	k := kernel.RBF{Sigma: sigma}
	fmt.Fprintf(out, "data:     UCI Yeast (embedded), %d of %d points × %d features; RBF kernel, σ = %.4f (median distance)\n",
		n, rows, cols, sigma)

	model, err := kpca.Fit(k, x.Slice(0, m0, 0, cols), kpca.Options{Components: kpca.All})
	if err != nil {
		return err
	}
	bar := newProgress(e, "adding points", n-m0)
	var total, last time.Duration
	deflated := 0
	for i := m0; i < n; i++ {
		if err := cmd.Context().Err(); err != nil {
			bar.finish()
			return fmt.Errorf("%w after %s", errInterrupted, count(model.Len(), "point"))
		}
		start := time.Now()
		if err := model.Add(x.RawRowView(i)); err != nil {
			return fmt.Errorf("point %d: %w", i, err)
		}
		last = time.Since(start)
		total += last
		deflated += model.Stats().Deflated
		bar.set(i - m0 + 1)
	}
	bar.finish()
	fmt.Fprintf(out, "stream:   %s added one at a time (mean-adjusted) in %v; last point %v; %s deflated, none dropped\n",
		count(n-m0, "point"), total.Round(time.Millisecond), last.Round(10*time.Microsecond), count(deflated, "component"))

	values := model.Values(nil)
	ev := model.ExplainedVariance(nil)
	fmt.Fprintf(out, "top %d:    ", top)
	for i := range top {
		fmt.Fprintf(out, "%.4f (%.1f%%)  ", values[i], 100*ev[i])
	}
	fmt.Fprintln(out)

	return compareDemo(out, model, k, x, top, last)
}

// compareDemo prints the demo's drift against a batch kernel PCA of the same points x
// and the time that takes, beside the last incremental step's, last.
func compareDemo(out io.Writer, model *kpca.Model, k kernel.Kernel, x *mat.Dense, top int, last time.Duration) error {
	values := model.Values(nil)
	n, cols := x.Dims()
	start := time.Now()
	batch, err := kpca.Fit(k, x, kpca.Options{Components: kpca.All})
	if err != nil {
		return err
	}
	batchTime := time.Since(start)
	want := batch.Values(nil)
	var worst float64
	for i := range values {
		worst = math.Max(worst, math.Abs(values[i]-want[i]))
	}
	var inc, ref mat.Dense
	probe := x.Slice(0, min(10, n), 0, cols)
	if err := model.Transform(&inc, probe, top); err != nil {
		return err
	}
	if err := batch.Transform(&ref, probe, top); err != nil {
		return err
	}
	var proj float64
	r, _ := inc.Dims()
	for i := range r {
		for j := range top {
			proj = math.Max(proj, math.Abs(math.Abs(inc.At(i, j))-math.Abs(ref.At(i, j))))
		}
	}
	d := model.Drift()
	fmt.Fprintf(out, "drift:    eigenvalues within %.1e·λmax of batch; projections within %.1e; probe: orthogonality %.1e, residual %.1e\n",
		worst/want[0], proj, d.Orthogonality, d.Residual)
	fmt.Fprintf(out, "batch:    a batch kernel PCA of the %d points takes %v; the last incremental step took %v\n",
		n, batchTime.Round(time.Millisecond), last.Round(10*time.Microsecond))
	return nil
}
