package stream

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/sketch"
)

// ErrEncoding reports data that SKPCA.UnmarshalBinary cannot read: not an encoded
// model, an unknown version, truncated or corrupted (checksum mismatch), or describing
// a model that cannot exist even under a valid checksum.
var ErrEncoding = errors.New("stream: bad encoding")

// Encoding of an SKPCA, version 1 (integers and floats little-endian):
//
//	magic    8 bytes "IKPCASKP"
//	version  uint32  1
//	dim      uint64  d, the points' dimension
//	options  uint64 Features, float64 Sigma, uint32 Form, uint64 Seed, uint64 Sketch,
//	         uint64 Buffer (SKPCAOptions)
//	sketch   the Frequent Directions sketch's own encoding (sketch.FD.MarshalBinary), to
//	         the end
//	sha256   32 bytes over everything above
//
// The random Fourier features are not stored: the options and the seed make them again,
// the same bits (features.NewRFF). The decomposition as read is not stored either; the
// decoded model computes it from the same sketch, the same bits. A model is then
// (rows in use + 1)·D numbers, the sketch's rows.
const (
	skpcaMagic   = "IKPCASKP"
	skpcaVersion = 1
	skpcaHeader  = len(skpcaMagic) + 4 + 8 + 8 + 8 + 4 + 8 + 8 + 8
)

// MarshalBinary encodes the model — its options and its sketch — in the format above.
// It implements encoding.BinaryMarshaler and leaves the model unchanged (it does not
// compress the sketch, as reading the model does).
func (s *SKPCA) MarshalBinary() ([]byte, error) {
	fd, err := s.fd.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	o := s.opts
	b := make([]byte, 0, skpcaHeader+len(fd)+sha256.Size)
	b = append(b, skpcaMagic...)
	b = binary.LittleEndian.AppendUint32(b, skpcaVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(s.rff.InDim()))
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Features))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(o.Sigma))
	b = binary.LittleEndian.AppendUint32(b, uint32(o.Form))
	b = binary.LittleEndian.AppendUint64(b, o.Seed)
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Sketch))
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Buffer))
	b = append(b, fd...)
	return wire.Seal(b), nil
}

// UnmarshalBinary replaces s by the model encoded in data (by MarshalBinary); a zero
// SKPCA may receive it. It implements encoding.BinaryUnmarshaler. Data that is not an
// encoded model, of another version, truncated, corrupted or with bytes left over, whose
// options NewSKPCA refuses, whose sketch is not one of those options (ℓ, D, buffer) or
// not a valid sketch (sketch.FD.UnmarshalBinary), or whose arrays would exceed
// sketch.MaxDecodeFloats — the encoding holds the sketch's rows, not the memory a model
// of those options allocates, so that is bounded apart, before anything is allocated —
// gives an error wrapping ErrEncoding and leaves s unchanged.
func (s *SKPCA) UnmarshalBinary(data []byte) error {
	_, body, err := wire.Open(data, skpcaMagic, skpcaHeader-len(skpcaMagic)-4, ErrEncoding, "SKPCA model", skpcaVersion)
	if err != nil {
		return err
	}
	r := wire.NewReader(body)
	d, D, sigma := r.U64(), r.U64(), r.F64()
	form := r.U32()
	seed, ell, buf := r.U64(), r.U64(), r.U64()
	sk := r.Rest()
	// The model's own arrays — the frequencies (d×D at most), the feature vector, the
	// components (D×ℓ) and the values — bounded before NewSKPCA allocates them; the
	// sketch's are bounded by its decoder.
	limit := uint64(sketch.MaxDecodeFloats)
	if d < 1 || D < 1 || ell < 1 || d > limit || D > limit/d || ell > limit/D || d*D+D+D*ell+ell > limit || buf > limit {
		return fmt.Errorf("%w: dimension %d, %d features, ℓ = %d, buffer %d", ErrEncoding, d, D, ell, buf)
	}
	var fd sketch.FD
	if err := fd.UnmarshalBinary(sk); err != nil {
		return fmt.Errorf("%w: %w", ErrEncoding, err)
	}
	wantBuf := int(buf)
	if wantBuf == 0 {
		wantBuf = 2 * int(ell)
	}
	if fd.Ell() != int(ell) || fd.Dim() != int(D) || fd.Buffer() != wantBuf {
		return fmt.Errorf("%w: a sketch of ℓ = %d, dimension %d, buffer %d for ℓ = %d, %d features, buffer %d",
			ErrEncoding, fd.Ell(), fd.Dim(), fd.Buffer(), ell, D, wantBuf)
	}
	got, err := NewSKPCA(int(d), SKPCAOptions{Features: int(D), Sigma: sigma, Form: features.Form(form), Seed: seed,
		Sketch: int(ell), Buffer: int(buf)})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEncoding, err)
	}
	got.fd = &fd
	*s = *got
	return nil
}
