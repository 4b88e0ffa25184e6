package data

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/ikpca/ikpca/internal/check"
)

// The IDX format (LeCun's, of the MNIST files): four magic bytes 0x00 0x00 T D — T the
// element type, D the number of dimensions — then D sizes as big-endian uint32, then the
// elements, big-endian, in row-major order (the last dimension varies fastest). An item
// is a slice of the first dimension: an image of a 60000×28×28 file, a label of a
// 60000-long one.

// The element types of IDX.
const (
	idxUint8   = 0x08
	idxInt8    = 0x09
	idxInt16   = 0x0B
	idxInt32   = 0x0C
	idxFloat32 = 0x0D
	idxFloat64 = 0x0E
)

// idxTypes name the element types, for messages, and give their sizes in bytes.
var idxTypes = map[byte]struct {
	name string
	size int
}{
	idxUint8: {"unsigned byte", 1}, idxInt8: {"int8", 1}, idxInt16: {"int16", 2},
	idxInt32: {"int32", 4}, idxFloat32: {"float32", 4}, idxFloat64: {"float64", 8},
}

// idxMaxElements bounds an item, and the matrix ReadIDX builds, as ParseLIBSVM's
// matrix is bounded: 2^28 elements, 2 GiB of float64.
const idxMaxElements = libsvmMaxElements

// idxMaxItems bounds the first dimension, so that a count of items is an int on every
// platform.
const idxMaxItems = math.MaxInt32

// gzipMagic starts every gzip stream (RFC 1952); an IDX file starts with 0x00.
var gzipMagic = []byte{0x1f, 0x8b}

// IDXOptions are the options of NewIDXReader, ReadIDX and ReadIDXLabels.
type IDXOptions struct {
	// Raw keeps unsigned bytes (element type 0x08) as they are, 0 to 255. By default
	// they are pixels and are divided by 255, to [0, 1]. Elements of the other types
	// are never scaled.
	Raw bool
	// Limit, if positive, reads only the first Limit items (all of them if the file
	// has fewer): the input is read no further than they and a buffer of 64 KiB, so
	// neither what follows them nor a gzip stream's checksum is checked. 0 reads every
	// item; a negative Limit is an error.
	Limit int
}

// IDXReader reads the items of an IDX file one at a time, so that a file of any
// length can be processed in bounded memory: the images of a 60000×28×28 file as rows
// of 784 values. ReadIDX and ReadIDXLabels read a whole file.
//
// The input may be gzip-compressed, whatever its name: a stream that starts with the
// gzip magic bytes 0x1f 0x8b is decompressed as it is read (an IDX file starts with
// 0x00), and the gzip checksum is verified at its end. Every element type of the
// format is read: unsigned byte (0x08; by default divided by 255, see IDXOptions.Raw),
// int8 (0x09), int16 (0x0B), int32 (0x0C), float32 (0x0D) and float64 (0x0E). Another
// type byte is an error.
//
// The sizes a header declares are not trusted for allocation: the reader holds one
// item's bytes, read as they arrive, and NewIDXReader reads the first item before it
// returns, so that Width is backed by data. A header that declares more than the input
// holds costs at most a small multiple of the bytes actually read.
type IDXReader struct {
	src   *sourceReader // the caller's reader, which records its own errors
	in    io.Reader     // the IDX bytes: src buffered, or decompressed
	typ   byte
	dims  []int
	width int    // elements per item: the product of dims[1:]
	items int    // items Next returns: dims[0], or fewer with a Limit
	next  int    // items Next has returned
	buf   []byte // the bytes of one item
	ready bool   // buf holds the item Next returns next (the first, after NewIDXReader)
	raw   bool
	name  string // the reader in messages: "idx", or "idx: " and a file's name
	err   error  // the error that ended the input (io.EOF at its end), returned again
}

// sourceReader is the caller's reader, recording the first error it returns other than
// io.EOF: an error of the source is the caller's and is returned as it is, while an
// input that ends too soon, or a gzip stream that cannot be decoded, is the data's.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && s.err == nil {
		s.err = err
	}
	return n, err
}

// NewIDXReader reads the header of an IDX file from r, and its first item, and returns
// a reader of its items. A nil r, a negative Limit, a stream that is not IDX (the magic
// bytes are not 0x00 0x00), an unknown element type, a file without dimensions, an item
// of more than 2^28 elements, a first dimension above 2^31−1, an input that ends before
// the header or the first item does, and a gzip stream that cannot be decoded are
// ErrArgument; an empty input, a first dimension of 0 (no items) and another of 0
// (empty items) are ErrEmpty. A read error of r is returned as it is, wrapped with what
// was being read. It never panics.
func NewIDXReader(r io.Reader, opts IDXOptions) (*IDXReader, error) {
	return newIDXReader(r, opts, "")
}

