package ikpcabeam

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/ikpca/ikpca/data"
)

func init() {
	register.DoFn3x0[Line, func(Point), func(DeadLetter)](&parseLIBSVMFn{})
}

// ReadLIBSVM reads points of dimension dim from the LIBSVM text files glob matches:
// ReadLines, then ParseLIBSVM. A dimension below 1 or an invalid glob is an
// ErrArgument.
func ReadLIBSVM(s beam.Scope, glob string, dim int) (points, dead beam.PCollection, err error) {
	if dim < 1 {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: dimension %d, want ≥ 1", ErrArgument, dim)
	}
	s = s.Scope("ikpcabeam.ReadLIBSVM")
	lines, err := ReadLines(s, glob)
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	points, dead = beam.ParDo2(s, &parseLIBSVMFn{Dim: dim}, lines)
	return points, dead, nil
}

// ParseLIBSVM parses a PCollection<Line> of LIBSVM's sparse text format ("label
// index:value …", 1-based ascending indices) into a PCollection<Point> of dimension dim
// — features a line does not list are zero; the label is not a coordinate and is not
// kept — and a PCollection<DeadLetter> of the lines that are not points, by the rules
// of the core's data.ParseLIBSVMLine (an index above dim, a value that is not a finite
// number, indices out of order…). Blank lines are skipped.
func ParseLIBSVM(s beam.Scope, lines beam.PCollection, dim int) (points, dead beam.PCollection, err error) {
	if dim < 1 {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: dimension %d, want ≥ 1", ErrArgument, dim)
	}
	points, dead = beam.ParDo2(s.Scope("ikpcabeam.ParseLIBSVM"), &parseLIBSVMFn{Dim: dim}, lines)
	return points, dead, nil
}

// parseLIBSVMFn parses lines of points of dimension Dim.
type parseLIBSVMFn struct{ Dim int }

// ProcessElement parses one line.
func (fn *parseLIBSVMFn) ProcessElement(l Line, emit func(Point), dead func(DeadLetter)) {
	if isBlankLine(l.Text) {
		return
	}
	x, _, err := data.ParseLIBSVMLine(nil, l.Text, fn.Dim)
	if err != nil {
		dead(DeadLetter{Source: l.Source, Offset: l.Offset, Line: l.Number, Text: l.Text, Reason: err.Error()})
		return
	}
	emit(Point{Source: l.Source, Offset: l.Offset, Line: l.Number, X: x})
}
