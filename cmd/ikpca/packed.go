package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/table"
)

// pointRows are the points fit reads before it fits them. A tracked fit copies every
// point into the model, so the input's own copy is what fit holds beyond the model: at
// 70,000 Fashion-MNIST images, 439 MB of float64 against the model's 439 MB, or 55 MB of
// bytes.
type pointRows interface {
	rowMatrix
	// line returns row i's line number (an image's item number) for messages.
	line(i int) int
}

// rowMatrix is a matrix whose rows can be read without At's cost per entry.
type rowMatrix interface {
	mat.Matrix
	// row returns row i, in dst (of the width) or in the matrix's own storage.
	row(dst []float64, i int) []float64
}

// denseRows are the rows of a *mat.Dense.
type denseRows struct{ *mat.Dense }

func (x denseRows) row(_ []float64, i int) []float64 { return x.RawRowView(i) }

// rowsFrom is the rows of p from lo on, as a matrix.
type rowsFrom struct {
	p  pointRows
	lo int
}

func (r rowsFrom) Dims() (int, int)    { n, d := r.p.Dims(); return n - r.lo, d }
func (r rowsFrom) At(i, j int) float64 { return r.p.At(r.lo+i, j) }
func (r rowsFrom) T() mat.Matrix       { return mat.Transpose{Matrix: r} }

// firstRows returns the first n rows of p as a matrix of their own, advised for huge
// pages (6 MB for the 1000 images of a tracked fit's start: docs/design.md, "Passes over
// the points").
func firstRows(p pointRows, n int) *mat.Dense {
	_, d := p.Dims()
	X := mat.NewDense(n, d, hugepage.Floats(n*d, 0))
	for i := range n {
		dst := X.RawRowView(i)
		copy(dst, p.row(dst, i)) // row may return its own storage
	}
	return X
}

// pixel is an IDX unsigned byte as data.ReadIDX gives it: the correctly rounded b/255.
var pixel = func() (t [256]float64) {
	for i := range t {
		t[i] = float64(i) / 255
	}
	return t
}()

// packedRows are the n points of d values that fit reads — a table's rows or an IDX
// file's images — held as compactly as their values allow: while they take at most 256
// distinct values (the pixels of images, from an IDX file or a CSV of them, or any
// table of few levels), as one byte a value, the code of its value in a table of them;
// from the 257th distinct value on, as the float64 values themselves. Either way the
// rows are kept in chunks of about 1 MiB of float64, so that a large input is never
// copied into a larger array as it grows: appended to one slice, the rows of 10,000
// Fashion-MNIST images in a CSV were copied 2.5 times over on average, 1.7 s of the
// 2.1 s it took to read them, and the peak held twice their 63 MB. The values are the
// parsed values, bit for bit.
type packedRows struct {
	n, d      int
	chunkRows int
	values    []float64       // the distinct values, while codes holds the rows
	codeOf    map[uint64]byte // a value's bits → its code
	codes     [][]byte        // chunks of rows, chunkRows·d codes each, while at most 256 values
	floats    [][]float64     // chunks of rows, chunkRows·d values each, from the 257th value on
	lines     []int           // row i's source line; nil: row i is item i+1 (IDX)
}

// packedChunkBytes is the size of a chunk of rows as float64: 1 MiB (a variable, so
// that tests can make chunks of a few rows).
var packedChunkBytes = 1 << 20

// newPackedRows returns an empty store of rows of d values.
func newPackedRows(d int) *packedRows {
	return &packedRows{d: d, chunkRows: max(1, packedChunkBytes/(8*d)), codeOf: make(map[uint64]byte)}
}

func (p *packedRows) Dims() (int, int) { return p.n, p.d }
func (p *packedRows) T() mat.Matrix    { return mat.Transpose{Matrix: p} }

func (p *packedRows) line(i int) int {
	if p.lines == nil {
		return i + 1
	}
	return p.lines[i]
}

func (p *packedRows) At(i, j int) float64 {
	if i < 0 || i >= p.n || j < 0 || j >= p.d {
		panic(mat.ErrIndexOutOfRange)
	}
	c, r := i/p.chunkRows, i%p.chunkRows
	if p.floats != nil {
		return p.floats[c][r*p.d+j]
	}
	return p.values[p.codes[c][r*p.d+j]]
}

