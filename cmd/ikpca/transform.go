package main

import (
	"context"
	"errors"
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
		out   = output{flag: "--out"}
	)
	c := &cobra.Command{
		Use:   "transform --model FILE [POINTS]",
		Short: "Project new points with a model saved by fit",
		Long: `transform loads a checkpoint written by "fit --model" and projects the rows of POINTS
(a CSV/TSV/whitespace file or an IDX file of images as fit reads them, or standard input if
POINTS is "-" or absent) onto the top --k
components, with the same centring as the training scores. It writes one row of scores per
point. With fewer components than --k, the scores have as many columns as there are
components, and a note says so (as fit does). The output follows the rules of fit.`,
		Args: cobra.MaximumNArgs(1),
	}
	tf.add(c.Flags())
	c.Flags().StringVar(&model, "model", "", "checkpoint written by fit --model (required)")
	c.Flags().IntVar(&k, "k", 5, "number of components (at most the model's)")
	c.Flags().StringVar(&out.path, "out", "-", `file for the scores ("-": standard output)`)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if model == "" {
			return usageError{fmt.Errorf("--model is required")}
		}
		if k < 1 {
			return usageError{fmt.Errorf("--k must be at least 1, got %d", k)}
		}
		if inputName(args) == "-" && model == "-" {
			return usageError{fmt.Errorf("the model and the points cannot both come from standard input")}
		}
		if out.path == "" {
			return usageError{fmt.Errorf(`--out must name a file or "-"`)}
		}
		if _, err := tf.options(""); err != nil {
			return err
		}
		if err := planOutputs(e, []string{inputName(args), model}, &out); err != nil {
			return err
		}
		native.Use()
		ctx := cmd.Context()
		md, err := loadModel(ctx, e, model)
		if err != nil {
			return err
		}
		t, err := readPoints(ctx, e, args, &tf)
		if err != nil {
			return err
		}
		if _, d := t.X.Dims(); d != md.Dim() {
			return fmt.Errorf("the points have %s, the model %d", count(d, "column"), md.Dim())
		}
		kk := min(k, md.Components())
		if kk < 1 {
			return fmt.Errorf("%s: the model of %s has no component", model, count(md.Len(), "point"))
		}
		if kk < k && c.Flags().Changed("k") {
			fmt.Fprintf(e.errw, "ikpca: --k %d: the model has %s; the scores have %s\n", k, count(md.Components(), "component"), count(kk, "column"))
		}
		var s mat.Dense
		if err := md.Transform(&s, t.X, kk); err != nil {
			return err
		}
		return writeOutputs(e, pending{&out, func(w io.Writer) error { return table.Write(w, componentNames(kk), &s, ',') }})
	}
	return c
}

// transformer is what transform asks of a model fit saved: kpca.Model's methods that
// kpca.RankOneModel shares.
type transformer interface {
	Transform(dst *mat.Dense, X mat.Matrix, k int) error
	Components() int
	Len() int
	Dim() int
}

// loadModel loads a checkpoint from a file or, for "-", standard input — one model's
// encoding and nothing after it; it returns at once, with errInterrupted, when ctx is
// cancelled while it reads.
func loadModel(ctx context.Context, e env, path string) (transformer, error) {
	var r io.Reader = e.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	md, err := interruptible(ctx, "while reading the model "+path, func() (transformer, error) {
		got, _, err := kpca.UnmarshalFrom(r) // a kpca.Model, or a RankOneModel (--method rank-one)
		if err != nil {
			return nil, err
		}
		md := got.(transformer)
		if n, _ := io.ReadFull(r, make([]byte, 1)); n > 0 {
			return nil, fmt.Errorf("%w: bytes after the model's encoding", kpca.ErrEncoding)
		}
		return md, nil
	})
	if err != nil && !errors.Is(err, errInterrupted) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return md, err
}
