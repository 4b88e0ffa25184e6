// Package table reads numeric tables from CSV, TSV or whitespace-separated
// text and writes them back as CSV.
//
// Read is meant for data typed or exported by people, so every error it
// returns names the input, the line and, where it applies, the column, in
// the form "name:line: column j ("header"): message". No input makes it
// panic, and no row is silently dropped: a first line is taken for a header
// only when it is unmistakably one. Write formats numbers so that Read gives
// back the same bits.
package table

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// StdinName is the name used in messages when Options.Name is empty.
const StdinName = "<stdin>"

// HeaderMode says whether the first record is a header.
type HeaderMode int

const (
	// HeaderAuto takes the first record as a header if the column
	// selection uses a header name, or if every selected field of it that
	// is not empty is a name: neither a number nor number-like (starting
	// like a number, as a mistyped "2.5O" or "1O" does). A first record of
	// numbers is data. A first record that mixes names or number-like
	// fields with numbers, or holds a number-like field, is ambiguous —
	// a header with a numeric name, or a data row with a typo — and Read
	// returns an error asking for HeaderYes or HeaderNo, so that no data
	// row is silently taken for a header.
	HeaderAuto HeaderMode = iota
	// HeaderYes takes the first record as a header.
	HeaderYes
	// HeaderNo takes the first record as data.
	HeaderNo
)

// String returns "auto", "yes" or "no".
func (m HeaderMode) String() string {
	switch m {
	case HeaderAuto:
		return "auto"
	case HeaderYes:
		return "yes"
	case HeaderNo:
		return "no"
	}
	return "HeaderMode(" + strconv.Itoa(int(m)) + ")"
}

// Options for Read.
type Options struct {
	// Name is the file name used in messages; "" means StdinName.
	Name string
	// Comma is the field separator. Space (' ') means any run of spaces
	// and tabs, as in awk and in the UCI data sets, with no quoting:
	// leading and trailing white space is ignored. 0 detects the
	// separator from the first two lines that have more than spaces: tab
	// if either contains a tab, else comma if either contains a comma,
	// else white space if both (or the only one) have fields separated by
	// spaces, else comma (a single column).
	Comma rune
	// Header says whether the first record is a header.
	Header HeaderMode
	// Columns selects columns. "" selects all columns. Otherwise it is a
	// comma-separated list of items, each a 1-based index ("3"), a range
	// ("2-5"), an open range to the last column ("4-") or a header name
	// (only with a header). The order of the items is kept; selecting a
	// column twice is an error.
	Columns string
}

// Table is a numeric table read from text.
type Table struct {
	// X holds one row per data record and one column per selected
	// column. All values are finite.
	X *mat.Dense
	// Names are the names of the selected columns: from the header, or
	// "c1", "c2", … after the 1-based index in the source. Header names
	// are trimmed of surrounding white space, and line breaks in quoted
	// names become "\n".
	Names []string
	// Lines holds the source line number of each row of X (1-based, as
	// an editor shows it).
	Lines []int
	// HeaderLine is the source line of the header, 0 if there is none.
	HeaderLine int
	// HeaderDetected reports that HeaderAuto took the first record for a
	// header because of its content (not because the column selection
	// names columns): callers may tell the user.
	HeaderDetected bool
}

// Space is the value of Options.Comma that separates fields by runs of
// spaces and tabs.
const Space = ' '

// CheckColumns checks a column selection (see Options.Columns) as far as it
// can be checked without the data: syntax, column 0, reversed ranges. Read
// makes the same checks; CheckColumns lets a caller report these mistakes
// before it reads any input.
func CheckColumns(spec string) error {
	if _, err := parseColumns(spec); err != nil {
		return fmt.Errorf("column selection: %w", err)
	}
	return nil
}

// maxShown is how many bytes of a field an error message quotes.
const maxShown = 40

// errUTF16 reports input that starts with a UTF-16 byte order mark.
var errUTF16 = errors.New("the text is UTF-16; save it as UTF-8")

