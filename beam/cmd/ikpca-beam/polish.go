package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/kernel"
)

// buildPolish builds the pipeline of --mode=polish: the input's points polished over
// shards (ikpcabeam.Polish, or PolishFrom the --start model), the certificate written
// to --certificate, the scores to --output and, with --model, the polished model (a
// kpca checkpoint, built on one worker); it returns the run's work directory, which run
// removes after the job.
func buildPolish(ctx context.Context, o options) (*beam.Pipeline, string, error) {
	o.dead = deadPrefix(o)
	if err := checkPolishFlags(ctx, o); err != nil {
		return nil, "", err
	}
	work := o.work
	if work == "" {
		work = o.certificate + ".work"
	}
	p, s := beam.NewPipelineWithRoot()
	points, deadLines, csvOpts, dim, err := read(ctx, s, o)
	if err != nil {
		return nil, "", err
	}
	sigma := o.sigma
	if sigma == 0 {
		if sigma, err = bandwidth(ctx, o, csvOpts, dim); err != nil {
			return nil, "", err
		}
	}
	po := ikpcabeam.PolishOptions{
		Kernel: kernel.Spec{Name: "rbf", Sigma: sigma}, Dim: dim, Uncentred: o.uncentred,
		Components: o.k, Rank: o.rank, Passes: o.passes, Seed: o.seed, Shards: o.shards, Work: work, Deterministic: o.deterministic,
		Model: o.model != "",
	}
	var res ikpcabeam.Polished
	if o.start == "" {
		res, err = ikpcabeam.Polish(s, points, po)
	} else {
		var model beam.PCollection
		if model, err = startModel(ctx, s, o.start, dim, o.k); err != nil {
			return nil, "", err
		}
		res, err = ikpcabeam.PolishFrom(s, model, points, po)
	}
	if err != nil {
		return nil, "", err
	}
	if err := ikpcabeam.WriteModel(s, o.certificate, res.Certificate); err != nil {
		return nil, "", err
	}
	if o.model != "" {
		if err := ikpcabeam.WriteModel(s, o.model, res.Model); err != nil {
			return nil, "", err
		}
	}
	if err := ikpcabeam.WriteScores(s, o.output, res.Scores); err != nil {
		return nil, "", err
	}
	letters := beam.Flatten(s, deadLines, res.Dead)
	published, err := ikpcabeam.WriteDeadLettersPublished(s, o.dead, letters)
	if err != nil {
		return nil, "", err
	}
	limits := ikpcabeam.RecordLimits{MaxDeadFraction: o.maxDead, NeedScores: true}
	if err := ikpcabeam.CheckRecords(s, []beam.PCollection{points, deadLines}, []beam.PCollection{letters}, []beam.PCollection{res.Scores}, []beam.PCollection{published}, limits); err != nil {
		return nil, "", err
	}
	return p, res.Work, nil
}

// startModel reads the --start model here, so that one the polish cannot start from
// fails before the pipeline runs — it does not decode, has another dimension, or fewer
// than k components — and returns it as the PCollection of one element PolishFrom
// takes.
func startModel(ctx context.Context, s beam.Scope, file string, dim, k int) (beam.PCollection, error) {
	b, err := readFile(ctx, file)
	if err != nil {
		return beam.PCollection{}, err
	}
	m, err := ikpcabeam.DecodeModel(b)
	if err != nil {
		return beam.PCollection{}, fmt.Errorf("--start %s: %w", file, err)
	}
	if m.Dim() != dim {
		return beam.PCollection{}, fmt.Errorf("--start %s: a model of dimension %d for points of dimension %d", file, m.Dim(), dim)
	}
	if have := len(m.Values(nil)); have < k {
		return beam.PCollection{}, fmt.Errorf("--start %s: a model with %d components for --k %d", file, have, k)
	}
	return ikpcabeam.ReadModel(s, file)
}

// checkPolishFlags refuses the flags of a polish that cannot run, and outputs that would
// replace an input: the certificate and the polished model are checked against the
// inputs and the prefixes as a fit's model is, and the start model as a projection's.
func checkPolishFlags(ctx context.Context, o options) error {
	switch {
	case o.input == "" || o.certificate == "" || o.output == "":
		return errors.New("polish needs --input, --certificate and --output")
	case o.method != "skpca" && o.method != "" || o.landmarks != 0 || o.landmarksFile != "":
		return errors.New("polish takes no --method or landmarks: it fits the points themselves")
	case o.model != "" && (sameForm(o.model) == sameForm(o.certificate) || o.start != "" && sameForm(o.model) == sameForm(o.start)):
		return fmt.Errorf("--model %s is the --certificate or the --start model: give the polished model a file of its own", o.model)
	case o.start != "" && sameForm(o.start) == sameForm(o.certificate):
		return fmt.Errorf("--certificate %s is the --start model: the polish would replace it", o.certificate)
	case o.k < 1 || o.rank < o.k:
		return fmt.Errorf("polish: --k %d and --rank %d: want 1 ≤ k ≤ rank", o.k, o.rank)
	case !(o.maxDead >= 0):
		return fmt.Errorf("--max-dead-fraction %v: want a fraction ≥ 0 (1: no limit)", o.maxDead)
	}
	checked := o
	for _, c := range []struct{ file, mode string }{{o.certificate, "fit"}, {o.model, "fit"}, {o.start, "project"}} {
		if c.file == "" {
			continue
		}
		checked.model, checked.mode = c.file, c.mode
		if err := checkOutputs(ctx, checked); err != nil {
			return err
		}
	}
	return nil
}
