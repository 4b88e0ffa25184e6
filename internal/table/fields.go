package table

import (
	"bufio"
	"errors"
	"io"
)

// records is what Read needs of a record reader: encoding/csv's Reader for
// separated values, fieldsReader for white space.
type records interface {
	// Read returns the next record; its slice may be reused by the next call.
	Read() ([]string, error)
	// FieldPos returns the line and column of field j of the last record.
	FieldPos(j int) (line, column int)
}

// fieldsReader splits lines into fields at runs of spaces and tabs, like
// awk and strings.Fields, with no quoting. A line of white space is a record
// with no field.
type fieldsReader struct {
	br     *bufio.Reader
	line   int      // line number of the last record
	rec    []string // reused
	starts []int    // byte column (1-based) of each field
	buf    []byte   // a line longer than br's buffer
}

func newFieldsReader(r io.Reader) *fieldsReader {
	return &fieldsReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Read returns the fields of the next line.
func (f *fieldsReader) Read() ([]string, error) {
	raw, err := f.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		f.buf = append(f.buf[:0], raw...)
		for errors.Is(err, bufio.ErrBufferFull) {
			raw, err = f.br.ReadSlice('\n')
			f.buf = append(f.buf, raw...)
		}
		raw = f.buf
	}
	if len(raw) == 0 && err != nil {
		return nil, err // io.EOF at the end of the input, or a read error
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	f.line++
	line := string(raw) // one allocation per line; the fields share it
	f.rec, f.starts = f.rec[:0], f.starts[:0]
	for i := 0; i < len(line); {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && !isBlank(line[j]) {
			j++
		}
		f.rec = append(f.rec, line[i:j])
		f.starts = append(f.starts, i+1)
		i = j
	}
	return f.rec, nil
}

// FieldPos returns the line of the last record and the column of its field j.
func (f *fieldsReader) FieldPos(j int) (line, column int) {
	if j < 0 || j >= len(f.starts) {
		return f.line, 0
	}
	return f.line, f.starts[j]
}

// isBlank reports whether c separates fields: a space, a tab, or the end of
// a line (carriage return, line feed, vertical tab, form feed).
func isBlank(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\v', '\f':
		return true
	}
	return false
}