// utf8BOM is the byte order mark that some programs put at the start of
// UTF-8 text.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Read reads a table of numbers from r.
//
// Blank lines, and lines holding only spaces, are skipped; all other
// records must have as many fields as the first one. Fields are trimmed of
// surrounding white space and parsed with strconv.ParseFloat; NaN,
// infinities and values that overflow are errors. A UTF-8 byte order mark
// at the start is ignored. With a comma (or any other non-space)
// separator, white space before a field, quoted or not, is ignored; with
// a tab separator it is kept, so that empty fields are not merged; with
// Space, runs of spaces and tabs separate fields and there is no quoting.
// The header rule is that of HeaderAuto.
//
// Read holds the whole table in memory; a Reader gives the rows one at a
// time, under the same rules.
func Read(r io.Reader, opts Options) (*Table, error) {
	tr, err := NewReader(r, opts)
	if err != nil {
		return nil, err
	}
	var (
		data  []float64
		lines []int
	)
	w := tr.Width()
	batch := make([]int, max(1, BatchValues/w))
	rows := make([]float64, len(batch)*w)
	for {
		n, err := tr.NextRows(rows, batch)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		data = append(data, rows[:n*w]...)
		lines = append(lines, batch[:n]...)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no data rows", tr.name)
	}
	t := &Table{
		X:              mat.NewDense(len(lines), tr.Width(), data),
		Names:          tr.Names(),
		Lines:          lines,
		HeaderDetected: tr.HeaderDetected(),
	}
	if tr.header != nil {
		t.HeaderLine = tr.firstLine
	}
	return t, nil
}

// Reader reads the rows of a numeric table one at a time, so that a table of
// any length can be processed in bounded memory. Its rules are those of Read.
type Reader struct {
	name      string
	cr        records
	width     int      // number of fields of the first record
	firstLine int      // line of the first record
	header    []string // trimmed header fields, nil without a header
	detected  bool     // the header was detected from its content
	sel       []int    // selected 0-based source columns
	implicit  bool     // no column selection was given
	pending   []string // the first record, when it is data, until Next returns it
	pendLine  int
	row       []float64 // the row being parsed
	batch     batch     // NextRows' records
	rows      int       // rows returned so far
	err       error     // the error that ended the input (io.EOF at its end)
}

// NewReader prepares to read a table from r: it reads up to the first record
// that is not blank, to settle the separator, the header and the selected
// columns. An input without any record is an error.
func NewReader(r io.Reader, opts Options) (*Reader, error) {
	name := opts.Name
	if name == "" {
		name = StdinName
	}
	if r == nil {
		return nil, fmt.Errorf("%s: no input", name)
	}
	switch opts.Header {
	case HeaderAuto, HeaderYes, HeaderNo:
	default:
		return nil, fmt.Errorf("%s: invalid header mode %d", name, int(opts.Header))
	}
	if opts.Comma != 0 && !validComma(opts.Comma) {
		return nil, fmt.Errorf("%s: invalid field separator %q", name, opts.Comma)
	}
	items, err := parseColumns(opts.Columns)
	if err != nil {
		return nil, fmt.Errorf("%s: column selection: %w", name, err)
	}
	src, comma, err := prepare(r, opts.Comma)
	if err == errUTF16 {
		return nil, fmt.Errorf("%s:1: %w", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}

	tr := &Reader{name: name, implicit: len(items) == 0}
	if comma == Space {
		tr.cr = newFieldsReader(src)
	} else {
		c := csv.NewReader(src)
		c.Comma = comma
		c.FieldsPerRecord = -1
		c.TrimLeadingSpace = !unicode.IsSpace(comma)
		c.ReuseRecord = true
		tr.cr = c
	}
	rec, line, err := tr.record()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: no data rows", name)
	}
	if err != nil {
		return nil, err
	}
	tr.width, tr.firstLine = len(rec), line
	hasHeader := opts.Header == HeaderYes || opts.Header == HeaderAuto && hasNames(items)
	if hasHeader {
		tr.header = trimAll(rec)
	}
	if tr.sel, err = resolve(items, tr.width, tr.firstLine, tr.header); err != nil {
		return nil, fmt.Errorf("%s: column selection: %w", name, err)
	}
	if !hasHeader && opts.Header == HeaderAuto {
		names, err := headerByContent(rec, tr.sel)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, tr.firstLine, err)
		}
		if names {
			hasHeader, tr.detected = true, true
			tr.header = trimAll(rec)
		}
	}
	if !hasHeader {
		tr.pending, tr.pendLine = append([]string(nil), rec...), line
	}
	return tr, nil
}

