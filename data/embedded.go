package data

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// embedded is a data set parsed from an embedded file on its first use; every later
// use shares the result.
type embedded[T any] struct {
	file  string // the embedded file's name, for the message of a corrupt build
	parse func() (T, error)
	once  sync.Once
	val   T
	err   error
}

// load parses the file once and returns the result.
func (e *embedded[T]) load() (T, error) {
	e.once.Do(func() { e.val, e.err = e.parse() })
	return e.val, e.err
}

// must returns the parsed data set. The tests check that every embedded file parses,
// so only a corrupted build can panic here.
func (e *embedded[T]) must() T {
	v, err := e.load()
	if err != nil {
		panic("data: embedded " + e.file + " is corrupt: " + err.Error())
	}
	return v
}

// withTarget is a regression data set: the features and the target column.
type withTarget struct {
	Dataset
	target []float64
}

// layout describes the text of an embedded numeric table, one point a line:
//
//	[header line]
//	[skipped fields] f_1 … f_k [label or target]
type layout struct {
	// name identifies the table in errors, and names the Dataset.
	name string
	// fields splits a line into fields: strings.Fields for any run of blanks, or
	// commaFields for verbatim comma-separated fields (no quoting, no trimming).
	fields func(line string) []string
	// header says the first line is a header: as many non-empty fields as a data line,
	// not interpreted. Line numbers in errors count it.
	header bool
	// skip is the number of leading fields that are not features (Yeast's sequence
	// name).
	skip int
	// features name the k feature columns.
	features []string
	// label says a class label, which must not be empty, follows the features.
	label bool
	// target, if not empty, names a numeric target column that follows the features.
	target string
}

// commaFields splits a line of a comma-separated file.
func commaFields(line string) []string { return strings.Split(line, ",") }

// parseTable parses raw as described by l. Every line must have exactly the layout's
// number of fields and every feature and target must be a finite number; blank lines
// and a table without data lines are errors. It returns the data set and, for a layout
// with a target, the target column.
func parseTable(l layout, raw string) (Dataset, []float64, error) {
	k := len(l.features)
	if k == 0 {
		return Dataset{}, nil, fmt.Errorf("%s: no feature columns", l.name)
	}
	want := l.skip + k
	if l.label || l.target != "" {
		want++
	}
	var (
		vals, y []float64
		labels  []string
		n       int // lines read, including a header
	)
	for line := range strings.Lines(raw) {
		n++
		f := l.fields(strings.TrimSuffix(line, "\n"))
		if len(f) != want {
			return Dataset{}, nil, fmt.Errorf("%s: line %d: got %d fields, want %d", l.name, n, len(f), want)
		}
		if l.header && n == 1 {
			if i := slices.Index(f, ""); i >= 0 {
				return Dataset{}, nil, fmt.Errorf("%s: line 1 (header): empty field %d", l.name, i+1)
			}
			continue
		}
		numeric := f[l.skip : l.skip+k]
		if l.target != "" {
			numeric = f[l.skip:]
		}
		for j, s := range numeric {
			col := l.target
			if j < k {
				col = l.features[j]
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Dataset{}, nil, fmt.Errorf("%s: line %d, column %d (%s): %w", l.name, n, l.skip+j+1, col, err)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Dataset{}, nil, fmt.Errorf("%s: line %d, column %d (%s): non-finite value %q", l.name, n, l.skip+j+1, col, s)
			}
			if j < k {
				vals = append(vals, v)
			} else {
				y = append(y, v)
			}
		}
		if l.label {
			if f[want-1] == "" {
				return Dataset{}, nil, fmt.Errorf("%s: line %d: empty label", l.name, n)
			}
			labels = append(labels, f[want-1])
		}
	}
	rows := n
	if l.header {
		rows--
	}
	if rows < 1 {
		return Dataset{}, nil, fmt.Errorf("%s: no data lines", l.name)
	}
	return Dataset{
		Name:     l.name,
		X:        mat.NewDense(rows, k, vals),
		Features: slices.Clone(l.features),
		Labels:   labels,
	}, y, nil
}
