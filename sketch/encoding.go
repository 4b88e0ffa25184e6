package sketch

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/wire"
)

// ErrEncoding reports data that UnmarshalBinary cannot read: not an encoded sketch, an
// unknown version, truncated or corrupted (checksum mismatch), or describing a sketch
// that cannot exist even under a valid checksum.
var ErrEncoding = errors.New("sketch: bad encoding")

// Encoding of an FD, version 1 (integers and floats little-endian):
//
//	magic    8 bytes "IKPCAFDS"
//	version  uint32  1
//	sizes    uint64 ℓ, d, buffer, rows seen n, rows in use
//	settled  uint8   1 if the rows in use are the compressed ΣVᵀ, 0 otherwise
//	totals   float64 ‖A‖_F², Δ
//	rows     rows-in-use·d float64, row-major
//	values   rows-in-use float64 if settled (σᵢ², descending), none otherwise
//	sha256   32 bytes over everything above
//
// The rows in use are stored as they are, compressed or not, so that a decoded sketch
// compresses, reads and merges exactly as the encoded one would have.
const (
	fdMagic   = "IKPCAFDS"
	fdVersion = 1
	fdHeader  = len(fdMagic) + 4 + 5*8 + 1 + 2*8
)

// MaxDecodeFloats bounds the float64s a decoded sketch holds, 3·buffer·d and the SVD's
// workspace (about 256 MiB): the encoding stores only the rows in use, so the memory a
// decoded sketch asks for cannot be bounded by the data's length, and UnmarshalBinary
// refuses, before allocating, a sketch beyond it. A variable, so that a program that
// decodes larger sketches (or a test that wants smaller ones) may change it.
var MaxDecodeFloats = 1 << 25

// Buffer returns the number of rows the sketch holds between two compressions
// (Options.Buffer, or 2ℓ).
func (f *FD) Buffer() int { return f.buf }

// MarshalBinary encodes the sketch in the format above: (rows in use + 1)·d numbers at
// most, the rows themselves; the workspace is not stored. It implements
// encoding.BinaryMarshaler and leaves the sketch unchanged.
func (f *FD) MarshalBinary() ([]byte, error) {
	k := f.rows
	vals := 0
	if f.settled {
		vals = k
	}
	b := make([]byte, 0, fdHeader+8*(k*f.d+vals)+sha256.Size)
	b = append(b, fdMagic...)
	b = binary.LittleEndian.AppendUint32(b, fdVersion)
	for _, v := range []int{f.ell, f.d, f.buf, f.n, k} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	settled := byte(0)
	if f.settled {
		settled = 1
	}
	b = append(b, settled)
	b = wire.AppendFloats(b, f.frob2, f.shrink)
	b = wire.AppendFloats(b, f.b[:k*f.d]...)
	if f.settled {
		b = wire.AppendFloats(b, f.sigma2[:k]...)
	}
	return wire.Seal(b), nil
}

// UnmarshalBinary replaces f by the sketch encoded in data (by MarshalBinary). It
// implements encoding.BinaryUnmarshaler. Data that is not an encoded sketch, of another
// version, truncated, corrupted, with bytes left over, or describing a sketch that
// cannot exist — ℓ, d or the buffer out of New's range or beyond MaxDecodeFloats, more
// rows in use than the buffer (or, compressed, than ℓ), fewer rows seen than in use, a
// non-finite or negative total, a non-finite entry, compressed rows whose squared norms
// are not their σᵢ² (descending, positive) to a relative 1e-9 — gives an error wrapping
// ErrEncoding, and leaves f unchanged.
func (f *FD) UnmarshalBinary(data []byte) error {
	_, body, err := wire.Open(data, fdMagic, fdHeader-len(fdMagic)-4, ErrEncoding, "Frequent Directions sketch", fdVersion)
	if err != nil {
		return err
	}
	r := wire.NewReader(body)
	ell, d, buf, n, k := r.U64(), r.U64(), r.U64(), r.U64(), r.U64()
	settled := r.U8()
	frob2, shrink := r.F64(), r.F64()
	p := r.Rest()
	// Sizes first, each bounded before any product: the buffer and d by MaxDecodeFloats
	// (which bounds what New allocates), the rows in use by the buffer and by the data.
	limit := uint64(MaxDecodeFloats)
	if ell < 1 || d < 1 || buf < ell+1 || buf > limit || d > limit/buf || 3*buf*d+4*min(buf, d)+buf+d > limit {
		return fmt.Errorf("%w: ℓ = %d, d = %d, buffer %d", ErrEncoding, ell, d, buf)
	}
	if settled > 1 || k > buf || settled == 1 && k > ell || n < k || n > math.MaxInt64 {
		return fmt.Errorf("%w: %d rows in use (compressed: %v) of a buffer of %d, ℓ = %d, %d rows seen", ErrEncoding, k, settled == 1, buf, ell, n)
	}
	want := k * d
	if settled == 1 {
		want += k
	}
	if uint64(len(p))%8 != 0 || uint64(len(p))/8 != want {
		return fmt.Errorf("%w: %d bytes of rows, want %d", ErrEncoding, len(p), 8*want)
	}
	if !(frob2 >= 0) || math.IsInf(frob2, 1) || !(shrink >= 0) || math.IsInf(shrink, 1) {
		return fmt.Errorf("%w: ‖A‖_F² = %g, Δ = %g", ErrEncoding, frob2, shrink)
	}
	vals, err := wire.NewReader(p).Floats(int(want), ErrEncoding, "")
	if err != nil {
		return err
	}
	rows, sigma2 := vals[:k*d], vals[k*d:]
	for i, s := range sigma2 {
		var norm2 float64
		for _, v := range rows[i*int(d) : (i+1)*int(d)] {
			norm2 += v * v
		}
		if !(s > 0) || i > 0 && !(s <= sigma2[i-1]) || !(math.Abs(norm2-s) <= 1e-9*s) {
			return fmt.Errorf("%w: compressed row %d has squared norm %g, σ² = %g", ErrEncoding, i, norm2, s)
		}
	}
	g, err := New(int(ell), int(d), Options{Buffer: int(buf)})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	copy(g.b, rows)
	g.rows, g.n, g.frob2, g.shrink = int(k), int(n), frob2, shrink
	g.settled = settled == 1
	g.sigma2 = append(g.sigma2[:0], sigma2...)
	*f = *g
	return nil
}
