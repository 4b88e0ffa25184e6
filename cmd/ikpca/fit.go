package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// afterAdd, when set (by tests), is called after each point fit adds.
var afterAdd func(added int)

func fitCommand(e env) *cobra.Command {
	var (
		tf         tableFlags
		kf         kernelFlags
		uncentred  bool
		method     string
		m0, k      int
		refreshTol float64
		values     string
		scores     string
		model      string
	)
	c := &cobra.Command{
		Use:   "fit [FILE]",
		Short: "Fit an incremental kernel PCA to the rows of a CSV/TSV file or standard input",
		Long: `fit reads points (one per row) from FILE, or standard input if FILE is "-" or absent,
starts a kernel PCA from the first --m0 points with a batch decomposition and adds the others
one at a time. It writes the eigenvalues (--values), the top --k scores of the training points
(--scores) and a checkpoint of the model (--model), each to a file or "-" for standard output.

Interrupted (Ctrl-C), fit stops between two points and still writes every output for the
points processed so far; the checkpoint can be loaded by transform, or by kpca.Load to resume.`,
		Args: cobra.MaximumNArgs(1),
	}
	f := c.Flags()
	tf.add(f)
	kf.add(f)
	f.BoolVar(&uncentred, "uncentred", false, "decompose the kernel matrix K itself instead of the mean-adjusted CKC")
	f.StringVar(&method, "method", "bordered", `how points are added: "bordered" (one update per point) or "rank-one" (Hallgren and Northrop's algorithms)`)
	f.IntVar(&m0, "m0", 10, "points in the starting batch decomposition (at least 1)")
	f.IntVar(&k, "k", 5, "number of components in --scores")
	f.Float64Var(&refreshTol, "refresh-tol", 0, "recompute the decomposition when its drift probe exceeds this (0: never)")
	f.StringVar(&values, "values", "-", `file for the eigenvalues and explained variance ("-": standard output, "": none)`)
	f.StringVar(&scores, "scores", "", `file for the training scores ("-": standard output, "": none)`)
	f.StringVar(&model, "model", "", `file for the checkpoint of the model ("-": standard output, "": none)`)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := oneStdout(map[string]string{"values": values, "scores": scores, "model": model}); err != nil {
			return err
		}
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
		if refreshTol < 0 {
			return usageError{fmt.Errorf("--refresh-tol must not be negative")}
		}
		native.Use()
		t, err := readPoints(e, args, &tf)
		if err != nil {
			return err
		}
		rows, d := t.X.Dims()
		if m0 > rows {
			return usageError{fmt.Errorf("--m0 %d is more than the %d points", m0, rows)}
		}
		kern, err := kf.kernel(t.X)
		if err != nil {
			return err
		}
		md, err := kpca.New(kern, t.X.Slice(0, m0, 0, d), opts)
		if err != nil {
			return err
		}
		bar := newProgress(e, "fitting", rows-m0)
		var stopped error
		for i := m0; i < rows; i++ {
			if err := cmd.Context().Err(); err != nil {
				stopped = fmt.Errorf("%w after %d of %d points; outputs written for those", errInterrupted, md.Len(), rows)
				break
			}
			if err := md.Add(t.X.RawRowView(i)); err != nil {
				bar.finish()
				return fmt.Errorf("line %d: %w", t.Lines[i], err)
			}
			bar.set(i - m0 + 1)
			if afterAdd != nil {
				afterAdd(md.Len())
			}
		}
		bar.finish()
		if err := writeFit(e, md, t, k, values, scores, model); err != nil {
			return errors.Join(stopped, err)
		}
		return stopped
	}
	return c
}

// writeFit writes the outputs of fit.
func writeFit(e env, md *kpca.Model, t *table.Table, k int, values, scores, model string) error {
	if values != "" {
		err := create(e, values, func(w io.Writer) error {
			v, ev := md.Values(nil), md.ExplainedVariance(nil)
			x := mat.NewDense(max(len(v), 1), 3, nil)
			for i := range v {
				x.SetRow(i, []float64{float64(i + 1), v[i], ev[i]})
			}
			if len(v) == 0 {
				return table.Write(w, []string{"component", "eigenvalue", "explained_variance"}, mat.NewDense(1, 3, nil).Slice(0, 0, 0, 3), ',')
			}
			return table.Write(w, []string{"component", "eigenvalue", "explained_variance"}, x, ',')
		})
		if err != nil {
			return err
		}
	}
	if scores != "" {
		kk := min(k, md.Components())
		if kk < 1 {
			return fmt.Errorf("no component to score with %d points", md.Len())
		}
		var s mat.Dense
		if err := md.Scores(&s, kk); err != nil {
			return err
		}
		if err := create(e, scores, func(w io.Writer) error { return table.Write(w, componentNames(kk), &s, ',') }); err != nil {
			return err
		}
	}
	if model != "" {
		if err := create(e, model, md.Save); err != nil {
			return err
		}
	}
	return nil
}

func componentNames(k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = "pc" + strconv.Itoa(i+1)
	}
	return names
}
