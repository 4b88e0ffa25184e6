package ikpcabeam

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"
)

func init() {
	register.DoFn2x0[beam.T, func(int64)](&countFn{})
	perBundle(&checkRecordsFn{})
	register.Emitter1[int64]()
	register.Iter1[int64]()
}

// RecordLimits are the limits CheckRecords checks.
type RecordLimits struct {
	// MaxDeadFraction fails the pipeline when more than this fraction of the records
	// are dead letters; 1 or more sets no limit. Zero fails it on any dead letter.
	MaxDeadFraction float64
	// NeedScores fails the pipeline when no point is scored.
	NeedScores bool
}

// CheckRecords fails the pipeline, once the PCollections after are complete (the
// dead letters' publication, WriteDeadLettersPublished, so that the user has them),
// where the records break limits: where the dead letters are more than
// MaxDeadFraction of the records (FailureDeadLetters), or no point was scored and
// NeedScores (FailureNothingProjected). records are the input's records — the points
// read and the lines that are not points —, dead every dead letter, scores the scores;
// each is counted per bundle, and one Combine sums one count per bundle, never one per
// record. It writes a Failure to the marker of FailureMarkerOption before it fails.
// A MaxDeadFraction below zero, or not a number, is an ErrArgument.
func CheckRecords(s beam.Scope, records, dead, scores []beam.PCollection, after []beam.PCollection, limits RecordLimits) error {
	if !(limits.MaxDeadFraction >= 0) {
		return fmt.Errorf("%w: a maximum dead-letter fraction of %v", ErrArgument, limits.MaxDeadFraction)
	}
	s = s.Scope("ikpcabeam.CheckRecords")
	sum := func(cols []beam.PCollection) beam.PCollection {
		var counts []beam.PCollection
		for _, c := range cols {
			counts = append(counts, beam.ParDo(s, &countFn{}, c))
		}
		if len(counts) == 0 {
			return beam.CreateList(s, []int64{})
		}
		return stats.Sum(s, beam.Flatten(s, counts...))
	}
	side := []beam.SideInput{{Input: sum(records)}, {Input: sum(dead)}, {Input: sum(scores)}}
	var done []beam.PCollection
	for _, a := range after {
		done = append(done, beam.ParDo(s, toDone, a))
	}
	if len(done) == 0 {
		done = append(done, beam.CreateList(s, []string{}))
	}
	side = append(side, beam.SideInput{Input: beam.Flatten(s, done...)})
	beam.ParDo0(s, &checkRecordsFn{Limits: limits}, beam.Impulse(s), side[0], side[1], side[2], side[3])
	return nil
}

func init() { register.Function1x1(toDone) }

// toDone maps any element to an empty string: a side input whose readiness is the
// barrier.
func toDone(beam.T) string { return "" }

// countFn counts a bundle's elements and emits the count when the bundle finishes.
type countFn struct{ n int64 }

// ProcessElement counts an element.
func (fn *countFn) ProcessElement(_ beam.T, _ func(int64)) { fn.n++ }

// FinishBundle emits the bundle's count.
func (fn *countFn) FinishBundle(emit func(int64)) {
	if fn.n > 0 {
		emit(fn.n)
	}
	fn.n = 0
}

// checkRecordsFn checks the counts against the limits.
type checkRecordsFn struct{ Limits RecordLimits }

// ProcessElement checks; its element is the impulse.
func (fn *checkRecordsFn) ProcessElement(ctx context.Context, _ []byte, records, dead, scores func(*int64) bool, _ func(*string) bool) error {
	total := func(it func(*int64) bool) int64 {
		var n, sum int64
		for it(&n) {
			sum += n
		}
		return sum
	}
	f := Failure{Records: total(records), Dead: total(dead), Scored: total(scores)}
	switch {
	case fn.Limits.MaxDeadFraction < 1 && float64(f.Dead) > fn.Limits.MaxDeadFraction*float64(f.Records):
		f.Reason = FailureDeadLetters
		f.Error = fmt.Sprintf("ikpcabeam: %d of %d records are dead letters, more than the limit of %v", f.Dead, f.Records, fn.Limits.MaxDeadFraction)
	case fn.Limits.NeedScores && f.Scored == 0:
		f.Reason = FailureNothingProjected
		f.Error = fmt.Sprintf("ikpcabeam: no point was projected (%d records, %d dead letters)", f.Records, f.Dead)
	default:
		return nil
	}
	writeFailure(ctx, f)
	return fmt.Errorf("%s", f.Error)
}
