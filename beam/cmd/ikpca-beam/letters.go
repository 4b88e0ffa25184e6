package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
)

func init() {
	register.Function1x1(refusedLetter)
}

// A fit that no valid point or landmark reaches fails in its merge, and a runner stops
// the pipeline's other branches then: the dead letters' shards may be partial or
// missing, while the error tells the user to read them. The command then writes them
// again, in a second pipeline that only reads and writes: every record of such a fit is
// a dead letter or was never fitted, so this pass holds them all, with their reasons.

// refusedReason is the reason of a point that read well but that the model of a fit
// without points did not take (its own reason, a non-finite kernel value or feature
// sum, went with the failed pipeline).
const refusedReason = "ikpca-beam: the model took no point of this fit; this one read well, so the model refused it"

// refusedLetter is the dead letter of a point of a fit that took none.
func refusedLetter(p ikpcabeam.Point) ikpcabeam.DeadLetter {
	fields := make([]string, len(p.X))
	for j, v := range p.X {
		fields[j] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return ikpcabeam.DeadLetter{Source: p.Source, Offset: p.Offset, Line: p.Line, Text: strings.Join(fields, ","), Reason: refusedReason}
}

// noValid reports the runner's error of a fit that no valid point (ErrNoPoints) or
// landmark (ErrNoLandmarks) reached; a runner reports it as text.
func noValid(err error) (points, landmarks bool) {
	if err == nil {
		return false, false
	}
	msg := err.Error()
	return strings.Contains(msg, ikpcabeam.ErrNoPoints.Error()), strings.Contains(msg, ikpcabeam.ErrNoLandmarks.Error())
}

// writeLetters writes the dead letters of a fit that no valid point or landmark
// reached, in a pipeline of its own: the input's lines that are not points, the
// landmarks file's, and — where no point reached the model — the points that read
// well, which the model refused.
func writeLetters(ctx context.Context, o options, noPoints bool) error {
	p, s := beam.NewPipelineWithRoot()
	points, dead, csvOpts, dim, err := read(ctx, s, o)
	if err != nil {
		return err
	}
	letters := []beam.PCollection{dead}
	if noPoints {
		letters = append(letters, beam.ParDo(s, refusedLetter, points))
	}
	if o.landmarksFile != "" {
		_, bad, err := readLandmarks(ctx, s, o, csvOpts, dim)
		if err != nil {
			return err
		}
		letters = append(letters, bad)
	}
	if err := ikpcabeam.WriteDeadLetters(s, deadPrefix(o), beam.Flatten(s, letters...)); err != nil {
		return err
	}
	return beamx.Run(ctx, p)
}

// failedFit returns the error of a fit that no valid point or landmark reached, after
// writing its dead letters again (writeLetters); err, as explain words it, and the
// letters' own error if they could not be written.
func failedFit(ctx context.Context, err error, o options) error {
	points, landmarks := noValid(err)
	if o.mode != "fit" || !points && !landmarks {
		return explain(err, o)
	}
	if lerr := writeLetters(ctx, o, points && !landmarks); lerr != nil {
		return errors.Join(explain(err, o), fmt.Errorf("writing the dead letters again: %w", lerr))
	}
	return explain(err, o)
}
