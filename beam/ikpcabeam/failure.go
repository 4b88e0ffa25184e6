package ikpcabeam

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
)

// A pipeline that fails for a reason of its data — no valid point reached the fit, no
// valid landmark, too many dead letters, nothing projected — says so in a failure
// marker, a small file, before it fails: a runner reports a failed job to the program
// that launched it in its own words (Dataflow: "Job … failed"), and the error's text,
// let alone its type, does not reach the launcher (docs/design.md, "Beyond one
// machine", Failure). The launcher names the marker's file in the pipeline option
// FailureMarkerOption, which the runner hands to every worker; after the job ends it
// reads the file with ReadFailure.

// FailureMarkerOption is the Beam pipeline option (beam.PipelineOptions) that names the
// file a failing pipeline writes its Failure to. Unset, no marker is written.
const FailureMarkerOption = "ikpca_failure_marker"

// FailureRunOption is the pipeline option that names the launcher's run, recorded in
// the Failure: a marker of another run (one that failed earlier, or a failed job's step
// that went on after its launcher read the marker) is not this run's.
const FailureRunOption = "ikpca_run"

// The reasons of a Failure.
const (
	// FailureNoPoints: no valid point reached the fit (ErrNoPoints).
	FailureNoPoints = "no_points"
	// FailureNoLandmarks: no valid landmark reached the Nyström fit (ErrNoLandmarks).
	FailureNoLandmarks = "no_landmarks"
	// FailureDeadLetters: more records were dead letters than the limit allows
	// (CheckRecords).
	FailureDeadLetters = "dead_letters"
	// FailureNothingProjected: a projection scored no point (CheckRecords).
	FailureNothingProjected = "nothing_projected"
)

// A Failure is the content of a failure marker: JSON of these fields.
type Failure struct {
	// Run is the value of FailureRunOption.
	Run string `json:"run"`
	// Reason is one of the Failure… constants, or "other".
	Reason string `json:"reason"`
	// Error is the error's text, for people.
	Error string `json:"error"`
	// Records, Dead and Scored are the counts CheckRecords saw, where it failed.
	Records int64 `json:"records,omitempty"`
	Dead    int64 `json:"dead,omitempty"`
	Scored  int64 `json:"scored,omitempty"`
}

// failureReason returns the reason of an error of the package's fits: the kind it wraps,
// or, for an error rebuilt from its text (a fit's prototype carries its failure as text
// from one stage to the next, fit.go), the kind whose text it starts with.
func failureReason(err error) string {
	switch msg := err.Error(); {
	case errors.Is(err, ErrNoLandmarks) || strings.Contains(msg, ErrNoLandmarks.Error()):
		return FailureNoLandmarks
	case errors.Is(err, ErrNoPoints) || strings.Contains(msg, ErrNoPoints.Error()):
		return FailureNoPoints
	}
	return "other"
}

// markFailure writes err's Failure to the marker that FailureMarkerOption names, if it
// names one, and returns err: for the fits, where they fail the pipeline.
func markFailure(err error) error {
	writeFailure(context.Background(), Failure{Reason: failureReason(err), Error: err.Error()})
	return err
}

// writeFailure writes f to the marker that FailureMarkerOption names, if any. A marker
// that cannot be written is logged: the pipeline fails anyway, with its error.
func writeFailure(ctx context.Context, f Failure) {
	name := beam.PipelineOptions.Get(FailureMarkerOption)
	if name == "" {
		return
	}
	f.Run = beam.PipelineOptions.Get(FailureRunOption)
	b, _ := json.Marshal(f) // strings and integers: no error
	fs, err := filesystem.New(ctx, name)
	if err == nil {
		err = filesystem.Write(ctx, fs, name, append(b, '\n'))
		fs.Close()
	}
	if err != nil {
		log.Errorf(ctx, "ikpcabeam: writing the failure marker %s: %v", name, err)
	}
}

// ReadFailure reads the failure marker name, which a pipeline run with
// FailureMarkerOption set to name writes where it fails for a reason of its data; ok
// is false where there is none (the pipeline did not fail so, or failed before).
func ReadFailure(ctx context.Context, name string) (f Failure, ok bool, err error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return f, false, err
	}
	defer fs.Close()
	return readJSON(ctx, fs, name, "a failure marker", func(f Failure) bool { return f.Reason != "" })
}
