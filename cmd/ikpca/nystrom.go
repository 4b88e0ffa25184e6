package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/paper"
	"github.com/ikpca/ikpca/native"
)

func nystromCommand(e env) *cobra.Command {
	var (
		tf      tableFlags
		kf      kernelFlags
		dataset string
		n, mmax int
		seed    uint64
		out     = output{flag: "--out"}
	)
	c := &cobra.Command{
		Use:   "nystrom [FILE]",
		Short: "Incremental Nyström approximation: error norms for every number of landmarks",
		Long: `nystrom approximates the kernel matrix of the first --n points of FILE (a text table or
an IDX file of images, as fit reads them; or standard input if FILE is "-" or absent, or an
embedded --dataset) with landmarks added one at a time in a random
order, and writes, for every number of landmarks m up to --mmax, the error ‖K − K̃‖ in the
Frobenius, spectral and trace norms, absolute and relative to ‖K‖_F, as CSV. Each m costs
O(n²·m): meant for data sets of a few thousand points. The output follows the rules of fit.`,
		Args: cobra.MaximumNArgs(1),
	}
	f := c.Flags()
	tf.add(f)
	kf.add(f)
	f.StringVar(&dataset, "dataset", "", `use an embedded data set instead of FILE: "yeast" or "magic"`)
	f.IntVar(&n, "n", 1000, "use the first n points (0: all)")
	f.IntVar(&mmax, "mmax", 200, "largest number of landmarks (by default 200, or the number of points if there are fewer)")
	f.Uint64Var(&seed, "seed", 1, "seed of the random landmark order")
	f.StringVar(&out.path, "out", "-", `file for the CSV ("-": standard output)`)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if n < 0 || mmax < 1 {
			return usageError{fmt.Errorf("--n must be ≥ 0 and --mmax ≥ 1")}
		}
		if dataset != "" && len(args) > 0 {
			return usageError{fmt.Errorf("give FILE or --dataset, not both")}
		}
		if out.path == "" {
			return usageError{fmt.Errorf(`--out must name a file or "-"`)}
		}
		if err := kf.check(); err != nil {
			return err
		}
		var inputs []string
		if dataset == "" {
			if _, err := tf.options(""); err != nil {
				return err
			}
			inputs = []string{inputName(args)}
		}
		if err := planOutputs(e, inputs, &out); err != nil {
			return err
		}
		x, err := nystromPoints(cmd.Context(), e, args, &tf, dataset, n)
		if err != nil {
			return err
		}
		rows, _ := x.Dims()
		switch {
		case !f.Changed("mmax"):
			mmax = min(mmax, rows) // the default adapts to a small data set
		case mmax > rows:
			return usageError{fmt.Errorf("--mmax %d is more than the %s", mmax, count(rows, "point"))}
		}
		native.Use()
		kern, err := kf.kernel(x)
		if err != nil {
			return err
		}
		bar := newProgress(e, "landmarks", mmax)
		res, err := paper.Nystrom(cmd.Context(), paper.NystromOptions{Data: x, Kernel: kern, MMax: mmax, Seed: seed, Progress: func(done, _ int) { bar.set(done) }})
		bar.finish()
		if err != nil {
			return interruption(err)
		}
		return writeOutputs(e, pending{&out, func(w io.Writer) error { return res.Table().WriteCSV(w) }})
	}
	return c
}

// nystromPoints returns the first n points (all for n = 0) of the embedded data set
// dataset or, without one, of the input args name.
func nystromPoints(ctx context.Context, e env, args []string, tf *tableFlags, dataset string, n int) (*mat.Dense, error) {
	var x *mat.Dense
	if dataset != "" {
		d, err := datasetPoints(dataset)
		if err != nil {
			return nil, err
		}
		x = d
	} else {
		t, err := readPoints(ctx, e, args, tf)
		if err != nil {
			return nil, err
		}
		x = t.X
	}
	if rows, d := x.Dims(); n > 0 && n < rows {
		x = mat.DenseCopyOf(x.Slice(0, n, 0, d))
	}
	return x, nil
}
