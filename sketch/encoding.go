package sketch

import (
	"fmt"
	"io"
	"math"

	"github.com/ikpca/ikpca/internal/wire"
)

// Encoding of an FD: the frame of every encoding of the module (internal/wire: magic
// "IKPCAFDS", version 2, the body's length, the body, SHA-256 over all of it) around
// the body, integers and floats little-endian:
//
//	sizes    uint64 ℓ, d, buffer, rows seen n, rows in use
//	settled  uint8   1 if the rows in use are the compressed ΣVᵀ, 0 otherwise
//	totals   float64 ‖A‖_F², Δ
//	rows     rows-in-use·d float64, row-major
//	values   rows-in-use float64 if settled (σᵢ², descending), none otherwise
//
// The rows in use are stored as they are, compressed or not, so that a decoded sketch
// compresses, reads and merges exactly as the encoded one would have. Version 1 had
// the same fields in a frame without the body's length; it is not read.
const (
	fdMagic   = "IKPCAFDS"
	fdVersion = 2
	fdHeader  = 5*8 + 1 + 2*8 // the body before the rows
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

// fdFormat is the encoding's frame, its name in errors and its error kinds.
var fdFormat = wire.Format{Magic: fdMagic, Version: fdVersion, What: "Frequent Directions sketch",
	Argument: kinds.Argument, Encoding: ErrEncoding}

// body returns the body of f's encoding, its length and its writer. A zero FD, which New
// did not make, is an ErrArgument.
func (f *FD) body() (wire.Body, error) {
	if f.b == nil {
		return wire.Body{}, fmt.Errorf("%w: a zero FD (make one with New, or decode one)", kinds.Argument)
	}
	k := f.rows
	vals := 0
	if f.settled {
		vals = k
	}
	return wire.Body{Len: uint64(fdHeader + 8*(k*f.d+vals)), Write: func(w *wire.Fields) {
		for _, v := range []int{f.ell, f.d, f.buf, f.n, k} {
			w.U64(uint64(v))
		}
		w.Bool(f.settled)
		w.F64(f.frob2, f.shrink)
		w.F64(f.b[:k*f.d]...)
		w.F64(f.sigma2[:vals]...)
	}}, nil
}

// MarshalBinary encodes the sketch in the format above: (rows in use + 1)·d numbers at
// most, the rows themselves; the workspace is not stored. It implements
// encoding.BinaryMarshaler and leaves the sketch unchanged. A zero FD, which New did
// not make, is an ErrArgument.
func (f *FD) MarshalBinary() ([]byte, error) { return fdFormat.Marshal(f.body) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time,
// with the errors of ikpca.Persistent.
func (f *FD) MarshalBinaryTo(w io.Writer) (int, error) { return fdFormat.MarshalTo(w, f.body) }

// UnmarshalBinaryFrom restores f from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (f *FD) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return fdFormat.UnmarshalFrom(r, f.UnmarshalBinary)
}

// UnmarshalBinary replaces f by the sketch encoded in data (by MarshalBinary). It
// implements encoding.BinaryUnmarshaler. Data that is not an encoded sketch, of another
// version, truncated, corrupted, with bytes left over, or describing a sketch that
// cannot exist — ℓ, d or the buffer out of New's range or beyond MaxDecodeFloats, more
// rows in use than the buffer (or, compressed, than ℓ), fewer rows seen than in use, a
// non-finite or negative total, a non-finite entry, compressed rows whose squared norms
// are not their σᵢ² (descending, positive) to a relative 1e-9, totals that break
// (ℓ+1)·Δ + ‖B‖_F² ≤ ‖A‖_F² beyond rounding — gives an error wrapping ErrEncoding, and
// leaves f unchanged.
func (f *FD) UnmarshalBinary(data []byte) error {
	body, err := fdFormat.Open(data)
	if err != nil {
		return err
	}
	if len(body) < fdHeader {
		return fmt.Errorf("%w: a body of %d bytes, shorter than the sizes", ErrEncoding, len(body))
	}
	r := wire.NewReader(body)
	ell, d, buf, n, k := r.U64(), r.U64(), r.U64(), r.U64(), r.U64()
	settled := r.U8()
	frob2, shrink := r.F64(), r.F64()
	p := r.Rest()
	// Sizes first, each bounded before any product: the buffer and d by MaxDecodeFloats
	// (which bounds what New allocates), the rows in use by the buffer and by the data.
	limit := uint64(MaxDecodeFloats)
	if ell < 1 || d < 1 || buf <= ell || buf > limit || d > limit/buf || 3*buf*d+4*min(buf, d)+buf+d > limit {
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
	// The energy: every compression removes at least (ℓ+1)·δ of ‖B‖_F² and adds δ to Δ,
	// and a merge adds both sides' totals, so (ℓ+1)·Δ + ‖B‖_F² ≤ ‖A‖_F² (see FD), and a
	// sketch without rows seen is zero. The slack 1e-4 is far above rounding — relative
	// errors of a few ε per compression and n·ε in the running sum ‖A‖_F², below 1e-6
	// even for 10¹⁰ rows — and far below a forged total.
	var b2 float64
	for _, v := range rows {
		b2 += v * v
	}
	if n == 0 && (frob2 != 0 || shrink != 0) || !(float64(ell+1)*shrink+b2 <= (1+1e-4)*frob2) {
		return fmt.Errorf("%w: (ℓ+1)·Δ + ‖B‖_F² = %g exceeds ‖A‖_F² = %g of %d rows seen", ErrEncoding,
			float64(ell+1)*shrink+b2, frob2, n)
	}
	g, err := New(int(ell), int(d), Options{Buffer: int(buf)})
	if err != nil {
		return fmt.Errorf("%w: %s", ErrEncoding, err) // one kind: the encoding's, not New's ErrArgument
	}
	copy(g.b, rows)
	g.rows, g.n, g.frob2, g.shrink = int(k), int(n), frob2, shrink
	g.settled = settled == 1
	g.sigma2 = append(g.sigma2[:0], sigma2...)
	*f = *g
	return nil
}
