package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/table"
)

// An input whose first bytes are 0x00 0x00 (IDX) or 0x1f 0x8b (gzip) is read as an IDX
// file of images, whatever its name: the first byte of a text table is neither a NUL
// nor a control character, and gzip-compressed text is not read. An item of the file
// — a 28×28 image of the MNIST files — is a row of its elements in row-major order, with
// unsigned bytes (pixels) divided by 255 to [0, 1] (data.ReadIDX), and the row's "line"
// in messages is the item's 1-based number.

// isIDX reports whether the input in br starts as an IDX file does, compressed or not.
// It waits for the first two bytes.
func isIDX(br *bufio.Reader) bool {
	b, _ := br.Peek(2)
	return len(b) == 2 && (b[0] == 0 && b[1] == 0 || b[0] == 0x1f && b[1] == 0x8b)
}

// idxFlags refuses the flags of text tables for the IDX input named label: they would
// be silently ignored.
func (f *tableFlags) idxFlags(label string) error {
	if f.sep != "auto" || f.header != "auto" || f.columns != "" {
		return usageError{fmt.Errorf("%s is an IDX file: --sep, --header and --columns apply to text tables only", label)}
	}
	return nil
}

// readIDX reads the IDX file of images in br, named label in messages, as a table: one
// row an image, the lines their numbers.
func readIDX(br *bufio.Reader, label string, f *tableFlags) (*table.Table, error) {
	if err := f.idxFlags(label); err != nil {
		return nil, err
	}
	X, err := data.ReadIDX(br, data.IDXOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	n, _ := X.Dims()
	lines := make([]int, n)
	for i := range lines {
		lines[i] = i + 1
	}
	return &table.Table{X: X, Lines: lines}, nil
}

// idxRows gives the images of an IDX file one at a time, as rowSource reads them.
type idxRows struct {
	x     *data.IDXReader
	label string
	item  int // items returned
}

// openIDX prepares to read the images of the IDX file in br, named label in messages,
// one at a time. It reads the header and the first image.
func openIDX(br *bufio.Reader, label string, f *tableFlags) (*idxRows, error) {
	if err := f.idxFlags(label); err != nil {
		return nil, err
	}
	x, err := data.NewIDXReader(br, data.IDXOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if dims := x.Dims(); len(dims) < 2 {
		return nil, fmt.Errorf("%s: a one-dimensional IDX file of %d items (labels?), not images: give a file of two or more dimensions", label, dims[0])
	}
	return &idxRows{x: x, label: label}, nil
}

// Width returns the length of a row: the pixels of an image.
func (r *idxRows) Width() int { return r.x.Width() }

// Next reads the next image into dst and returns its number, or io.EOF after the last,
// or the error that ended the input, naming the file.
func (r *idxRows) Next(dst []float64) (int, error) {
	err := r.x.Next(dst)
	switch {
	case err == io.EOF:
		return 0, err
	case err != nil:
		return 0, fmt.Errorf("%s: %w", r.label, err)
	}
	r.item++
	return r.item, nil
}
