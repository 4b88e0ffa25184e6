package wire

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
)

// Fields writes the little-endian fields of a frame's body, buffered, to a Writer: the
// counterpart of Reader for encoders that stream their body (MarshalBinaryTo) rather
// than build it in memory. A write error is kept by the Writer underneath and returned
// by WriteFrame.
type Fields struct {
	b   *bufio.Writer
	tmp [8]byte
}

// U8 writes one byte.
func (f *Fields) U8(v uint8) { f.b.WriteByte(v) }

// U32 writes a uint32.
func (f *Fields) U32(v uint32) {
	binary.LittleEndian.PutUint32(f.tmp[:4], v)
	f.b.Write(f.tmp[:4])
}

// U64 writes a uint64.
func (f *Fields) U64(v uint64) {
	binary.LittleEndian.PutUint64(f.tmp[:], v)
	f.b.Write(f.tmp[:])
}

// F64 writes float64s, bit for bit.
func (f *Fields) F64(xs ...float64) {
	for _, v := range xs {
		f.U64(math.Float64bits(v))
	}
}

// Bytes writes p as it is.
func (f *Fields) Bytes(p []byte) { f.b.Write(p) }

// WriteFrame writes one frame to w — the prefix, a body of length bytes written by body
// through Fields, and the checksum — without holding the body in memory, and returns the
// number of bytes written to w. A body of another length than stated is an error, and
// so is the first error of w, returned as it is.
func WriteFrame(w io.Writer, magic string, version uint32, length uint64, body func(*Fields)) (int, error) {
	fw := NewWriter(w, magic, version, length)
	f := &Fields{b: bufio.NewWriterSize(fw, 1<<16)}
	body(f)
	f.b.Flush()
	return fw.Close()
}
