package study

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// Table is a CSV table: a header and rows of the header's length, every cell a string.
type Table struct {
	Header []string
	Rows   [][]string
}

// ErrTable reports a table that lacks a column asked for, or a cell that is not a number
// where one is expected.
var ErrTable = errors.New("study: bad table")

// NewTable returns an empty table with the given column names.
func NewTable(header ...string) *Table { return &Table{Header: header} }

// Add appends a row. Each value is formatted by [Cell].
func (t *Table) Add(values ...any) {
	row := make([]string, len(values))
	for i, v := range values {
		row[i] = Cell(v)
	}
	t.Rows = append(t.Rows, row)
}

// Cell formats one value for a table: a float64 with six significant digits (the empty
// string for NaN, which marks a value that was not measured), an int in decimal, a string
// as it is, and anything else as fmt prints it.
func Cell(v any) string {
	switch v := v.(type) {
	case float64:
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	case int:
		return strconv.Itoa(v)
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// WriteCSV writes the header and the rows as CSV.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// ReadCSV reads a table written by WriteCSV: a header line and rows of its length.
func ReadCSV(r io.Reader) (*Table, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: no header", ErrTable)
	}
	return &Table{Header: recs[0], Rows: recs[1:]}, nil
}

// Column returns the index of the named column.
func (t *Table) Column(name string) (int, error) {
	j := slices.Index(t.Header, name)
	if j < 0 {
		return 0, fmt.Errorf("%w: no column %q", ErrTable, name)
	}
	return j, nil
}

// Strings returns the cells of the named column.
func (t *Table) Strings(name string) ([]string, error) {
	j, err := t.Column(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(t.Rows))
	for i, row := range t.Rows {
		out[i] = row[j]
	}
	return out, nil
}

// Floats returns the named column as numbers; an empty cell is NaN.
func (t *Table) Floats(name string) ([]float64, error) {
	cells, err := t.Strings(name)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(cells))
	for i, c := range cells {
		if c == "" {
			out[i] = math.NaN()
			continue
		}
		if out[i], err = strconv.ParseFloat(c, 64); err != nil {
			return nil, fmt.Errorf("%w: column %q, row %d: %q is not a number", ErrTable, name, i+1, c)
		}
	}
	return out, nil
}

// FloatColumns returns the named columns as numbers (Floats), in the order named.
func (t *Table) FloatColumns(names ...string) ([][]float64, error) {
	out := make([][]float64, len(names))
	for i, name := range names {
		var err error
		if out[i], err = t.Floats(name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Firsts returns the first row's cells of the named columns, by name: the values a
// table repeats on every row (its data set, its size) that a figure's title names. A
// table without rows is an error.
func (t *Table) Firsts(names ...string) (map[string]string, error) {
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%w: no rows", ErrTable)
	}
	out := make(map[string]string, len(names))
	for _, name := range names {
		j, err := t.Column(name)
		if err != nil {
			return nil, err
		}
		out[name] = t.Rows[0][j]
	}
	return out, nil
}

// Where returns the table of the rows whose named column holds value, in order.
func (t *Table) Where(name, value string) (*Table, error) {
	j, err := t.Column(name)
	if err != nil {
		return nil, err
	}
	out := &Table{Header: t.Header}
	for _, row := range t.Rows {
		if row[j] == value {
			out.Rows = append(out.Rows, row)
		}
	}
	return out, nil
}

// Distinct returns the distinct values of the named column in the order they first
// appear.
func (t *Table) Distinct(name string) ([]string, error) {
	cells, err := t.Strings(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cells {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}
