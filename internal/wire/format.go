package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
)

// Format is the encoding of one type: the magic of its frame, the version it writes,
// what errors call it ("Nyström model"), and the error kinds of its package (Argument,
// Encoding: the package's ErrArgument and ErrEncoding). Its methods are three of the
// type's four methods of ikpca.Persistent, and the start of the fourth: the type gives
// its Body to Marshal and MarshalTo, its UnmarshalBinary to UnmarshalFrom, and reads
// the body Open returns.
type Format struct {
	Magic              string
	Version            uint32
	What               string
	Argument, Encoding error
}

// Body is the body of an encoding: its length in bytes, and the function that writes
// its fields — exactly that many bytes.
type Body struct {
	Len   uint64
	Write func(*Fields)
}

// Counted returns the Body that write writes, its length counted by a first call of
// write that writes nothing: for a body whose length is not worked out beforehand.
func Counted(write func(*Fields)) Body {
	var count Fields
	write(&count)
	return Body{Len: count.n, Write: write}
}

// Marshal returns the encoding of the body that body returns, built in a buffer of the
// encoding's length, or body's error: MarshalBinary.
func (f Format) Marshal(body func() (Body, error)) ([]byte, error) {
	b, err := body()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(Overhead + int(b.Len))
	if _, err := WriteFrame(&buf, f.Magic, f.Version, b.Len, b.Write); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MarshalTo writes the encoding of the body that body returns to w as it is produced,
// 64 KiB at a time (WriteFrame), and returns the number of bytes written:
// MarshalBinaryTo. A nil w, untyped or a nil pointer, is an error wrapping f.Argument;
// body's error is returned, and so is the first error of w, as it is.
func (f Format) MarshalTo(w io.Writer, body func() (Body, error)) (int, error) {
	if isNil(w) {
		return 0, fmt.Errorf("%w: nil writer", f.Argument)
	}
	b, err := body()
	if err != nil {
		return 0, err
	}
	return WriteFrame(w, f.Magic, f.Version, b.Len, b.Write)
}

// UnmarshalFrom reads one frame of the format from r — exactly its bytes (ReadFrame: no
// more memory than the bytes r holds) — and gives it to unmarshal, returning the number
// of bytes read: UnmarshalBinaryFrom, over UnmarshalBinary. A nil r, untyped or a nil
// pointer, is an error wrapping f.Argument; a stream that ends within the frame, or
// that does not start with the magic, an error wrapping f.Encoding; another error of r
// is returned as it is.
func (f Format) UnmarshalFrom(r io.Reader, unmarshal func([]byte) error) (int, error) {
	if isNil(r) {
		return 0, fmt.Errorf("%w: nil reader", f.Argument)
	}
	data, n, err := ReadFrame(r, f.Magic, f.Encoding, f.What)
	if err != nil {
		return n, err
	}
	return n, unmarshal(data)
}

// Open checks that data is exactly one frame of the format, of its version (OpenFrame;
// errors wrap f.Encoding), and returns its body: the start of UnmarshalBinary.
func (f Format) Open(data []byte) ([]byte, error) {
	_, body, err := OpenFrame(data, f.Magic, f.Encoding, f.What, f.Version)
	return body, err
}

// Unmarshal checks that data is exactly one frame of f (Open), decodes its body with
// decode, and only then replaces *dst by what decode returns: the UnmarshalBinary of a
// type that decodes apart, so that data it refuses leaves the receiver as it was.
func Unmarshal[T any](f Format, dst *T, data []byte, decode func(body []byte) (*T, error)) error {
	body, err := f.Open(data)
	if err != nil {
		return err
	}
	got, err := decode(body)
	if err != nil {
		return err
	}
	*dst = *got
	return nil
}

// Decode checks that data is exactly one frame of f (Open), decodes its body with decode
// and checks the result with verify, given a seed drawn from the frame's SHA-256: the
// decoders that check a model against the data it stores with random probes
// (docs/design.md, "Encodings") draw them from it, so that the same bytes get the same
// verdict and a forger cannot choose a change the probes miss. It returns decode's
// result only if both succeed.
func Decode[T any](f Format, data []byte, decode func(body []byte) (T, error), verify func(got T, seed uint64) error) (T, error) {
	var zero T
	body, err := f.Open(data)
	if err != nil {
		return zero, err
	}
	got, err := decode(body)
	if err != nil {
		return zero, err
	}
	if err := verify(got, binary.LittleEndian.Uint64(data[len(data)-sha256.Size:])); err != nil {
		return zero, err
	}
	return got, nil
}

// isNil reports a nil writer or reader: an untyped nil, or a nil pointer in the
// interface, whose methods would dereference it.
func isNil(x any) bool {
	v := reflect.ValueOf(x)
	return !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil()
}
