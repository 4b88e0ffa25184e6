package wire

import (
	"encoding/binary"
	"io"
)

// Fields writes the little-endian fields of a frame's body to a Writer through a buffer
// of 64 KiB: the counterpart of Reader for encoders that stream their body
// (MarshalBinaryTo) rather than build it in memory. A write error is kept by the Writer
// underneath and returned by WriteFrame. A zero Fields writes nothing and counts the
// bytes it is given (Counted).
type Fields struct {
	w   io.Writer // nil: count only
	buf []byte
	n   uint64 // the bytes given
}

// flushAt is the buffer's size: large enough that writes are few, small enough not to
// matter beside a model.
const flushAt = 1 << 16

// add counts size bytes and, unless counting only, appends them with put, writing the
// buffer out once it is full.
func (f *Fields) add(size int, put func([]byte) []byte) {
	f.n += uint64(size)
	if f.w == nil {
		return
	}
	f.buf = put(f.buf)
	if len(f.buf) >= flushAt {
		f.flush()
	}
}

// flush writes the buffer out; the Writer keeps an error for Close.
func (f *Fields) flush() {
	if f.w != nil && len(f.buf) > 0 {
		_, _ = f.w.Write(f.buf)
		f.buf = f.buf[:0]
	}
}

// U8 writes one byte.
func (f *Fields) U8(v uint8) { f.add(1, func(b []byte) []byte { return append(b, v) }) }

// Bool writes a flag: one byte, 1 for true, 0 for false.
func (f *Fields) Bool(v bool) {
	if v {
		f.U8(1)
	} else {
		f.U8(0)
	}
}

// U32 writes a uint32.
func (f *Fields) U32(v uint32) {
	f.add(4, func(b []byte) []byte { return binary.LittleEndian.AppendUint32(b, v) })
}

// U64 writes a uint64.
func (f *Fields) U64(v uint64) {
	f.add(8, func(b []byte) []byte { return binary.LittleEndian.AppendUint64(b, v) })
}

// F64 writes float64s, bit for bit, a buffer's worth at a time.
func (f *Fields) F64(xs ...float64) {
	for len(xs) > 0 {
		c := min(len(xs), flushAt/8)
		f.add(8*c, func(b []byte) []byte { return AppendFloats(b, xs[:c]...) })
		xs = xs[c:]
	}
}

// Bytes writes p as it is.
func (f *Fields) Bytes(p []byte) { f.add(len(p), func(b []byte) []byte { return append(b, p...) }) }

// WriteFrame writes one frame to w — the prefix, a body of length bytes written by body
// through Fields, and the checksum — without holding the body in memory, and returns the
// number of bytes written to w. A body of another length than stated is an error, and
// so is the first error of w, returned as it is.
func WriteFrame(w io.Writer, magic string, version uint32, length uint64, body func(*Fields)) (int, error) {
	fw := NewWriter(w, magic, version, length)
	f := &Fields{w: fw, buf: make([]byte, 0, 2*flushAt)}
	body(f)
	f.flush()
	return fw.Close()
}
