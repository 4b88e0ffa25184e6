package data

import (
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"
)

// ReadIDX reads an IDX file of two or more dimensions — images, say — from r and
// returns one row per item, the item's elements in row-major order: a 60000×28×28 file
// gives a 60000×784 matrix. Unsigned bytes are divided by 255, to [0, 1], unless
// opts.Raw; elements of other types are their values. opts.Limit reads only the first
// items. The input may be gzip-compressed; see IDXReader for the format.
//
// Besides the errors of NewIDXReader and of IDXReader.Next (bytes after the declared
// data, when the whole file is read, are one), a one-dimensional file, such as a file
// of labels, is ErrArgument, and so is a matrix of more than 2^28 elements. The memory
// it takes grows with the data that arrive, whatever the header declares. On error the
// matrix is nil.
func ReadIDX(r io.Reader, opts IDXOptions) (*mat.Dense, error) {
	x, err := NewIDXReader(r, opts)
	if err != nil {
		return nil, err
	}
	if len(x.dims) < 2 {
		return nil, fmt.Errorf("%w: %s: a one-dimensional file of %d items (labels?) where items of two or more dimensions (images) are expected", ErrArgument, x.name, x.dims[0])
	}
	data, err := x.readAll()
	if err != nil {
		return nil, err
	}
	return mat.NewDense(x.items, x.width, data), nil
}

// ReadIDXLabels reads a one-dimensional IDX file of integers — class labels, say — from
// r. The elements must be of an integer type (unsigned byte, which is not scaled, int8,
// int16 or int32). opts.Limit reads only the first labels; opts.Raw has no effect. The
// input may be gzip-compressed; see IDXReader for the format.
//
// Besides the errors of NewIDXReader and of IDXReader.Next, a file of two or more
// dimensions, such as a file of images, and a file of float32 or float64 elements are
// ErrArgument. On error the labels are nil.
func ReadIDXLabels(r io.Reader, opts IDXOptions) ([]int, error) {
	return readIDXLabels(r, opts, "")
}

// readIDXLabels is ReadIDXLabels of the named file ("": unnamed), which its errors name.
func readIDXLabels(r io.Reader, opts IDXOptions, file string) ([]int, error) {
	opts.Raw = true
	x, err := newIDXReader(r, opts, file)
	if err != nil {
		return nil, err
	}
	if len(x.dims) != 1 {
		return nil, fmt.Errorf("%w: %s: a file of %d items of sizes %v (images?) where labels, one dimension, are expected", ErrArgument, x.name, x.dims[0], x.dims[1:])
	}
	if x.typ == idxFloat32 || x.typ == idxFloat64 {
		return nil, fmt.Errorf("%w: %s: labels of type %s: want integers", ErrArgument, x.name, idxTypes[x.typ].name)
	}
	vals, err := x.readAll()
	if err != nil {
		return nil, err
	}
	labels := make([]int, len(vals))
	for i, v := range vals {
		labels[i] = int(v) // an integer of at most 32 bits: exact
	}
	return labels, nil
}

// readAll reads the items the reader has not returned — every item, after
// NewIDXReader — and checks the end of the input as Next does. It returns their
// elements, allocated once all their bytes are in (rest).
func (x *IDXReader) readAll() ([]float64, error) {
	if x.items > idxMaxElements/x.width {
		return nil, fmt.Errorf("%w: %s: %d items of %d elements exceed the limit of %d elements", ErrArgument, x.name, x.items, x.width, idxMaxElements)
	}
	first := x.next
	b, err := x.rest()
	if err != nil {
		return nil, err
	}
	vals := make([]float64, len(b)/idxTypes[x.typ].size)
	if err := x.decode(vals, b, first); err != nil {
		return nil, err
	}
	return vals, nil
}

// rest reads the bytes of the items the reader has not returned, in a slice that grows
// as they arrive (readN), and checks the end of the input as Next does.
func (x *IDXReader) rest() ([]byte, error) {
	if x.err != nil {
		return nil, x.err
	}
	size := idxTypes[x.typ].size
	b := x.buf[:0]
	if x.ready {
		b = x.buf
	}
	b, err := readN(x.in, b, (x.items-x.next)*x.width*size)
	if err != nil {
		return nil, x.fail(err, x.item(x.next+len(b)/(x.width*size)))
	}
	x.next, x.ready = x.items, false
	if x.err = x.end(); x.err != io.EOF {
		return nil, x.err
	}
	return b, nil
}