// newIDXReader is NewIDXReader of the named file ("": unnamed), which its errors name.
func newIDXReader(r io.Reader, opts IDXOptions, file string) (*IDXReader, error) {
	if check.IsNil(r) {
		return nil, fmt.Errorf("%w: idx: nil reader", ErrArgument)
	}
	if opts.Limit < 0 {
		return nil, fmt.Errorf("%w: idx: negative limit %d", ErrArgument, opts.Limit)
	}
	x := &IDXReader{src: &sourceReader{r: r}, raw: opts.Raw, name: "idx"}
	if file != "" {
		x.name += ": " + file
	}
	br := bufio.NewReaderSize(x.src, 64<<10)
	x.in = br
	start, err := br.Peek(len(gzipMagic))
	switch {
	case len(start) == 0 && x.src.err == nil:
		return nil, fmt.Errorf("%w: %s: no data", ErrEmpty, x.name)
	case len(start) < len(gzipMagic):
		return nil, x.fail(err, "the header")
	case slices.Equal(start, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, x.fail(err, "the gzip header")
		}
		x.in = zr
	}
	if err := x.header(); err != nil {
		return nil, err
	}
	x.items = x.dims[0]
	if opts.Limit > 0 {
		x.items = min(x.items, opts.Limit)
	}
	size := idxTypes[x.typ].size
	if x.buf, err = readN(x.in, nil, x.width*size); err != nil {
		return nil, x.fail(err, x.item(0))
	}
	x.ready = true
	return x, nil
}

// header reads the magic bytes and the sizes, and checks them.
func (x *IDXReader) header() error {
	var magic [4]byte
	if n, err := io.ReadFull(x.in, magic[:]); err != nil {
		if n == 0 && errors.Is(err, io.EOF) && x.src.err == nil {
			return fmt.Errorf("%w: %s: no data (an empty gzip stream)", ErrEmpty, x.name)
		}
		return x.fail(err, "the header")
	}
	if magic[0] != 0 || magic[1] != 0 {
		return fmt.Errorf("%w: %s: not an IDX file: it starts % x, not 00 00 (then the type and the number of dimensions)", ErrArgument, x.name, magic[:2])
	}
	x.typ = magic[2]
	t, ok := idxTypes[x.typ]
	if !ok {
		return fmt.Errorf("%w: %s: unknown element type 0x%02x (0x08, 0x09, 0x0B, 0x0C, 0x0D or 0x0E)", ErrArgument, x.name, x.typ)
	}
	nd := int(magic[3])
	if nd == 0 {
		return fmt.Errorf("%w: %s: %s elements with no dimensions", ErrArgument, x.name, t.name)
	}
	sizes := make([]byte, 4*nd) // at most 1020 bytes: nd is a byte
	if _, err := io.ReadFull(x.in, sizes); err != nil {
		return x.fail(err, fmt.Sprintf("the header's %d sizes", nd))
	}
	x.dims = make([]int, nd)
	for i := range x.dims {
		x.dims[i] = int(binary.BigEndian.Uint32(sizes[4*i:]))
	}
	if x.dims[0] == 0 {
		return fmt.Errorf("%w: %s: no items (sizes %v)", ErrEmpty, x.name, x.dims)
	}
	if x.dims[0] > idxMaxItems {
		return fmt.Errorf("%w: %s: %d items exceed the limit of %d", ErrArgument, x.name, x.dims[0], idxMaxItems)
	}
	if slices.Contains(x.dims[1:], 0) {
		return fmt.Errorf("%w: %s: empty items (sizes %v)", ErrEmpty, x.name, x.dims)
	}
	x.width = 1
	for _, d := range x.dims[1:] {
		// Both factors are at most idxMaxElements = 2^28 here: the product fits an int64.
		if x.width > idxMaxElements/d {
			return fmt.Errorf("%w: %s: items of sizes %v exceed the limit of %d elements", ErrArgument, x.name, x.dims[1:], idxMaxElements)
		}
		x.width *= d
	}
	return nil
}

// Dims returns the sizes the header declares, first the number of items (a new slice).
func (x *IDXReader) Dims() []int { return slices.Clone(x.dims) }

// Width returns the number of elements of an item, the product of the sizes after the
// first (1 for a one-dimensional file): the length of a row.
func (x *IDXReader) Width() int { return x.width }

// Len returns the number of items Next returns in all: the first size, or the Limit
// if it is smaller.
func (x *IDXReader) Len() int { return x.items }

// Next reads the next item into dst, whose length must be Width(), in row-major order.
// After the last item (the Len()-th) it returns io.EOF, having checked, when no Limit
// cut the file short, that the input ends there: bytes after the declared data are an
// error (ErrArgument) and so, for a gzip stream, is a checksum that does not match.
// An input that ends before the item does is ErrArgument, and a float32 or float64
// element that is NaN or infinite ErrNonFinite; the read error of the source is
// returned as it is. After an error or io.EOF, Next returns the same again. dst of the
// wrong length is ErrArgument, and changes nothing. dst is written only when Next
// returns nil.
func (x *IDXReader) Next(dst []float64) error {
	if x.err != nil {
		return x.err
	}
	if len(dst) != x.width {
		return fmt.Errorf("%w: %s: destination of length %d for items of %d elements", ErrArgument, x.name, len(dst), x.width)
	}
	if x.next == x.items {
		x.err = x.end()
		return x.err
	}
	if !x.ready {
		if _, err := io.ReadFull(x.in, x.buf); err != nil {
			x.err = x.fail(err, x.item(x.next))
			return x.err
		}
	}
	x.ready = false
	if err := x.decode(dst, x.buf, x.next); err != nil {
		x.err = err
		return err
	}
	x.next++
	return nil
}

