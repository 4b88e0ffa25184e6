package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// TestFrame: a frame opens to its version and body, reads back from a stream exactly
// (with another frame after it), and is what Writer writes piece by piece; a short, long,
// flipped, foreign or unknown-version frame is an error wrapping the kind.
func TestFrame(t *testing.T) {
	body := AppendFloats([]byte{7}, 1.5, -2)
	good := Frame("TESTMAGC", 2, body)
	if len(good) != Overhead+len(body) {
		t.Fatalf("frame of %d bytes, want %d", len(good), Overhead+len(body))
	}
	v, got, err := OpenFrame(good, "TESTMAGC", errKind, "test model", 1, 2)
	if err != nil || v != 2 || !bytes.Equal(got, body) {
		t.Fatalf("OpenFrame = %d, %v, %v; want 2 and the body", v, got, err)
	}

	var w bytes.Buffer
	fw := NewWriter(&w, "TESTMAGC", 2, uint64(len(body)))
	for _, p := range [][]byte{body[:3], nil, body[3:]} {
		if _, err := fw.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := fw.Close(); err != nil || n != len(good) || !bytes.Equal(w.Bytes(), good) {
		t.Fatalf("Writer: %d bytes, %v; equal to Frame: %v", n, err, bytes.Equal(w.Bytes(), good))
	}

	other := Frame("TESTMAGC", 1, []byte("second"))
	stream := io.MultiReader(bytes.NewReader(good), bytes.NewReader(other))
	for _, want := range [][]byte{good, other} {
		b, n, err := ReadFrame(iotest.OneByteReader(stream), "TESTMAGC", errKind, "test model")
		if err != nil || n != len(want) || !bytes.Equal(b, want) {
			t.Fatalf("ReadFrame: %d bytes, %v; want the %d of the frame", n, err, len(want))
		}
	}
	if _, _, err := ReadFrame(stream, "TESTMAGC", errKind, "test model"); !errors.Is(err, errKind) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadFrame at the end of the stream: %v", err)
	}

	flipped := bytes.Clone(good)
	flipped[PrefixSize+1] ^= 1
	long := append(bytes.Clone(good), 0)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not an encoded test model"},
		{"other magic", Frame("OTHERMAG", 2, body), "not an encoded test model"},
		{"truncated", good[:len(good)-1], "states 17 bytes of body, and 16 follow"},
		{"a byte after it", long, "states 17 bytes of body, and 18 follow"},
		{"flipped byte", flipped, "checksum mismatch"},
		{"unknown version", Frame("TESTMAGC", 3, body), "version 3, this library reads versions 1 and 2"},
	} {
		if _, _, err := OpenFrame(c.data, "TESTMAGC", errKind, "test model", 1, 2); !errors.Is(err, errKind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("OpenFrame, %s: %v, want %q", c.name, err, c.want)
		}
	}

	// ReadFrame: a truncated stream, a foreign one, and a forged length that it does not
	// allocate before the bytes arrive.
	if _, n, err := ReadFrame(bytes.NewReader(good[:len(good)-5]), "TESTMAGC", errKind, "test model"); !errors.Is(err, io.ErrUnexpectedEOF) || n != len(good)-5 {
		t.Errorf("truncated stream: %d bytes, %v", n, err)
	}
	if _, _, err := ReadFrame(bytes.NewReader(Frame("OTHERMAG", 2, body)), "TESTMAGC", errKind, "test model"); !errors.Is(err, errKind) {
		t.Errorf("foreign stream: %v", err)
	}
	forged := bytes.Clone(good[:PrefixSize])
	forged[MagicSize+4+5] = 1 // 2⁴⁰ bytes of body
	allocs := testing.AllocsPerRun(1, func() {
		if _, _, err := ReadFrame(bytes.NewReader(forged), "TESTMAGC", errKind, "test model"); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("forged length: %v", err)
		}
	})
	if allocs > 20 {
		t.Errorf("forged length: %v allocations", allocs)
	}
	readErr := errors.New("disk on fire")
	if _, _, err := ReadFrame(iotest.ErrReader(readErr), "TESTMAGC", errKind, "test model"); !errors.Is(err, readErr) {
		t.Errorf("read error: %v", err)
	}

	// Writer: a body longer or shorter than stated, and a failing writer.
	fw = NewWriter(io.Discard, "TESTMAGC", 1, 2)
	if _, err := fw.Write([]byte{1, 2, 3}); err == nil {
		t.Error("Writer accepted a body longer than stated")
	}
	fw = NewWriter(io.Discard, "TESTMAGC", 1, 2)
	fw.Write([]byte{1})
	if _, err := fw.Close(); err == nil {
		t.Error("Writer accepted a body shorter than stated")
	}
	fw = NewWriter(failWriter{readErr}, "TESTMAGC", 1, 1)
	if _, err := fw.Write([]byte{1}); !errors.Is(err, readErr) {
		t.Errorf("failing writer: %v", err)
	}
	if _, err := fw.Close(); !errors.Is(err, readErr) {
		t.Errorf("failing writer, Close: %v", err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// TestWriteFrame: WriteFrame's fields make the frame Frame makes of the same bytes, a
// body longer or shorter than stated is an error, and a writer's error comes back.
func TestWriteFrame(t *testing.T) {
	body := binary.LittleEndian.AppendUint32([]byte{7}, 0xdeadbeef)
	body = binary.LittleEndian.AppendUint64(body, 1<<40)
	body = AppendFloats(body, 1.5, math.Copysign(0, -1))
	body = append(body, "name"...)
	fields := func(f *Fields) {
		f.U8(7)
		f.U32(0xdeadbeef)
		f.U64(1 << 40)
		f.F64(1.5, math.Copysign(0, -1))
		f.Bytes([]byte("name"))
	}
	var w bytes.Buffer
	n, err := WriteFrame(&w, "TESTMAGC", 3, uint64(len(body)), fields)
	if want := Frame("TESTMAGC", 3, body); err != nil || n != len(want) || !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("WriteFrame: %d bytes, %v; equal to Frame: %v", n, err, bytes.Equal(w.Bytes(), want))
	}
	for _, length := range []int{len(body) - 1, len(body) + 1} {
		if _, err := WriteFrame(io.Discard, "TESTMAGC", 3, uint64(length), fields); err == nil {
			t.Errorf("a body of %d bytes stated as %d: no error", len(body), length)
		}
	}
	boom := errors.New("write failed")
	if _, err := WriteFrame(failWriter{boom}, "TESTMAGC", 3, uint64(len(body)), fields); !errors.Is(err, boom) {
		t.Errorf("a failing writer: %v, want its error", err)
	}
}

// TestReadFrameSized: a frame of 4 MiB read from a bytes.Reader or a regular file, which
// can say how many bytes they hold, is read into a buffer of its size: at most 1.1 times
// the frame allocated, where a buffer grown as the bytes arrive doubles (measured: more
// than twice); from a reader that cannot say, it is read all the same, and the bytes
// are the frame's either way.
func TestReadFrameSized(t *testing.T) {
	body := make([]byte, 4<<20)
	for i := range body {
		body[i] = byte(i * 7)
	}
	frame := bytes.NewBuffer(Frame("TESTFRAM", 1, body))
	path := filepath.Join(t.TempDir(), "frame")
	if err := os.WriteFile(path, frame.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(what string, r io.Reader, bound float64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, n, err := ReadFrame(r, "TESTFRAM", errKind, "test frame")
		runtime.ReadMemStats(&after)
		if err != nil || n != frame.Len() || !bytes.Equal(got, frame.Bytes()) {
			t.Fatalf("%s: %d bytes, %v", what, n, err)
		}
		if alloc := float64(after.TotalAlloc - before.TotalAlloc); alloc > bound*float64(frame.Len()) {
			t.Errorf("%s: %.0f bytes allocated for a frame of %d; want ≤ %.1f times", what, alloc, frame.Len(), bound)
		}
	}
	read("bytes.Reader", bytes.NewReader(frame.Bytes()), 1.1)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read("file", f, 1.1)
	read("a reader of unknown length", iotest.HalfReader(bytes.NewReader(frame.Bytes())), math.Inf(1))
}
