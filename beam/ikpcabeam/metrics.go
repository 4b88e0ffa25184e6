package ikpcabeam

import (
	"context"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/ikpca/ikpca"
)

// The package's Beam metrics are counters of the namespace "ikpca": a runner shows them
// in its UI, and beam.PipelineResult.Metrics returns them. The dead letters are counted
// where they are written (WriteDeadLetters), one counter per class of their Reason,
// "dead_letters_<class>":
//
//   - dimension: a point of the wrong dimension for the model (ikpca.ErrDimension);
//   - non_finite: a NaN or infinite coordinate, or a kernel value or score that is not
//     finite (ikpca.ErrNonFinite, and the CSV parser's "is not a finite number");
//   - parse: a line that is not a point — the CSV parser's own words ("column 2: "x"
//     is not a number", "3 fields, want 4", "not a CSV record"), and the LIBSVM
//     parser's errors (package data) other than a non-finite value;
//   - refused: a point the model refused for another reason (an error of kind
//     ErrArgument, ErrEmpty, ErrEncoding or ErrNotConverged from a model's package);
//   - other: a reason none of the above describes.
//
// The class comes from the Reason's text, which is err.Error() of the error that made
// the dead letter: "package: kind: details" for the module's errors (one or more
// package names, then the text of one of ikpca's kinds), the details alone for the CSV
// parser's.
const (
	deadDimension = "dimension"
	deadNonFinite = "non_finite"
	deadParse     = "parse"
	deadRefused   = "refused"
	deadOther     = "other"
)

// deadLetterCounters are the counters of the dead letters by class.
var deadLetterCounters = func() map[string]beam.Counter {
	m := make(map[string]beam.Counter)
	for _, c := range []string{deadDimension, deadNonFinite, deadParse, deadRefused, deadOther} {
		m[c] = beam.NewCounter("ikpca", "dead_letters_"+c)
	}
	return m
}()

func init() {
	perBundle(&formatDeadLetterFn{})
}

// deadLetterClass returns the class of a dead letter's reason (see above).
func deadLetterClass(reason string) string {
	// Strip the package names: words of lower-case letters and digits, each followed by
	// ": " ("ikpcabeam: ", "nystrom: blocks: ").
	rest, pkg := reason, ""
	for {
		i := strings.Index(rest, ": ")
		if i <= 0 || strings.IndexFunc(rest[:i], func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) >= 0 {
			break
		}
		if pkg == "" {
			pkg = rest[:i]
		}
		rest = rest[i+2:]
	}
	switch {
	case strings.HasPrefix(rest, ikpca.ErrDimension.Error()):
		return deadDimension
	case strings.HasPrefix(rest, ikpca.ErrNonFinite.Error()):
		return deadNonFinite
	case pkg == "data": // ParseLIBSVMLine's errors, but a non-finite value
		return deadParse
	case pkg == "": // parseCSVFn's words, or an unknown reason
		switch {
		case strings.HasPrefix(reason, "column ") && strings.HasSuffix(reason, "is not a finite number"):
			return deadNonFinite
		case strings.HasPrefix(reason, "column ") || strings.HasPrefix(reason, "not a CSV record") || strings.Contains(reason, " fields, want "):
			return deadParse
		}
		return deadOther
	}
	for _, kind := range []error{ikpca.ErrArgument, ikpca.ErrEmpty, ikpca.ErrEncoding, ikpca.ErrNotConverged} {
		if strings.HasPrefix(rest, kind.Error()) {
			return deadRefused
		}
	}
	return deadOther
}

// formatDeadLetterFn formats a dead letter by FormatDeadLetter, and counts it.
type formatDeadLetterFn struct{}

// ProcessElement counts d under its class and returns its line.
func (fn *formatDeadLetterFn) ProcessElement(ctx context.Context, d DeadLetter) string {
	deadLetterCounters[deadLetterClass(d.Reason)].Inc(ctx, 1)
	return FormatDeadLetter(d)
}
