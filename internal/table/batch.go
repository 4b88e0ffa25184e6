package table

import (
	"fmt"
	"runtime"

	"github.com/ikpca/ikpca/internal/parallel"
)

// BatchValues is the number of values NextRows is best given room for at a time: enough
// for its rows to be parsed on several cores while the next are read, few enough that
// the records it holds as text (16 bytes a field besides the text) stay around a
// megabyte.
const BatchValues = 1 << 16

const (
	// batchParts is how many parts NextRows splits its rows into: each is parsed while
	// the next is read.
	batchParts = 8
	// batchRowsPerChunk is how many rows a goroutine parses at a time.
	batchRowsPerChunk = 2
	// batchParallelValues is the least number of values NextRows parses on other
	// goroutines than the caller's: 8192 numbers take about 0.3 ms.
	batchParallelValues = 8192
)

// batch holds the records NextRows has read and is parsing.
type batch struct {
	fields []string // the records, width each
	lines  []int    // each record's line
	// spread holds the line of every field of a record whose fields do not all start on
	// its line (a quoted field across lines), by the record's index: encoding/csv tells
	// a field's line only for its last record.
	spread map[int][]int
	bad    []int  // each record's first bad column, −1 if none
	finite []bool // whether that column's field is a number that is not finite
	dst    []float64
	tr     *Reader
	base   int // the first record of the part being parsed
	team   parallel.Team
	parse  func(lo, hi int) // parseRows, bound once
}

// NextRows reads the next rows, up to len(lines), into dst (len(lines)·Width() values,
// a row after the other) and their source lines into lines, and returns how many it
// read. Its text is read on the calling goroutine while the numbers of the rows read
// before are parsed on up to GOMAXPROCS others: the numbers are most of the time a
// table takes. BatchValues values at a time is enough. It returns rows or an error,
// never both: fewer rows than asked for when the input ends or a bad row comes after
// them, then io.EOF, or the bad row's error, on this call and every later one. The rows
// and errors are those Next gives, one call at a time, with the same lines; dst beyond
// the rows returned may have been written.
func (tr *Reader) NextRows(dst []float64, lines []int) (int, error) {
	if tr.err != nil {
		return 0, tr.err
	}
	w := len(tr.sel)
	if len(dst) != len(lines)*w {
		return 0, fmt.Errorf("%s: a buffer of %d values for %d rows of %d columns", tr.name, len(dst), len(lines), w)
	}
	b := &tr.batch
	b.prepare(len(lines), tr.width)
	b.dst, b.tr = dst, tr
	n, end := b.read(len(lines), w)
	if i, err := b.firstBad(n); err != nil {
		n, end = i, err
	}
	b.dst, b.tr = nil, nil
	copy(lines, b.lines[:n])
	tr.rows += n
	if end != nil {
		tr.err = end
	}
	if n > 0 {
		return n, nil
	}
	return 0, end
}

// read reads up to rows records of w selected values into the batch and parses them,
// the parts read before on other goroutines while it reads, and returns how many it
// read and the error that ended the input, if any.
func (b *batch) read(rows, w int) (int, error) {
	tr := b.tr
	// With several cores, as many parsers as cores: the reader is often waiting on
	// them, and then leaves its core to one. With one, no handing over at all.
	helpers := 0
	if procs := runtime.GOMAXPROCS(0); procs > 1 && rows*w >= batchParallelValues {
		helpers = procs
	}
	var (
		parts chan [2]int
		done  chan struct{}
	)
	if helpers > 0 {
		parts, done = make(chan [2]int, batchParts), make(chan struct{})
		go b.parseParts(parts, done, helpers)
	}
	per := max(1, rows/batchParts)
	n, from := 0, 0
	var end error
	for n < rows {
		rec, line, err := tr.next()
		if err != nil {
			end = err
			break
		}
		if first, _ := tr.cr.FieldPos(0); tr.lastLine(len(rec)) != first {
			pos := make([]int, len(rec))
			for j := range rec {
				pos[j], _ = tr.cr.FieldPos(j)
			}
			b.spread[n] = pos
		}
		copy(b.fields[n*tr.width:(n+1)*tr.width], rec)
		b.lines[n] = line
		n++
		if helpers > 0 && n-from == per {
			parts <- [2]int{from, n}
			from = n
		}
	}
	if helpers == 0 {
		b.base = 0
		b.parseRows(0, n)
		return n, end
	}
	if from < n {
		parts <- [2]int{from, n}
	}
	close(parts)
	<-done
	return n, end
}

// firstBad returns the first of the n records parsed with a bad field and its error,
// naming the line the field starts on, or n and nil.
func (b *batch) firstBad(n int) (int, error) {
	tr := b.tr
	for i := range n {
		if j := b.bad[i]; j >= 0 {
			fl := b.lines[i]
			if pos, ok := b.spread[i]; ok {
				fl = pos[j]
			}
			return i, tr.fieldError(b.fields[i*tr.width:(i+1)*tr.width], j, fl, b.finite[i])
		}
	}
	return n, nil
}

// prepare makes room for rows records of width fields. The reading goroutine fills
// them in place while the parsing ones read those before: nothing is appended, so that
// no slice is moved under them.
func (b *batch) prepare(rows, width int) {
	if cap(b.fields) < rows*width {
		b.fields = make([]string, rows*width)
	}
	if cap(b.lines) < rows {
		b.lines, b.bad, b.finite = make([]int, rows), make([]int, rows), make([]bool, rows)
	}
	b.fields, b.lines, b.bad, b.finite = b.fields[:rows*width], b.lines[:rows], b.bad[:rows], b.finite[:rows]
	if b.spread == nil {
		b.spread = map[int][]int{}
	}
	clear(b.spread)
	if b.parse == nil {
		b.parse = b.parseRows
	}
}

// parseParts parses the parts of the batch sent on parts, in order, each on up to
// helpers goroutines, and closes done after the last.
func (b *batch) parseParts(parts <-chan [2]int, done chan<- struct{}, helpers int) {
	for p := range parts {
		b.base = p[0]
		b.team.Run(helpers, p[1]-p[0], batchRowsPerChunk, b.parse)
	}
	close(done)
}

// lastLine is the line of the last of the last record's width fields.
func (tr *Reader) lastLine(width int) int {
	l, _ := tr.cr.FieldPos(width - 1)
	return l
}

// parseRows parses the records base + lo to base + hi of the batch into their rows of
// dst.
func (b *batch) parseRows(lo, hi int) {
	tr := b.tr
	w, width := len(tr.sel), tr.width
	for i := b.base + lo; i < b.base+hi; i++ {
		b.bad[i], b.finite[i] = tr.numbers(b.fields[i*width:(i+1)*width], b.dst[i*w:(i+1)*w])
	}
}