// end returns io.EOF if the input ends after the last item, or ends there by choice (a
// Limit), and the error of what follows otherwise.
func (x *IDXReader) end() error {
	if x.items < x.dims[0] {
		return io.EOF // the rest is not read
	}
	// One more byte: none at the end of a plain file; at the end of a gzip stream the
	// decompressor checks the checksum and the length, then that no other stream
	// follows (a concatenated one would be read on, and is as unexpected).
	var one [1]byte
	n, err := io.ReadFull(x.in, one[:])
	switch {
	case n > 0:
		return fmt.Errorf("%w: %s: bytes after the %d items the header declares", ErrArgument, x.name, x.dims[0])
	case errors.Is(err, io.EOF):
		return io.EOF
	}
	return x.fail(err, "the end of the data")
}

// fail classifies an error met while reading what: the source's own error as it is, an
// input that ends too soon and a gzip stream that cannot be decoded as ErrArgument.
func (x *IDXReader) fail(err error, what string) error {
	switch {
	case x.src.err != nil:
		return fmt.Errorf("data: %s: reading %s: %w", x.name, what, x.src.err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %s: the input ends in %s", ErrArgument, x.name, what)
	}
	return fmt.Errorf("%w: %s: %s: %w", ErrArgument, x.name, what, err)
}

// item names item i (0-based) for messages: "item 3 of 60000".
func (x *IDXReader) item(i int) string { return fmt.Sprintf("item %d of %d", i+1, x.dims[0]) }

// pixel holds the unsigned bytes divided by 255, as IDXOptions.Raw says: a table, so
// that each value is the correctly rounded quotient and costs a load.
var pixel = func() (t [256]float64) {
	for i := range t {
		t[i] = float64(i) / 255
	}
	return t
}()

// decode converts the big-endian elements in b into dst (one element each), items of
// the reader's width from item first on, for messages. A float element that is NaN or
// infinite — all its exponent bits set (IEEE 754) — is ErrNonFinite, found before dst
// is written.
func (x *IDXReader) decode(dst []float64, b []byte, first int) error {
	nonFinite := func(i int, v float64) error {
		return fmt.Errorf("%w: %s: %s, element %d is %g", ErrNonFinite, x.name, x.item(first+i/x.width), i%x.width+1, v)
	}
	switch x.typ {
	case idxFloat32:
		for i := range dst {
			if u := binary.BigEndian.Uint32(b[4*i:]); u&0x7f800000 == 0x7f800000 {
				return nonFinite(i, float64(math.Float32frombits(u)))
			}
		}
	case idxFloat64:
		for i := range dst {
			if u := binary.BigEndian.Uint64(b[8*i:]); u&0x7ff0000000000000 == 0x7ff0000000000000 {
				return nonFinite(i, math.Float64frombits(u))
			}
		}
	}
	switch x.typ {
	case idxUint8:
		if x.raw {
			for i := range dst {
				dst[i] = float64(b[i])
			}
		} else {
			for i := range dst {
				dst[i] = pixel[b[i]]
			}
		}
	case idxInt8:
		for i := range dst {
			dst[i] = float64(int8(b[i]))
		}
	case idxInt16:
		for i := range dst {
			dst[i] = float64(int16(binary.BigEndian.Uint16(b[2*i:])))
		}
	case idxInt32:
		for i := range dst {
			dst[i] = float64(int32(binary.BigEndian.Uint32(b[4*i:])))
		}
	case idxFloat32:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(b[4*i:])))
		}
	case idxFloat64:
		for i := range dst {
			dst[i] = math.Float64frombits(binary.BigEndian.Uint64(b[8*i:]))
		}
	}
	return nil
}

// readN reads from in until buf holds n bytes, and returns it. buf grows as the bytes
// arrive, doubling and never beyond n, so that a size the input does not back costs at
// most twice the bytes read (and 64 KiB). An input that ends first is
// io.ErrUnexpectedEOF; like io.ReadFull, readN returns no error once it has n bytes.
func readN(in io.Reader, buf []byte, n int) ([]byte, error) {
	if cap(buf) < min(n, 64<<10) {
		buf = slices.Grow(buf, min(n, 64<<10)-len(buf))
	}
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n-len(buf), len(buf)))
		}
		m, err := in.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err != nil && len(buf) < n {
			// An error with the last bytes is not seen, as with io.ReadFull: the next
			// read meets it again.
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}