func (p *packedRows) row(dst []float64, i int) []float64 {
	c, r := i/p.chunkRows, i%p.chunkRows
	if p.floats != nil {
		return p.floats[c][r*p.d : (r+1)*p.d]
	}
	for j, b := range p.codes[c][r*p.d : (r+1)*p.d] {
		dst[j] = p.values[b]
	}
	return dst
}

// appendRow adds the row x (of d values) from the source line line (0 for IDX items).
func (p *packedRows) appendRow(x []float64, line int) {
	c, r := p.n/p.chunkRows, p.n%p.chunkRows
	if p.floats == nil {
		if r == 0 {
			p.codes = append(p.codes, make([]byte, p.chunkRows*p.d))
		}
		row := p.codes[c][r*p.d : (r+1)*p.d]
		for j, v := range x {
			b, ok := p.codeOf[math.Float64bits(v)]
			if !ok {
				if len(p.values) == 256 {
					p.unpack()
					break
				}
				b = byte(len(p.values))
				p.codeOf[math.Float64bits(v)] = b
				p.values = append(p.values, v)
			}
			row[j] = b
		}
	}
	if p.floats != nil {
		if len(p.floats) <= c {
			p.floats = append(p.floats, make([]float64, p.chunkRows*p.d))
		}
		copy(p.floats[c][r*p.d:(r+1)*p.d], x)
	}
	if line > 0 || p.lines != nil {
		if p.lines == nil {
			p.lines = make([]int, p.n, max(p.n+1, p.chunkRows))
			for i := range p.lines {
				p.lines[i] = i + 1
			}
		}
		p.lines = append(p.lines, line)
	}
	p.n++
}

// unpack turns the rows held as codes into float64, a chunk at a time, each chunk of
// codes dropped as soon as it is decoded.
func (p *packedRows) unpack() {
	p.floats = make([][]float64, len(p.codes))
	for c, codes := range p.codes {
		f := make([]float64, p.chunkRows*p.d)
		for i, b := range codes[:min(p.chunkRows, p.n-c*p.chunkRows)*p.d] {
			f[i] = p.values[b]
		}
		p.floats[c], p.codes[c] = f, nil
	}
	p.codes, p.values, p.codeOf = nil, nil, nil
}

// readPointRows reads the input as readPoints does — a table, or an IDX file's images —
// into packedRows.
func readPointRows(ctx context.Context, e env, args []string, f *tableFlags) (pointRows, error) {
	br, label, done, err := openInput(e, args)
	if err != nil {
		return nil, err
	}
	defer done()
	if !isIDX(br) {
		o, err := f.options(label)
		if err != nil {
			return nil, err
		}
		p, err := interruptible(ctx, "while reading "+label, func() (*packedRows, error) {
			tr, err := table.NewReader(br, o)
			if err != nil {
				return nil, err
			}
			p := newPackedRows(tr.Width())
			lines := make([]int, max(1, table.BatchValues/p.d))
			x := make([]float64, len(lines)*p.d)
			for {
				n, err := tr.NextRows(x, lines) // parsed on every core
				if errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					return nil, err
				}
				for i, line := range lines[:n] {
					p.appendRow(x[i*p.d:(i+1)*p.d], line)
				}
			}
			if tr.HeaderDetected() {
				fmt.Fprintf(e.errw, "ikpca: %s: line %d taken as a header (every field is a name); give --header no if it is data\n", label, tr.HeaderLine())
			}
			return p, nil
		})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return interruptible(ctx, "while reading "+label, func() (pointRows, error) {
		src, err := openIDX(br, label, f)
		if err != nil {
			return nil, err
		}
		p := newPackedRows(src.Width())
		x := make([]float64, p.d)
		for {
			if _, err := src.Next(x); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, err
			}
			p.appendRow(x, 0)
		}
		if p.n == 0 {
			return nil, fmt.Errorf("%s: no images", label)
		}
		return p, nil
	})
}
