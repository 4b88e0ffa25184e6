package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// afterAdd, when set (by tests), is called after each point fit adds, with the number of
// points in the model.
var afterAdd func(points int)

func fitCommand(e env) *cobra.Command {
	var (
		tf                    tableFlags
		kf                    kernelFlags
		uncentred             bool
		method                string
		m0, k                 int
		refreshTol            float64
		values, scores, model = output{flag: "--values"}, output{flag: "--scores"}, output{flag: "--model"}
	)
	c := &cobra.Command{
		Use:   "fit [FILE]",
		Short: "Fit an incremental kernel PCA to the rows of a CSV/TSV/whitespace file or standard input",
		Long: `fit reads points (one per row) from FILE, or standard input if FILE is "-" or absent,
starts a kernel PCA from the first --m0 points with a batch decomposition and adds the others
one at a time. It writes the eigenvalues (--values), the top --k scores of the training points
(--scores) and a checkpoint of the model (--model), each to a file or "-" for standard output.
With fewer components than --k (a small or interrupted fit), the scores have as many columns
as there are components, and a note says so.

Outputs are checked before the data are read — two outputs naming the same file, or an
output naming the input, are a usage error; a missing or read-only directory or a read-only
file, an error — and written at the end, files first and standard output last. A file is
replaced atomically through ".NAME.ikpca-tmp-XXXXXXXX" in its directory, which only a kill -9
can leave behind.

Interrupted (Ctrl-C or SIGTERM), fit stops between two points and still writes every output
for the points processed so far (exit status 130 or 143); the checkpoint can be loaded by
transform, or by kpca.Load to resume. Interrupted while it reads its input or computes the
starting batch, it stops at once and writes nothing: no point has been processed yet. A
second interrupt quits at once, writing nothing.`,
		Args: cobra.MaximumNArgs(1),
	}
	f := c.Flags()
	tf.add(f)
	kf.add(f)
	f.BoolVar(&uncentred, "uncentred", false, "decompose the kernel matrix K itself instead of the mean-adjusted CKC")
	f.StringVar(&method, "method", "bordered", `how points are added: "bordered" (one update per point) or "rank-one" (Hallgren and Northrop's algorithms)`)
	f.IntVar(&m0, "m0", 10, "points in the starting batch decomposition (at least 1; by default 10, or all the points if there are fewer)")
	f.IntVar(&k, "k", 5, "number of components in --scores (at most the model's)")
	f.Float64Var(&refreshTol, "refresh-tol", 0, "recompute the decomposition when its drift probe exceeds this (0: never)")
	f.StringVar(&values.path, "values", "-", `file for the eigenvalues and explained variance ("-": standard output, "": none)`)
	f.StringVar(&scores.path, "scores", "", `file for the training scores ("-": standard output, "": none)`)
	f.StringVar(&model.path, "model", "", `file for the checkpoint of the model ("-": standard output, "": none)`)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		// Everything that can be checked before reading the data: the flags, then the
		// outputs.
		opts := kpca.Options{RefreshTolerance: refreshTol}
		if uncentred {
			opts.Mode = kpca.Uncentred
		}
		switch method {
		case "bordered":
		case "rank-one":
			opts.Method = kpca.RankOne
		default:
			return usageError{fmt.Errorf(`--method %q: want "bordered" or "rank-one"`, method)}
		}
		if m0 < 1 {
			return usageError{fmt.Errorf("--m0 must be at least 1, got %d", m0)}
		}
		if k < 1 {
			return usageError{fmt.Errorf("--k must be at least 1, got %d", k)}
		}
		if !(refreshTol >= 0) || math.IsInf(refreshTol, 0) {
			return usageError{fmt.Errorf("--refresh-tol must be finite and not negative, got %v", refreshTol)}
		}
		if err := kf.check(); err != nil {
			return err
		}
		if _, err := tf.options(""); err != nil {
			return err
		}
		if err := planOutputs(e, []string{inputName(args)}, &values, &scores, &model); err != nil {
			return err
		}
		native.Use()
		ctx := cmd.Context()
		t, err := readPoints(ctx, e, args, &tf)
		if err != nil {
			return err
		}
		rows, d := t.X.Dims()
		switch {
		case !f.Changed("m0"):
			m0 = min(m0, rows) // the default adapts to a small file
		case m0 > rows:
			return usageError{fmt.Errorf("--m0 %d is more than the %s", m0, count(rows, "point"))}
		}
		kern, err := kf.kernel(t.X)
		if err != nil {
			return err
		}
		md, err := interruptible(ctx, fmt.Sprintf("during the starting batch decomposition of %s; nothing written", count(m0, "point")),
			func() (*kpca.Model, error) { return kpca.New(kern, t.X.Slice(0, m0, 0, d), opts) })
		if err != nil {
			return err
		}
		var added int
		if m0 < rows {
			bar := newProgress(e, "fitting", rows-m0)
			added, err = md.AddRows(ctx, t.X.Slice(m0, rows, 0, d), func(done, _ int) {
				bar.set(done)
				if afterAdd != nil {
					afterAdd(m0 + done)
				}
			})
			bar.finish()
		}
		var stopped error
		switch {
		case err == nil:
		case ctx.Err() != nil && errors.Is(err, context.Cause(ctx)):
			stopped = fmt.Errorf("%w after %d of %s; outputs written for those", errInterrupted, md.Len(), count(rows, "point"))
		default:
			return fmt.Errorf("line %d: %w", t.Lines[m0+added], err)
		}
		if err := writeFit(e, md, k, f.Changed("k"), &values, &scores, &model); err != nil {
			return errors.Join(stopped, err)
		}
		return stopped
	}
	return c
}

// writeFit writes the outputs of fit, files first and standard output last.
func writeFit(e env, md *kpca.Model, k int, kGiven bool, values, scores, model *output) error {
	var s mat.Dense
	kk := min(k, md.Components())
	if !scores.none() {
		if kk < 1 {
			return fmt.Errorf("no component to score with %s", count(md.Len(), "point"))
		}
		if kk < k && kGiven {
			fmt.Fprintf(e.errw, "ikpca: --k %d: the model has %s; the scores have %s\n", k, count(md.Components(), "component"), count(kk, "column"))
		}
		if err := md.Scores(&s, kk); err != nil {
			return err
		}
	}
	writeValues := func(w io.Writer) error {
		v, ev := md.Values(nil), md.ExplainedVariance(nil)
		x := mat.NewDense(max(len(v), 1), 3, nil)
		for i := range v {
			x.SetRow(i, []float64{float64(i + 1), v[i], ev[i]})
		}
		return table.Write(w, []string{"component", "eigenvalue", "explained_variance"}, x.Slice(0, len(v), 0, 3), ',')
	}
	return writeOutputs(e,
		pending{values, writeValues},
		pending{scores, func(w io.Writer) error { return table.Write(w, componentNames(kk), &s, ',') }},
		pending{model, md.Save},
	)
}

func componentNames(k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = "pc" + strconv.Itoa(i+1)
	}
	return names
}
