package wiretest

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/ikpca/ikpca/internal/wire"
)

// Body returns the body of an encoding: the bytes between its frame's prefix and its
// checksum.
func Body(encoding []byte) []byte {
	return encoding[wire.PrefixSize : len(encoding)-wire.Overhead+wire.PrefixSize]
}

// Unsealed returns an encoding without its checksum: what Reseal seals again once it is
// edited.
func Unsealed(encoding []byte) []byte { return encoding[:len(encoding)-wire.Overhead+wire.PrefixSize] }

// Reseal returns data, a frame without its checksum (an encoding's, edited, or a
// fuzzer's input), with the body's length its prefix states set to the bytes that
// follow the prefix and the checksum appended, as the encoders write it: the edited
// body then passes the frame's checks and reaches the decoder's own.
func Reseal(data []byte) []byte {
	b := bytes.Clone(data)
	if len(b) >= wire.PrefixSize {
		binary.LittleEndian.PutUint64(b[wire.MagicSize+4:], uint64(len(b)-wire.PrefixSize))
	}
	return wire.Seal(b)
}

// PutU64 returns an edit of an encoding that writes v at off, little-endian.
func PutU64(off int, v uint64) func([]byte) {
	return func(b []byte) { binary.LittleEndian.PutUint64(b[off:], v) }
}

// PutF64 returns an edit of an encoding that writes v at off, bit for bit.
func PutF64(off int, v float64) func([]byte) { return PutU64(off, math.Float64bits(v)) }

// Where the kernel's Spec is in an encoding whose body starts with it (nystrom's,
// chinsuter's: internal/kernelwire): its name's length right after the frame's prefix,
// at NameAt; then, after the name (AfterName), σ, γ, the degree and c at SigmaAt,
// GammaAt, DegreeAt and Coef0At, and the model's own fields from SpecNumbers on.
const (
	NameAt      = wire.PrefixSize
	SigmaAt     = 0
	GammaAt     = 8
	DegreeAt    = 16
	Coef0At     = 24
	SpecNumbers = 32
)

// AfterName returns where the numbers of the kernel's Spec start in an encoding whose
// body starts with the Spec: after the frame's prefix, the name's length and the name.
func AfterName(encoding []byte) int {
	return NameAt + 4 + int(binary.LittleEndian.Uint32(encoding[NameAt:]))
}
