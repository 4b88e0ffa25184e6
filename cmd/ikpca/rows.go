package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/ikpca/ikpca/internal/table"
)

// rowSource gives the rows of an input one at a time, for fits that stream: a goroutine
// reads and parses ahead while the model is updated, and the consumer can stop between
// two rows whatever the reader is doing (a read from a terminal or a pipe cannot be
// interrupted; the goroutine is abandoned and ends with the process).
type rowSource struct {
	label string
	width int
	size  int64 // the input's size in bytes if it is a regular file, else 0
	count *countingReader
	rows  chan rowItem
	stop  chan struct{}
	file  *os.File
}

// rowItem is one row of the input, or the error that ended it (io.EOF at its end).
type rowItem struct {
	row  []float64
	line int
	err  error
}

// countingReader counts the bytes read through it, for the progress bar.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// openRows opens the input named by args (a file, "-" or nothing for standard input),
// a text table or an IDX file of images (isIDX), for reading row by row. It returns at once, with errInterrupted, when ctx is cancelled
// before the first row is read; like readPoints it says on stderr when the first line is
// taken for a header.
func openRows(ctx context.Context, e env, args []string, f *tableFlags) (*rowSource, error) {
	name := inputName(args)
	src := &rowSource{label: table.StdinName, rows: make(chan rowItem, 256), stop: make(chan struct{})}
	var r io.Reader = e.in
	if name != "-" {
		file, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			src.size = fi.Size()
		}
		src.file, src.label, r = file, name, file
	}
	src.count = &countingReader{r: r}
	o, err := f.options(src.label)
	if err != nil {
		src.close()
		return nil, err
	}
	br := bufio.NewReader(src.count)
	rows, err := interruptible(ctx, "while reading "+src.label, func() (rowReader, error) {
		if isIDX(br) {
			return openIDX(br, src.label, f)
		}
		return table.NewReader(br, o)
	})
	if err != nil {
		src.close()
		return nil, err
	}
	if tr, ok := rows.(*table.Reader); ok && tr.HeaderDetected() {
		fmt.Fprintf(e.errw, "ikpca: %s: the first line taken as a header (every field is a name); give --header no if it is data\n", src.label)
	}
	src.width = rows.Width()
	go src.produce(rows)
	return src, nil
}

// rowReader reads the rows of an input one at a time: a text table (*table.Reader) or
// the images of an IDX file (idxRows). Next returns the row's line (an image's number),
// io.EOF after the last row, or the error that ended the input.
type rowReader interface {
	Width() int
	Next(dst []float64) (int, error)
}

// produce reads the rows into the channel until the input ends or the source is closed.
func (s *rowSource) produce(tr rowReader) {
	defer close(s.rows)
	for {
		row := make([]float64, s.width)
		line, err := tr.Next(row)
		item := rowItem{row: row, line: line, err: err}
		if err != nil {
			item.row = nil
		}
		select {
		case s.rows <- item:
		case <-s.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// next returns the next row and its line, io.EOF at the end of the input, the input's
// error, or the context's error as soon as it is cancelled.
func (s *rowSource) next(ctx context.Context) ([]float64, int, error) {
	select {
	case it, ok := <-s.rows:
		if !ok {
			return nil, 0, io.EOF
		}
		return it.row, it.line, it.err
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
}

// offset returns the number of bytes read so far.
func (s *rowSource) offset() int64 { return s.count.n.Load() }

// close stops the reader and closes the file.
func (s *rowSource) close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	if s.file != nil {
		s.file.Close()
	}
}

// head reads up to n rows of the stream, stored as they arrive in a buffer of room
// for reserve rows at first, and returns them with their lines, and the error that
// ended the reading early (io.EOF at the end of the input), if any.
func (src *rowSource) head(ctx context.Context, n, reserve int) ([]float64, []int, error) {
	head := make([]float64, 0, reserve*src.width)
	var lines []int
	for len(lines) < n {
		row, line, err := src.next(ctx)
		if err != nil {
			return head, lines, err
		}
		head = append(head, row...)
		lines = append(lines, line)
	}
	return head, lines, nil
}