// record returns the next record that is not blank and its line.
func (tr *Reader) record() ([]string, int, error) {
	for {
		rec, err := tr.cr.Read()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			return nil, 0, readError(tr.name, err)
		}
		if len(rec) == 0 || len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line of spaces
		}
		line, _ := tr.cr.FieldPos(0)
		return rec, line, nil
	}
}

// Width returns the number of selected columns: the length of a row.
func (tr *Reader) Width() int { return len(tr.sel) }

// Names returns the names of the selected columns, as Table.Names.
func (tr *Reader) Names() []string {
	names := make([]string, len(tr.sel))
	for k, j := range tr.sel {
		if tr.header != nil {
			names[k] = tr.header[j]
		} else {
			names[k] = "c" + strconv.Itoa(j+1)
		}
	}
	return names
}

// HeaderDetected reports what Table.HeaderDetected reports.
func (tr *Reader) HeaderDetected() bool { return tr.detected }

// HeaderLine returns what Table.HeaderLine holds: the source line of the header, 0 if
// there is none.
func (tr *Reader) HeaderLine() int {
	if tr.header == nil {
		return 0
	}
	return tr.firstLine
}

// Rows returns the number of rows Next has returned.
func (tr *Reader) Rows() int { return tr.rows }

// Next reads the next row into dst (length Width()) and returns its source
// line. At the end of the input it returns io.EOF. An error ends the input:
// Next returns it again on every later call. dst is written only when Next
// succeeds.
func (tr *Reader) Next(dst []float64) (int, error) {
	if tr.err != nil {
		return 0, tr.err
	}
	if len(dst) != len(tr.sel) {
		return 0, fmt.Errorf("%s: row buffer of %d values for %d columns", tr.name, len(dst), len(tr.sel))
	}
	line, err := tr.parse()
	if err != nil {
		tr.err = err
		return 0, err
	}
	copy(dst, tr.row)
	tr.rows++
	return line, nil
}

// parse reads the next record into tr.row.
func (tr *Reader) parse() (int, error) {
	rec, line, err := tr.next()
	if err != nil {
		return 0, err
	}
	if len(tr.row) != len(tr.sel) {
		tr.row = make([]float64, len(tr.sel))
	}
	if j, finite := tr.numbers(rec, tr.row); j >= 0 {
		fl, _ := tr.cr.FieldPos(j)
		return 0, tr.fieldError(rec, j, fl, finite)
	}
	return line, nil
}

// next returns the next record, of the first one's width, and its line.
func (tr *Reader) next() ([]string, int, error) {
	rec, line := tr.pending, tr.pendLine
	if rec != nil {
		tr.pending = nil
	} else {
		var err error
		if rec, line, err = tr.record(); err != nil {
			return nil, 0, err
		}
	}
	if len(rec) != tr.width {
		return nil, 0, fmt.Errorf("%s:%d: %d fields, want %d (as in line %d)", tr.name, line, len(rec), tr.width, tr.firstLine)
	}
	return rec, line, nil
}

// numbers parses the selected fields of rec into dst. It returns −1, or the source
// column j of the first field that is not a number (finite false) or not a finite one.
// It reads only rec and writes only dst, so that rows are parsed concurrently
// (NextRows).
func (tr *Reader) numbers(rec []string, dst []float64) (j int, finite bool) {
	for k, j := range tr.sel {
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[j]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return j, false
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return j, true
		}
		dst[k] = v
	}
	return -1, false
}

// fieldError is the error for field j of rec, on line fl, as numbers found it: not a
// number, or (finite) not a finite one.
func (tr *Reader) fieldError(rec []string, j, fl int, finite bool) error {
	s := strings.TrimSpace(rec[j])
	if finite {
		return fmt.Errorf("%s:%d: %s: %s is not a finite number", tr.name, fl, columnLabel(j, tr.header), quote(s))
	}
	msg := fmt.Sprintf("%s:%d: %s: %s is not a number", tr.name, fl, columnLabel(j, tr.header), quote(s))
	if tr.implicit {
		msg += "; select numeric columns with --columns"
	}
	return errors.New(msg)
}

// validComma reports whether c can separate fields, by the rules of
// encoding/csv.
func validComma(c rune) bool {
	return c != 0 && c != '"' && c != '\r' && c != '\n' && utf8.ValidRune(c) && c != utf8.RuneError
}

