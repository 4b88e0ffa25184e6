package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
)

func init() {
	register.Function1x1(refusedLetter)
}

// A fit that no valid point or landmark reaches fails in its merge (and writes the
// failure marker FailureNoPoints or FailureNoLandmarks first), and a runner stops
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

// writeLetters writes the dead letters of a fit that no valid point or landmark
// reached, in a pipeline of its own: the input's lines that are not points, the
// landmarks file's, and — where no point reached the model — the points that read
// well, which the model refused.
func writeLetters(ctx context.Context, o options, noPoints bool) error {
	// No failure marker: this pipeline fails for no reason of its data, and the failed
	// one's marker says why it failed.
	beam.PipelineOptions.Set(ikpcabeam.FailureMarkerOption, "")
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

// failure is the failure marker of the run: <dead>.failure, a Failure naming the run.
func failureMarker(o options) string { return deadPrefix(o) + ".failure" }

// failedRun returns the error of a run that failed, err the runner's, in the words of
// its failure marker where the pipeline wrote one for this run (the runner's error
// does not say why: Dataflow reports "Job … failed"): a fit that no valid point or
// landmark reached — after writing its dead letters again (writeLetters) —, too many
// dead letters, nothing projected. A run that succeeded removes a marker an earlier
// run left.
func failedRun(ctx context.Context, err error, o options, run string) error {
	f, ok, rerr := ikpcabeam.ReadFailure(ctx, failureMarker(o))
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	ok = ok && f.Run == run
	if err == nil {
		if !ok {
			removeFile(ctx, failureMarker(o))
		}
		return nil
	}
	if !ok {
		return err
	}
	dead := deadPrefix(o) + "-*-of-*.csv"
	var why error
	switch f.Reason {
	case ikpcabeam.FailureNoLandmarks:
		why = fmt.Errorf("no valid landmark in %s: every record is a dead letter, see %s", o.landmarksFile, dead)
	case ikpcabeam.FailureNoPoints:
		why = fmt.Errorf("no valid point in %s: every record is a dead letter, see %s", o.input, dead)
	case ikpcabeam.FailureDeadLetters:
		return fmt.Errorf("%d of the %d records of %s are dead letters, more than --max-dead-fraction=%v: see %s", f.Dead, f.Records, o.input, o.maxDead, dead)
	case ikpcabeam.FailureNothingProjected:
		return fmt.Errorf("no point of %s was projected (%d records, %d dead letters): see %s", o.input, f.Records, f.Dead, dead)
	default:
		return err
	}
	if o.mode != "fit" {
		return why
	}
	noPoints := f.Reason == ikpcabeam.FailureNoPoints
	if lerr := writeLetters(ctx, o, noPoints); lerr != nil {
		return errors.Join(why, fmt.Errorf("writing the dead letters again: %w", lerr))
	}
	return why
}

// removeFile removes a file, if it is there.
func removeFile(ctx context.Context, name string) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return
	}
	defer fs.Close()
	if rm, ok := fs.(filesystem.Remover); ok {
		if _, err := fs.Size(ctx, name); err == nil {
			rm.Remove(ctx, name)
		}
	}
}
