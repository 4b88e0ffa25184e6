package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/table"
)

// pointRows are the points fit reads before it fits them: a table's rows, or the images
// of an IDX file held as their bytes. A tracked fit copies every point into the model,
// so the input's own copy is what fit holds beyond the model: at 70,000 Fashion-MNIST
// images, 439 MB of float64 against the model's 439 MB, or 55 MB of bytes.
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

// tableRows are the rows of a table.
type tableRows struct{ *table.Table }

func (t tableRows) Dims() (int, int)                 { return t.X.Dims() }
func (t tableRows) At(i, j int) float64              { return t.X.At(i, j) }
func (t tableRows) T() mat.Matrix                    { return t.X.T() }
func (t tableRows) row(_ []float64, i int) []float64 { return t.X.RawRowView(i) }
func (t tableRows) line(i int) int                   { return t.Lines[i] }

// firstRows returns the first n rows of p as a matrix: a table's own, or images decoded.
func firstRows(p pointRows, n int) *mat.Dense {
	_, d := p.Dims()
	if t, ok := p.(tableRows); ok {
		return t.X.Slice(0, n, 0, d).(*mat.Dense)
	}
	X := mat.NewDense(n, d, nil)
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

// packedImages are the n images of an IDX file, d elements each, held as the bytes b
// of which each element is pixel[b] — the file's own bytes for a file of unsigned
// bytes — or, for a file of another element type, as the float64 values themselves.
type packedImages struct {
	n, d   int
	bytes  []byte
	floats []float64 // nil while every element is a pixel
}

func (p *packedImages) Dims() (int, int) { return p.n, p.d }
func (p *packedImages) T() mat.Matrix    { return mat.Transpose{Matrix: p} }
func (p *packedImages) line(i int) int   { return i + 1 }

func (p *packedImages) At(i, j int) float64 {
	if i < 0 || i >= p.n || j < 0 || j >= p.d {
		panic(mat.ErrIndexOutOfRange)
	}
	if p.floats != nil {
		return p.floats[i*p.d+j]
	}
	return pixel[p.bytes[i*p.d+j]]
}

func (p *packedImages) row(dst []float64, i int) []float64 {
	if p.floats != nil {
		return p.floats[i*p.d : (i+1)*p.d]
	}
	for j, b := range p.bytes[i*p.d : (i+1)*p.d] {
		dst[j] = pixel[b]
	}
	return dst
}

// appendRow adds an image, as bytes while every element is a pixel.
func (p *packedImages) appendRow(x []float64) {
	if p.floats == nil {
		start := len(p.bytes)
		for _, v := range x {
			b := math.Round(v * 255)
			if !(b >= 0 && b <= 255) || pixel[int(b)] != v {
				// Not a file of unsigned bytes: the values as they are from here on.
				floats := make([]float64, p.n*p.d, (p.n+1)*p.d)
				for i, b := range p.bytes[:start] {
					floats[i] = pixel[b]
				}
				p.bytes, p.floats = nil, floats
				break
			}
			p.bytes = append(p.bytes, byte(b))
		}
	}
	if p.floats != nil {
		p.floats = append(p.floats, x...)
	}
	p.n++
}

// readPointRows reads the input as readPoints does, but an IDX file's images into
// packedImages.
func readPointRows(ctx context.Context, e env, args []string, f *tableFlags) (pointRows, error) {
	br, label, done, err := openInput(e, args)
	if err != nil {
		return nil, err
	}
	defer done()
	if !isIDX(br) {
		t, err := readTable(ctx, e, br, label, f)
		if err != nil {
			return nil, err
		}
		return tableRows{t}, nil
	}
	return interruptible(ctx, "while reading "+label, func() (pointRows, error) {
		src, err := openIDX(br, label, f)
		if err != nil {
			return nil, err
		}
		p := &packedImages{d: src.Width()}
		x := make([]float64, p.d)
		for {
			if _, err := src.Next(x); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, err
			}
			p.appendRow(x)
		}
		if p.n == 0 {
			return nil, fmt.Errorf("%s: no images", label)
		}
		return p, nil
	})
}
