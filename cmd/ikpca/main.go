// Command ikpca demonstrates exact incremental kernel PCA.
//
// With no arguments it streams the embedded UCI Yeast data set, point by point, through
// a mean-adjusted incremental kernel PCA (kpca.Model, Gaussian kernel with the
// median-distance bandwidth): each point costs one bordering update of the
// eigendecomposition instead of a recomputation. It prints the leading eigenvalues and
// their explained variance, the drift of the incremental decomposition from a batch
// kernel PCA of the same points, the backend in use and the time per point.
//
// Usage:
//
//	go run ./cmd/ikpca [-n points] [-m0 start] [-top k]
//	go run -tags openblas ./cmd/ikpca        # with OpenBLAS (Debian: libopenblas-dev liblapacke-dev)
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ikpca:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ikpca", flag.ContinueOnError)
	fs.SetOutput(out)
	n := fs.Int("n", 600, "number of Yeast points to stream (at most 1484)")
	m0 := fs.Int("m0", 20, "points in the starting batch decomposition")
	top := fs.Int("top", 5, "number of leading components to print")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ds := data.Yeast()
	rows, cols := ds.X.Dims()
	if *n < 2 || *n > rows {
		return fmt.Errorf("-n must be between 2 and %d, got %d", rows, *n)
	}
	if *m0 < 1 || *m0 > *n {
		return fmt.Errorf("-m0 must be between 1 and -n, got %d", *m0)
	}
	if *top < 1 || *top >= *n {
		return fmt.Errorf("-top must be between 1 and -n − 1, got %d", *top)
	}
	fmt.Fprintf(out, "backend:  %v\n", native.Use())

	x := mat.DenseCopyOf(ds.X.Slice(0, *n, 0, cols))
	sigma, err := kernel.MedianDistance(ds.X, 1000)
	if err != nil {
		return err
	}
	k := kernel.RBF{Sigma: sigma}
	fmt.Fprintf(out, "data:     UCI Yeast (embedded), %d of %d points × %d features; %v (median distance)\n",
		*n, rows, cols, k)

	model, err := kpca.New(k, x.Slice(0, *m0, 0, cols), kpca.Options{})
	if err != nil {
		return err
	}
	var total, last time.Duration
	deflated := 0
	for i := *m0; i < *n; i++ {
		start := time.Now()
		if err := model.Add(x.RawRowView(i)); err != nil {
			return fmt.Errorf("point %d: %w", i, err)
		}
		last = time.Since(start)
		total += last
		deflated += model.Stats().Deflated
	}
	fmt.Fprintf(out, "stream:   %d points added one at a time (mean-adjusted) in %v; last point %v; %d components deflated, none dropped\n",
		*n-*m0, total.Round(time.Millisecond), last.Round(10*time.Microsecond), deflated)

	values := model.Values(nil)
	ev := model.ExplainedVariance(nil)
	fmt.Fprintf(out, "top %d:    ", *top)
	for i := range *top {
		fmt.Fprintf(out, "%.4f (%.1f%%)  ", values[i], 100*ev[i])
	}
	fmt.Fprintln(out)

	// Drift against a batch kernel PCA of the same points.
	start := time.Now()
	batch, err := kpca.New(k, x, kpca.Options{})
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
	if err := model.Transform(&inc, x.Slice(0, 10, 0, cols), *top); err != nil {
		return err
	}
	if err := batch.Transform(&ref, x.Slice(0, 10, 0, cols), *top); err != nil {
		return err
	}
	var proj float64
	for i := range 10 {
		for j := range *top {
			proj = math.Max(proj, math.Abs(math.Abs(inc.At(i, j))-math.Abs(ref.At(i, j))))
		}
	}
	d := model.Drift()
	fmt.Fprintf(out, "drift:    eigenvalues within %.1e·λmax of batch; projections within %.1e; probe: orthogonality %.1e, residual %.1e\n",
		worst/want[0], proj, d.Orthogonality, d.Residual)
	fmt.Fprintf(out, "batch:    a batch kernel PCA of the %d points takes %v; the last incremental step took %v\n",
		*n, batchTime.Round(time.Millisecond), last.Round(10*time.Microsecond))
	return nil
}
