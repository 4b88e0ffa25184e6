// Package wire holds the frame and the field reads and writes of the library's binary
// encodings — every model's (kpca, nystrom, chinsuter, stream) and sketch.FD's: an
// 8-byte magic, a little-endian uint32 version, the body's length, the body, and a
// SHA-256 checksum over all of it (frame.go). OpenFrame checks the frame before
// anything is read from the body; the callers then bound every size they read by the
// data present before they allocate. A Format (format.go) is one type's encoding, and
// its methods the type's MarshalBinary, MarshalBinaryTo and UnmarshalBinaryFrom; Fields
// (fields.go) writes a body field by field, or counts its bytes.
package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Seal appends the SHA-256 checksum of b to b: the end of every encoding.
func Seal(b []byte) []byte {
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// AppendFloats appends the float64s xs to b, little-endian.
func AppendFloats(b []byte, xs ...float64) []byte {
	for _, v := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// versionList names the versions a decoder reads: "version 1", "versions 1 and 2".
func versionList(versions []uint32) string {
	if len(versions) == 1 {
		return "version " + strconv.FormatUint(uint64(versions[0]), 10)
	}
	s := make([]string, len(versions))
	for i, v := range versions {
		s[i] = strconv.FormatUint(uint64(v), 10)
	}
	return "versions " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// Reader reads little-endian fields from the front of a body in order. The caller
// checks that the fields are there (Len) before reading them: a read past the end
// panics.
type Reader struct{ p []byte }

// NewReader returns a Reader of p.
func NewReader(p []byte) *Reader { return &Reader{p: p} }

// Len returns the number of bytes left.
func (r *Reader) Len() int { return len(r.p) }

// Rest returns the bytes left, and reads them.
func (r *Reader) Rest() []byte {
	p := r.p
	r.p = nil
	return p
}

// Bytes reads n bytes.
func (r *Reader) Bytes(n int) []byte {
	p := r.p[:n]
	r.p = r.p[n:]
	return p
}

// U8 reads one byte.
func (r *Reader) U8() uint8 { return r.Bytes(1)[0] }

// U32 reads a uint32.
func (r *Reader) U32() uint32 { return binary.LittleEndian.Uint32(r.Bytes(4)) }

// U64 reads a uint64.
func (r *Reader) U64() uint64 { return binary.LittleEndian.Uint64(r.Bytes(8)) }

// F64 reads a float64.
func (r *Reader) F64() float64 { return math.Float64frombits(r.U64()) }

// Array is an array of float64s a body holds: what it is, for errors, and its length.
type Array struct {
	What string
	Len  int
}

// Arrays reads the arrays of float64s a body holds in order, each as Floats does (what
// naming it), into new slices. The caller checks that they are there (Len).
func (r *Reader) Arrays(kind error, arrays ...Array) ([][]float64, error) {
	out := make([][]float64, len(arrays))
	for i, a := range arrays {
		xs, err := r.Floats(a.Len, kind, a.What)
		if err != nil {
			return nil, err
		}
		out[i] = xs
	}
	return out, nil
}

// FloatsTo reads len(dst) float64s into dst, as Floats does: a decoder that has its
// destination already (a model's points) spares a copy as large as the data.
func (r *Reader) FloatsTo(dst []float64, kind error, what string) error {
	for i := range dst {
		dst[i] = r.F64()
		if math.IsNaN(dst[i]) || math.IsInf(dst[i], 0) {
			if what == "" {
				return fmt.Errorf("%w: entry %d is %g", kind, i, dst[i])
			}
			return fmt.Errorf("%w: %s: entry %d is %g", kind, what, i, dst[i])
		}
	}
	return nil
}

// Floats reads k float64s into a new slice. A NaN or an infinity is an error wrapping
// kind that names what the floats are (when what is not empty) and the entry.
func (r *Reader) Floats(k int, kind error, what string) ([]float64, error) {
	out := make([]float64, k)
	if err := r.FloatsTo(out, kind, what); err != nil {
		return nil, err
	}
	return out, nil
}