// prepare strips a UTF-8 byte order mark from the start of r and, if
// comma is 0, detects the separator. It returns a reader for the rest of
// the input and the separator.
func prepare(r io.Reader, comma rune) (io.Reader, rune, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	start, err := br.Peek(3)
	if err != nil && err != io.EOF {
		return nil, 0, fmt.Errorf("read error: %w", err)
	}
	switch {
	case bytes.HasPrefix(start, utf8BOM):
		br.Discard(len(utf8BOM))
	case bytes.HasPrefix(start, []byte{0xFF, 0xFE}), bytes.HasPrefix(start, []byte{0xFE, 0xFF}):
		return nil, 0, errUTF16
	}
	if comma != 0 {
		return br, comma, nil
	}
	pre, comma, err := detect(br)
	if err != nil {
		return nil, 0, err
	}
	return io.MultiReader(bytes.NewReader(pre), br), comma, nil
}

// detect reads up to the end of the second line of br that has more than spaces
// (stopping at the first tab) and returns what it read, for the record reader to see
// too, and the separator those lines show, by the rule of Options.Comma.
func detect(br *bufio.Reader) ([]byte, rune, error) {
	var (
		pre        []byte
		lines      int  // lines with content seen so far
		hasContent bool // the current line has a non-space
		gap        bool // the current line has a space after content
		spaced     bool // the current line has a space between two fields
		allSpaced  = true
		hasTab     bool
		hasComma   bool
	)
	endLine := func() {
		if hasContent {
			lines++
			allSpaced = allSpaced && spaced
		}
		hasContent, gap, spaced = false, false, false
	}
scan:
	for {
		chunk, err := br.ReadSlice('\n')
		pre = append(pre, chunk...)
		for _, c := range chunk {
			switch c {
			case '\n':
				endLine()
				if lines == 2 {
					break scan
				}
			case '\t':
				hasTab = true
				break scan
			case ' ', '\r':
				gap = gap || hasContent
			case ',':
				hasComma = true
				fallthrough
			default:
				spaced = spaced || gap
				hasContent = true
			}
		}
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			endLine()
			break scan
		default:
			return nil, 0, fmt.Errorf("read error: %w", err)
		}
	}
	switch {
	case hasTab:
		return pre, '\t', nil
	case hasComma:
		return pre, ',', nil
	case lines > 0 && allSpaced:
		return pre, Space, nil
	}
	return pre, ',', nil
}

// readError turns an error of the CSV reader into one that names the
// input and the line.
func readError(name string, err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: read error: %w", name, err)
	}
	msg := fmt.Sprintf("%s:%d:", name, pe.Line)
	if pe.Column > 0 {
		msg += strconv.Itoa(pe.Column) + ":"
	}
	if pe.StartLine != 0 && pe.StartLine != pe.Line {
		return fmt.Errorf("%s %w (in the record that starts on line %d)", msg, pe.Err, pe.StartLine)
	}
	return fmt.Errorf("%s %w", msg, pe.Err)
}

// trimAll returns a new slice holding the fields of rec trimmed of
// surrounding white space, with line breaks in them made "\n".
func trimAll(rec []string) []string {
	out := make([]string, len(rec))
	for i, s := range rec {
		s = strings.TrimSpace(s)
		if strings.Contains(s, "\r") {
			s = strings.ReplaceAll(s, "\r\n", "\n")
			s = strings.ReplaceAll(s, "\r", "\n")
		}
		out[i] = s
	}
	return out
}

// headerByContent applies the rule of HeaderAuto to the selected fields of
// the first record: it reports whether they are names (a header), false if
// they are numbers (data), and an error if they are neither. Overflowing
// numbers, NaN and infinities count as numbers, so that a first data row
// holding one of them is reported as such instead of being taken for a
// header.
func headerByContent(rec []string, sel []int) (bool, error) {
	number, name, numberLike := -1, -1, -1 // first selected field of each kind
	for _, j := range sel {
		s := strings.TrimSpace(rec[j])
		switch {
		case s == "":
		case isNumber(s):
			if number < 0 {
				number = j
			}
		case looksLikeNumber(s):
			if numberLike < 0 {
				numberLike = j
			}
		default:
			if name < 0 {
				name = j
			}
		}
	}
	field := func(j int) string { return "column " + strconv.Itoa(j+1) + " " + quote(strings.TrimSpace(rec[j])) }
	const ask = "give --header yes or --header no"
	switch {
	case numberLike >= 0:
		return false, fmt.Errorf("cannot tell whether this line is a header: %s looks like a mistyped number; %s", field(numberLike), ask)
	case name >= 0 && number >= 0:
		return false, fmt.Errorf("cannot tell whether this line is a header: %s is a name but %s is a number; %s (and select numeric columns with --columns)", field(name), field(number), ask)
	}
	return name >= 0, nil
}

