package ikpcabeam

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// The records that flow between the package's transforms. Their fields are exported so
// that Beam encodes them with its schema coder.
//
// Every file registers its own DoFns, by one rule (docs/design.md, "Registration"): a
// DoFn called once per element (a parse, a check, a fold, a projection, a sample) with
// the register package's generated wrappers, which call it without reflection; one
// called once per file, bundle, shard, pass or run with perBundle (beam.RegisterDoFn),
// since each generated wrapper costs the compiler 4–6 s, and reflection costs such a
// DoFn nothing that shows.
func init() {
	beam.RegisterType(reflect.TypeFor[Line]())
	beam.RegisterType(reflect.TypeFor[Point]())
	beam.RegisterType(reflect.TypeFor[DeadLetter]())
	beam.RegisterType(reflect.TypeFor[Scores]())
}

// perBundle registers DoFns and combiners called once per file, bundle, shard, pass or
// run, each given as a pointer to its zero value: the type and its parameters' types,
// without generated wrappers (the rule above).
func perBundle(fns ...any) {
	for _, fn := range fns {
		beam.RegisterDoFn(reflect.TypeOf(fn))
	}
}

// Line is a line of text and where it came from.
type Line struct {
	// Source is the file the line was read from.
	Source string
	// Offset is the byte offset of the line's first byte in Source (in the
	// decompressed text of a compressed file).
	Offset int64
	// Number is the 1-based line number, or 0 where the reader does not know it: in a
	// part of a large file that the runner split off and another worker reads.
	Number int64
	// Text is the line without its line break ("\n" or "\r\n").
	Text string
}

// Point is a point and where it came from.
type Point struct {
	// Source, Offset and Line locate the point's line as in Line (Line is the line
	// number); they are zero for points made otherwise.
	Source string
	Offset int64
	Line   int64
	// X holds the coordinates.
	X []float64
}

// DeadLetter is a record that was not used, and why.
type DeadLetter struct {
	// Source, Offset and Line locate the record as in Point.
	Source string
	Offset int64
	Line   int64
	// Text is the record: the input line, or for a point that was read but then
	// refused, its coordinates as CSV.
	Text string
	// Reason says what is wrong with it.
	Reason string
}

// Scores are the scores of a point on a model's leading components.
type Scores struct {
	// Source, Offset and Line locate the point as in Point: PCollections have no
	// order, so they are the key that joins a score back to its input.
	Source string
	Offset int64
	Line   int64
	// Y holds the scores, one per component in the order of the model's Values.
	Y []float64
}

// pointLetter is the dead letter of a point refused for reason.
func pointLetter(p Point, reason string) DeadLetter {
	return DeadLetter{Source: p.Source, Offset: p.Offset, Line: p.Line, Text: formatFloats(p.X), Reason: reason}
}

// formatFloats writes xs as CSV, each value in the shortest form that reads back to the
// same bits.
func formatFloats(xs []float64) string {
	var b strings.Builder
	var num []byte
	for j, v := range xs {
		if j > 0 {
			b.WriteByte(',')
		}
		num = strconv.AppendFloat(num[:0], v, 'g', -1, 64)
		b.Write(num)
	}
	return b.String()
}
