package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"
	"testing/iotest"
)

// errArgument stands for a model package's ErrArgument.
var errArgument = errors.New("argument")

// testFormat is a format of the tests, its errors errArgument and errKind.
var testFormat = Format{Magic: "TESTMAGC", Version: 3, What: "test model", Argument: errArgument, Encoding: errKind}

// testBody writes every kind of field, and more floats than the 64 KiB buffer holds.
func testBody(f *Fields) {
	f.U8(7)
	f.Bool(true)
	f.Bool(false)
	f.U32(0xdeadbeef)
	f.U64(1 << 60)
	f.Bytes([]byte("name"))
	xs := make([]float64, 20000)
	for i := range xs {
		xs[i] = float64(i) - 0.5
	}
	xs[3] = math.Copysign(0, -1)
	f.F64(xs...)
	f.F64()
	f.F64(math.Pi)
}

// testBytes is the body testBody writes, built by appends.
func testBytes() []byte {
	b := []byte{7, 1, 0}
	b = binary.LittleEndian.AppendUint32(b, 0xdeadbeef)
	b = binary.LittleEndian.AppendUint64(b, 1<<60)
	b = append(b, "name"...)
	for i := range 20000 {
		v := float64(i) - 0.5
		if i == 3 {
			v = math.Copysign(0, -1)
		}
		b = AppendFloats(b, v)
	}
	return AppendFloats(b, math.Pi)
}

// failAfter fails every write after its first n bytes.
type failAfter struct {
	n   int
	err error
}

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

// TestFormat: a Counted body has the length of its bytes; Marshal and MarshalTo write
// the frame of those bytes (the fields bit for bit, through and past the buffer), which
// Open opens and UnmarshalFrom reads back one frame at a time from a stream; body's
// errors come back with no bytes; a nil writer or reader, untyped or a nil pointer, is
// the argument kind, before body is called or anything read; a writer that fails gets
// its error back whatever the field it fails in; a foreign or truncated stream is the
// encoding kind, a reader's own error comes back as it is.
func TestFormat(t *testing.T) {
	want := Frame(testFormat.Magic, testFormat.Version, testBytes())
	body := func() (Body, error) { return Counted(testBody), nil }
	if b, _ := body(); b.Len != uint64(len(testBytes())) {
		t.Fatalf("counted %d bytes, want %d", b.Len, len(testBytes()))
	}
	got, err := testFormat.Marshal(body)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal: %d bytes, %v; not the frame of the fields", len(got), err)
	}
	var buf bytes.Buffer
	if n, err := testFormat.MarshalTo(&buf, body); err != nil || n != len(want) || !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("MarshalTo: %d bytes, %v", n, err)
	}
	if b, err := testFormat.Open(want); err != nil || !bytes.Equal(b, testBytes()) {
		t.Fatalf("Open: %v", err)
	}
	if _, err := testFormat.Open(Frame(testFormat.Magic, 2, testBytes())); !errors.Is(err, errKind) {
		t.Errorf("Open of another version: %v", err)
	}

	boom := errors.New("boom")
	refused := func() (Body, error) { return Body{}, boom }
	if b, err := testFormat.Marshal(refused); b != nil || !errors.Is(err, boom) {
		t.Errorf("Marshal of a refused body: %d bytes, %v", len(b), err)
	}
	if n, err := testFormat.MarshalTo(&buf, refused); n != 0 || !errors.Is(err, boom) {
		t.Errorf("MarshalTo of a refused body: %d bytes, %v", n, err)
	}
	never := func() (Body, error) { t.Error("body called"); return Body{}, nil }
	for _, w := range []io.Writer{nil, (*bytes.Buffer)(nil)} {
		if n, err := testFormat.MarshalTo(w, never); n != 0 || !errors.Is(err, errArgument) {
			t.Errorf("writer %#v: %d bytes, %v; want the argument kind", w, n, err)
		}
	}
	for _, at := range []int{0, PrefixSize + 5, 70000, len(want) - 1} {
		if _, err := testFormat.MarshalTo(&failAfter{at, boom}, body); !errors.Is(err, boom) {
			t.Errorf("a writer failing after %d bytes: %v", at, err)
		}
	}

	second := Frame(testFormat.Magic, testFormat.Version, []byte("second"))
	stream := bytes.NewReader(append(bytes.Clone(want), second...))
	var read [][]byte
	keep := func(b []byte) error { read = append(read, bytes.Clone(b)); return nil }
	for _, w := range [][]byte{want, second} {
		if n, err := testFormat.UnmarshalFrom(stream, keep); err != nil || n != len(w) {
			t.Fatalf("UnmarshalFrom: %d bytes, %v; want %d", n, err, len(w))
		}
	}
	if len(read) != 2 || !bytes.Equal(read[0], want) || !bytes.Equal(read[1], second) {
		t.Errorf("unmarshal was given %d frames, not the two", len(read))
	}
	if n, err := testFormat.UnmarshalFrom(bytes.NewReader(second), func([]byte) error { return boom }); n != len(second) || !errors.Is(err, boom) {
		t.Errorf("unmarshal's error: %d bytes, %v", n, err)
	}
	unread := func([]byte) error { t.Error("unmarshal called"); return nil }
	for _, r := range []io.Reader{nil, (*bytes.Reader)(nil), (*bytes.Buffer)(nil)} {
		if n, err := testFormat.UnmarshalFrom(r, unread); n != 0 || !errors.Is(err, errArgument) {
			t.Errorf("reader %#v: %d bytes, %v; want the argument kind", r, n, err)
		}
	}
	for _, r := range []io.Reader{bytes.NewReader(second[:len(second)-1]), bytes.NewReader(Frame("OTHERMAG", 3, nil))} {
		if _, err := testFormat.UnmarshalFrom(r, unread); !errors.Is(err, errKind) {
			t.Errorf("a truncated or foreign stream: %v, want the encoding kind", err)
		}
	}
	if _, err := testFormat.UnmarshalFrom(iotest.ErrReader(boom), unread); !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v", err)
	}
}