// isNumber reports whether s parses as a float64, overflowing or not.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// looksLikeNumber reports whether s, which is not a number, starts like one:
// an optional sign (also the Unicode minus), then a digit, or a point and a
// digit. Such a field is more likely a typo in a number ("2.5O", "1..2",
// "3,4" in a tab-separated file) than a column name.
func looksLikeNumber(s string) bool {
	s = strings.TrimPrefix(s, "−")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
	}
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// columnLabel names the 0-based source column j in messages.
func columnLabel(j int, header []string) string {
	if header == nil {
		return "column " + strconv.Itoa(j+1)
	}
	return "column " + strconv.Itoa(j+1) + " (" + quote(header[j]) + ")"
}

// quote quotes s for a message, shortening it if it is long.
func quote(s string) string {
	if len(s) <= maxShown {
		return strconv.Quote(s)
	}
	n := maxShown
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + "..."
}

// Write writes names as a header line, if names is not nil, and then the
// rows of X. Fields are separated by comma (0 means ','). Numbers are
// formatted by strconv.FormatFloat(v, 'g', -1, 64), so Read gives back
// the same values; NaN and infinities are written as such, though Read
// rejects them. Names are quoted as CSV requires.
//
// A header of a single empty name is written as `""`, which Read takes
// for a blank line. Read trims names of surrounding white space.
func Write(w io.Writer, names []string, X mat.Matrix, comma rune) error {
	if comma == 0 {
		comma = ','
	}
	if !validComma(comma) {
		return fmt.Errorf("table: invalid field separator %q", comma)
	}
	if X == nil {
		return errors.New("table: nil matrix")
	}
	r, c := X.Dims()
	if names != nil && len(names) != c {
		return fmt.Errorf("table: %d names for %d columns", len(names), c)
	}

	bw := bufio.NewWriter(w)
	if names != nil {
		var line []byte
		for j, s := range names {
			if j > 0 {
				line = utf8.AppendRune(line, comma)
			}
			line = appendName(line, s, comma, j == 0, len(names) == 1)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}

	// Quote numbers only if the separator may occur in them.
	mayQuote := strings.ContainsRune("0123456789.+-eEInfinityNaN", comma)
	var (
		line []byte
		num  []byte
	)
	for i := 0; i < r; i++ {
		line = line[:0]
		for j := 0; j < c; j++ {
			if j > 0 {
				line = utf8.AppendRune(line, comma)
			}
			num = strconv.AppendFloat(num[:0], X.At(i, j), 'g', -1, 64)
			if mayQuote && bytes.ContainsRune(num, comma) {
				line = append(line, '"')
				line = append(line, num...)
				line = append(line, '"')
			} else {
				line = append(line, num...)
			}
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendName appends s to b as a CSV field separated by comma, quoted if
// Read would otherwise not give it back: if it holds the separator, a
// quote or a line break, if it starts with white space, if it is the
// first field and starts with a byte order mark, or if it is the only
// field and empty.
func appendName(b []byte, s string, comma rune, first, only bool) []byte {
	r, _ := utf8.DecodeRuneInString(s)
	quoted := s == "" && only ||
		strings.ContainsRune(s, comma) || strings.ContainsAny(s, "\"\r\n") ||
		unicode.IsSpace(r) || first && hasMark(s)
	if !quoted {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// hasMark reports whether s starts with the bytes of a UTF-8 or UTF-16
// byte order mark, which Read treats specially at the start of its input.
func hasMark(s string) bool {
	return strings.HasPrefix(s, string(utf8BOM)) ||
		strings.HasPrefix(s, "\xFE\xFF") || strings.HasPrefix(s, "\xFF\xFE")
}
