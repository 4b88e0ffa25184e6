package ikpcabeam

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.DoFn3x0[Line, func(Point), func(DeadLetter)](&parseCSVFn{})
	register.Emitter1[Point]()
	register.Emitter1[DeadLetter]()
}

// CSVOptions say how to read points from delimited text.
type CSVOptions struct {
	// Comma separates fields: ',' if zero, or '\t', ';', …; Space (' ') means any run
	// of spaces and tabs, with no quoting, as in the UCI data sets.
	Comma rune
	// Header skips the first line of every file.
	Header bool
	// Columns selects the fields that are the coordinates, 1-based, in this order;
	// empty selects every field.
	Columns []int
	// Fields is the number of fields a line must have; zero means len(Columns), or Dim
	// without Columns. A line with another number is a dead letter.
	Fields int
	// Dim is the dimension of the points: len(Columns) if Columns is set (Dim must then
	// be zero or equal), else required.
	Dim int
}

// Space is the CSVOptions.Comma that separates fields by runs of spaces and tabs.
const Space = ' '

// ReadCSV reads points from the delimited text files glob matches: ReadLines, then
// ParseCSV. Invalid options or glob are an ErrArgument.
func ReadCSV(s beam.Scope, glob string, opts CSVOptions) (points, dead beam.PCollection, err error) {
	fn, err := newParseCSVFn(opts)
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	s = s.Scope("ikpcabeam.ReadCSV")
	lines, err := ReadLines(s, glob)
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	points, dead = beam.ParDo2(s, fn, lines)
	return points, dead, nil
}

// ParseCSV parses a PCollection<Line> of delimited text into a PCollection<Point>, and
// a PCollection<DeadLetter> of the lines that are not points. Blank lines are skipped,
// as are the first lines of files with Header. A field is a number in the syntax of
// strconv.ParseFloat after surrounding white space is trimmed, as the ikpca command
// reads tables; a field that is not one, a NaN or an infinity (or a value that
// overflows to one), and a line with the wrong number of fields are dead letters with
// the reason. Quoted fields are read as encoding/csv reads them, within the line.
// Invalid options are an ErrArgument.
func ParseCSV(s beam.Scope, lines beam.PCollection, opts CSVOptions) (points, dead beam.PCollection, err error) {
	fn, err := newParseCSVFn(opts)
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	points, dead = beam.ParDo2(s.Scope("ikpcabeam.ParseCSV"), fn, lines)
	return points, dead, nil
}

// ParseCSVLine parses one line of delimited text into a point as ParseCSV does (the
// options' Header is not used): for a caller that reads a few lines itself, such as a
// launcher that estimates a bandwidth before it builds a pipeline. Invalid options are
// an ErrArgument; a line that is not a point is an error that says why.
func ParseCSVLine(text string, opts CSVOptions) ([]float64, error) {
	fn, err := newParseCSVFn(opts)
	if err != nil {
		return nil, err
	}
	return fn.parse(text)
}

// parseCSVFn parses lines; its fields are the checked options.
type parseCSVFn struct {
	Comma   int32
	Header  bool
	Columns []int // 0-based
	Fields  int
	Dim     int
}

// newParseCSVFn checks the options.
func newParseCSVFn(o CSVOptions) (*parseCSVFn, error) {
	comma := o.Comma
	if comma == 0 {
		comma = ','
	}
	if comma == '"' || comma == '\r' || comma == '\n' || !utf8.ValidRune(comma) || comma == utf8.RuneError {
		return nil, fmt.Errorf("%w: invalid field separator %q", ErrArgument, comma)
	}
	fn := &parseCSVFn{Comma: comma, Header: o.Header, Fields: o.Fields, Dim: o.Dim}
	if len(o.Columns) > 0 {
		if o.Dim != 0 && o.Dim != len(o.Columns) {
			return nil, fmt.Errorf("%w: Dim %d with %d columns selected", ErrArgument, o.Dim, len(o.Columns))
		}
		fn.Dim = len(o.Columns)
		seen := make(map[int]bool, len(o.Columns))
		widest := 0
		for _, c := range o.Columns {
			if c < 1 || seen[c] {
				return nil, fmt.Errorf("%w: column %d selected (columns are 1-based, each once)", ErrArgument, c)
			}
			seen[c] = true
			widest = max(widest, c)
			fn.Columns = append(fn.Columns, c-1)
		}
		if fn.Fields == 0 {
			fn.Fields = widest
		} else if fn.Fields < widest {
			return nil, fmt.Errorf("%w: column %d selected of %d fields", ErrArgument, widest, fn.Fields)
		}
	} else {
		if o.Dim < 1 {
			return nil, fmt.Errorf("%w: Dim %d, want ≥ 1 (or select Columns)", ErrArgument, o.Dim)
		}
		if fn.Fields == 0 {
			fn.Fields = o.Dim
		} else if fn.Fields != o.Dim {
			return nil, fmt.Errorf("%w: %d fields for points of dimension %d without a column selection", ErrArgument, fn.Fields, o.Dim)
		}
	}
	if fn.Fields < 1 {
		return nil, fmt.Errorf("%w: %d fields per line", ErrArgument, fn.Fields)
	}
	return fn, nil
}

// ProcessElement parses one line.
func (fn *parseCSVFn) ProcessElement(l Line, emit func(Point), dead func(DeadLetter)) {
	if fn.Header && l.Offset == 0 || isBlankLine(l.Text) {
		return
	}
	x, err := fn.parse(l.Text)
	if err != nil {
		dead(DeadLetter{Source: l.Source, Offset: l.Offset, Line: l.Number, Text: l.Text, Reason: err.Error()})
		return
	}
	emit(Point{Source: l.Source, Offset: l.Offset, Line: l.Number, X: x})
}

// isBlankLine reports a line of spaces and tabs only.
func isBlankLine(s string) bool {
	return strings.TrimLeft(s, " \t\r\v\f") == ""
}

// parse returns the point of a line, or why it is not one.
func (fn *parseCSVFn) parse(text string) ([]float64, error) {
	fields, err := fn.split(text)
	if err != nil {
		return nil, err
	}
	if len(fields) != fn.Fields {
		return nil, fmt.Errorf("%d fields, want %d", len(fields), fn.Fields)
	}
	x := make([]float64, fn.Dim)
	for i := range x {
		j := i
		if fn.Columns != nil {
			j = fn.Columns[i]
		}
		s := strings.TrimSpace(fields[j])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("column %d: %q is not a number", j+1, s)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("column %d: %q is not a finite number", j+1, s)
		}
		x[i] = v
	}
	return x, nil
}

// split cuts a line into fields: at runs of spaces and tabs for Space, at the separator
// otherwise — directly when the line has no quote, by encoding/csv when it has.
func (fn *parseCSVFn) split(text string) ([]string, error) {
	comma := rune(fn.Comma)
	if comma == Space {
		return strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' }), nil
	}
	if !strings.ContainsRune(text, '"') {
		return strings.Split(text, string(comma)), nil
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = !unicode.IsSpace(comma)
	rec, err := r.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("not a CSV record: %v", err)
	}
	return rec, nil
}
