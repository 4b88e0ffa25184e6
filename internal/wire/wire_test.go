package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

var errKind = errors.New("bad encoding")

// frame returns an encoding of version v with magic "TESTMAGC" and the given body.
func frame(v uint32, body []byte) []byte {
	b := binary.LittleEndian.AppendUint32([]byte("TESTMAGC"), v)
	return Seal(append(b, body...))
}

// TestOpen: a sealed frame opens to its version and body; a short frame, another magic,
// any flipped byte and an unknown version are errors wrapping the kind, with messages
// that say which.
func TestOpen(t *testing.T) {
	body := AppendFloats([]byte{7}, 1.5, -2)
	v, got, err := Open(frame(2, body), "TESTMAGC", 17, errKind, "test model", 1, 2)
	if err != nil || v != 2 || string(got) != string(body) {
		t.Fatalf("Open = %d, %v, %v; want 2 and the body", v, got, err)
	}
	good := frame(2, body)
	flipped := append([]byte(nil), good...)
	flipped[13] ^= 1
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"too short for the header", good, "not an encoded test model"},
		{"empty", nil, "not an encoded test model"},
		{"other magic", frame(2, body)[1:], "not an encoded test model"},
		{"flipped byte", flipped, "checksum mismatch"},
		{"unknown version", frame(3, body), "version 3, this library reads versions 1 and 2"},
	} {
		header := 17
		if c.name == "too short for the header" {
			header = 18
		}
		_, _, err := Open(c.data, "TESTMAGC", header, errKind, "test model", 1, 2)
		if !errors.Is(err, errKind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := Open(frame(2, body), "TESTMAGC", 0, errKind, "x", 1); err == nil || !strings.Contains(err.Error(), "reads version 1") {
		t.Errorf("one version: %v", err)
	}
}

// TestReader: fields come back in order, and Floats reports the first non-finite
// entry, naming what the floats are when told.
func TestReader(t *testing.T) {
	b := binary.LittleEndian.AppendUint32([]byte{9}, 70000)
	b = binary.LittleEndian.AppendUint64(b, 1<<40)
	b = AppendFloats(b, math.Pi)
	b = append(b, "name"...)
	b = AppendFloats(b, 1, 2, math.Inf(-1))
	r := NewReader(b)
	if r.U8() != 9 || r.U32() != 70000 || r.U64() != 1<<40 || r.F64() != math.Pi || string(r.Bytes(4)) != "name" || r.Len() != 24 {
		t.Fatal("fields read back differ")
	}
	rest := NewReader(r.Rest())
	if r.Len() != 0 {
		t.Error("Rest left bytes")
	}
	if xs, err := NewReader(b[len(b)-24:]).Floats(2, errKind, "sums"); err != nil || xs[0] != 1 || xs[1] != 2 {
		t.Errorf("Floats(2) = %v, %v", xs, err)
	}
	if _, err := rest.Floats(3, errKind, "sums"); !errors.Is(err, errKind) || !strings.Contains(err.Error(), "sums: entry 2 is -Inf") {
		t.Errorf("a non-finite float: %v", err)
	}
	if _, err := NewReader(AppendFloats(nil, math.NaN())).Floats(1, errKind, ""); err == nil || !strings.HasSuffix(err.Error(), ": entry 0 is NaN") {
		t.Errorf("a NaN, unnamed: %v", err)
	}
}
