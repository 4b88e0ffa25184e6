package testmat

import (
	"encoding/binary"
	"math"
)

// FuzzBytes encodes vals as a fuzz target's input of points: each float64's bits,
// little-endian, 8 bytes a value — any bits, NaN and infinities included.
func FuzzBytes(vals ...float64) []byte {
	b := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// FuzzFloats decodes the values of a fuzz target's input (FuzzBytes), at most most of
// them; trailing bytes short of a value are ignored.
func FuzzFloats(data []byte, most int) []float64 {
	vals := make([]float64, 0, min(len(data)/8, most))
	for i := 0; i+8 <= len(data) && len(vals) < most; i += 8 {
		vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
	}
	return vals
}
