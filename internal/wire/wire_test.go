package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

var errKind = errors.New("bad encoding")

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

// TestArrays: arrays come back in order, of their lengths (an empty one included), and
// the first non-finite entry is reported under the name of its array.
func TestArrays(t *testing.T) {
	b := AppendFloats(nil, 1, 2, 3, 4, 5, math.NaN())
	got, err := NewReader(b).Arrays(errKind, Array{What: "a", Len: 2}, Array{What: "none", Len: 0}, Array{What: "b", Len: 3})
	if err != nil || len(got) != 3 || len(got[0]) != 2 || len(got[1]) != 0 || len(got[2]) != 3 || got[0][1] != 2 || got[2][0] != 3 || got[2][2] != 5 {
		t.Fatalf("Arrays = %v, %v", got, err)
	}
	if _, err := NewReader(b).Arrays(errKind, Array{What: "a", Len: 2}, Array{What: "b", Len: 4}); !errors.Is(err, errKind) ||
		!strings.Contains(err.Error(), "b: entry 3 is NaN") {
		t.Errorf("a NaN in the second array: %v", err)
	}
}
