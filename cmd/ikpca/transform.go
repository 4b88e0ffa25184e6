package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

func transformCommand(e env) *cobra.Command {
	var (
		tf    tableFlags
		model string
		k     int
		out   string
	)
	c := &cobra.Command{
		Use:   "transform --model FILE [POINTS]",
		Short: "Project new points with a model saved by fit",
		Long: `transform loads a checkpoint written by "fit --model" and projects the rows of POINTS
(a CSV/TSV file, or standard input if POINTS is "-" or absent) onto the top --k components,
with the same centring as the training scores. It writes one row of scores per point.`,
		Args: cobra.MaximumNArgs(1),
	}
	tf.add(c.Flags())
	c.Flags().StringVar(&model, "model", "", "checkpoint written by fit --model (required)")
	c.Flags().IntVar(&k, "k", 5, "number of components")
	c.Flags().StringVar(&out, "out", "-", `file for the scores ("-": standard output)`)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if model == "" {
			return usageError{fmt.Errorf("--model is required")}
		}
		if k < 1 {
			return usageError{fmt.Errorf("--k must be at least 1, got %d", k)}
		}
		if len(args) == 1 && args[0] == "-" && model == "-" {
			return usageError{fmt.Errorf("the model and the points cannot both come from standard input")}
		}
		native.Use()
		md, err := loadModel(e, model)
		if err != nil {
			return err
		}
		t, err := readPoints(e, args, &tf)
		if err != nil {
			return err
		}
		if _, d := t.X.Dims(); d != md.Dim() {
			return fmt.Errorf("the points have %d columns, the model %d", d, md.Dim())
		}
		if k > md.Components() {
			return usageError{fmt.Errorf("--k %d: the model has %d components", k, md.Components())}
		}
		var s mat.Dense
		if err := md.Transform(&s, t.X, k); err != nil {
			return err
		}
		return create(e, out, func(w io.Writer) error { return table.Write(w, componentNames(k), &s, ',') })
	}
	return c
}

func loadModel(e env, path string) (*kpca.Model, error) {
	var r io.Reader = e.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	md, err := kpca.Load(r, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return md, nil
}
