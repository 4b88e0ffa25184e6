package stream

import (
	"fmt"
	"io"
	"math"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/sketch"
)

// Encoding of an SKPCA: the frame of every encoding of the module (magic "IKPCASKP",
// version 2; internal/wire) around the body, integers and floats little-endian:
//
//	kernel   the kernel's Spec (internal/kernelwire): a kernel.RBF's name, σ, γ
//	dim      uint64  d, the points' dimension
//	options  uint64 Features, uint32 Form, uint64 Seed, uint64 Sketch, uint64 Buffer,
//	         uint8 Uncentred (SKPCAOptions)
//	sum      D float64 if centred: Σz, the features' sum (n is the sketch's count)
//	sketch   the Frequent Directions sketch's own encoding (sketch.FD.MarshalBinary,
//	         a frame of its own), to the end
//
// The random Fourier features are not stored: the kernel, the options and the seed make
// them again, the same bits (features.NewRFF). The decomposition as read is not stored
// either; the decoded model computes it from the same sketch and sum, the same bits. A
// model is then (rows in use + 2)·D numbers. Version 1, the paper's uncentred model with
// σ among its options and no frame length, is not read.
const (
	skpcaMagic   = "IKPCASKP"
	skpcaVersion = 2
)

// skpcaFormat is the encoding's frame, its name in errors and its error kinds.
var skpcaFormat = encodingFormat(skpcaMagic, skpcaVersion, "SKPCA model")

// body writes the model's body after the kernel's Spec to f, fd the sketch's encoding.
func (s *SKPCA) body(f *wire.Fields, fd []byte) {
	o := s.opts
	f.U64(uint64(s.rff.InDim()))
	f.U64(uint64(o.Features))
	f.U32(uint32(o.Form))
	f.U64(o.Seed)
	f.U64(uint64(o.Sketch))
	f.U64(uint64(o.Buffer))
	f.Bool(o.Uncentred)
	f.F64(s.sum...) // none uncentred
	f.Bytes(fd)
}

// encode returns the body of s's encoding, which holds the sketch's encoding. A zero
// SKPCA, which NewSKPCA did not make, is an ErrArgument.
func (s *SKPCA) encode() (wire.Body, error) {
	if s.fd == nil {
		return wire.Body{}, zeroModel("SKPCA")
	}
	fd, err := s.fd.MarshalBinary()
	if err != nil {
		return wire.Body{}, kinds.Wrap(err, "")
	}
	return withKernel(s.kern, func(f *wire.Fields) { s.body(f, fd) })
}

// MarshalBinary encodes the model — its kernel, options, features' sum and sketch — in
// the format above. It implements encoding.BinaryMarshaler and leaves the model
// unchanged (it does not compress the sketch, as reading the model does), so that a
// decoded model continues exactly as this one would. A zero SKPCA is an ErrArgument.
func (s *SKPCA) MarshalBinary() ([]byte, error) { return skpcaFormat.Marshal(s.encode) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time,
// with the errors of ikpca.Persistent.
func (s *SKPCA) MarshalBinaryTo(w io.Writer) (int, error) { return skpcaFormat.MarshalTo(w, s.encode) }

// UnmarshalBinaryFrom restores s from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (s *SKPCA) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return skpcaFormat.UnmarshalFrom(r, s.UnmarshalBinary)
}

// UnmarshalBinary replaces s by the model encoded in data (by MarshalBinary); a zero
// SKPCA may receive it. It implements encoding.BinaryUnmarshaler. Data that is not an
// encoded model, of another version, truncated, corrupted or with bytes left over, a
// kernel NewSKPCA refuses (any but a valid kernel.RBF) or that is not as it describes
// itself, options NewSKPCA refuses, a sum that is not finite or that no features give
// (beyond Cauchy–Schwarz, ‖Σz‖² ≤ n·Σ‖z‖², or non-zero without points), a sketch that
// is not one of those options (ℓ, D, buffer) or not a valid sketch
// (sketch.FD.UnmarshalBinary), or arrays beyond MaxDecodeFloats — the encoding holds
// the sketch's rows, not the frequencies and components a model of those options
// allocates, so those are bounded apart, before anything is allocated — gives an error
// wrapping ErrEncoding and leaves s unchanged.
func (s *SKPCA) UnmarshalBinary(data []byte) error {
	return kernelwire.Unmarshal(skpcaFormat, s, data, 0, decodeSKPCA)
}

// decodeSKPCA reads the body of an encoded SKPCA after its kernel k.
func decodeSKPCA(k kernel.Kernel, body *wire.Reader) (*SKPCA, error) {
	dec := newDecoder(body)
	limit := uint64(MaxDecodeFloats)
	d := dec.size("the dimension", limit)
	D := dec.size("the number of features", limit)
	form := dec.u32("the features' form")
	seed := dec.u64("the seed")
	ell := dec.size("ℓ", limit)
	buf := dec.size("the buffer", limit)
	uncentred := dec.bool("Uncentred")
	if dec.err != nil {
		return nil, dec.err
	}
	// The model's own arrays — the frequencies (d×D at most), the feature vector, the
	// components (D×ℓ, and centred D×(ℓ+1) and (ℓ+1)²) — bounded before NewSKPCA
	// allocates them; the sketch's are bounded by its decoder.
	if d < 1 || D < 1 || ell < 1 || d > MaxDecodeFloats/D || ell+2 > MaxDecodeFloats/D ||
		d*D+3*D+2*D*(ell+2)+(ell+1)*(ell+2) > MaxDecodeFloats {
		return nil, fmt.Errorf("%w: dimension %d, %d features, ℓ = %d: more than MaxDecodeFloats = %d numbers", ErrEncoding, d, D, ell, MaxDecodeFloats)
	}
	var sum []float64
	if !uncentred {
		sum = dec.floats(D, "the features' sum")
	}
	if dec.err != nil {
		return nil, dec.err
	}
	var fd sketch.FD
	if err := fd.UnmarshalBinary(dec.r.Rest()); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrEncoding, err)
	}
	s, err := NewSKPCA(k, d, SKPCAOptions{Features: D, Form: features.Form(form), Seed: seed, Sketch: ell, Buffer: buf, Uncentred: uncentred})
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrEncoding, err)
	}
	if fd.Ell() != ell || fd.Dim() != D || fd.Buffer() != s.fd.Buffer() {
		return nil, fmt.Errorf("%w: a sketch of ℓ = %d, dimension %d, buffer %d for ℓ = %d, %d features, buffer %d",
			ErrEncoding, fd.Ell(), fd.Dim(), fd.Buffer(), ell, D, s.fd.Buffer())
	}
	// Every random feature is at most √(2/D) in magnitude (features.RFF), so ‖z‖² ≤ 2,
	// and in the cos-sin form ‖z‖² = 1 to D·ε: ‖Z‖_F² is n to a relative 1e-4 (far above
	// the rounding of D ≤ 2²⁵ features and of the running sum).
	n, f := fd.Count(), fd.Frobenius2()
	if !(f <= (1+1e-4)*2*float64(n)) || s.opts.Form == features.CosSin && !(math.Abs(f-float64(n)) <= 1e-4*float64(n)) {
		return nil, fmt.Errorf("%w: the sketch's ‖Z‖_F² = %g for %d points of random features (%v)", ErrEncoding, f, n, s.opts.Form)
	}
	if sum != nil {
		if err := checkSum(sum, fd.Count(), fd.Frobenius2()); err != nil {
			return nil, err
		}
		copy(s.sum, sum)
	}
	s.fd = &fd
	return s, nil
}

// checkSum reports a sum Σz of n feature vectors whose squared norms add up to frob2
// that no such vectors give (ErrEncoding): non-zero without points, or beyond
// Cauchy–Schwarz, ‖Σz‖² ≤ n·Σ‖z‖², by more than rounding — a relative 1e-4, as in the
// sketch's check of its totals, and an absolute n²·2⁻¹⁰⁰⁰ for squares that underflowed.
func checkSum(sum []float64, n int, frob2 float64) error {
	var s2 float64
	for _, v := range sum {
		s2 += v * v
	}
	fn := float64(n)
	if n == 0 && s2 != 0 || !(s2 <= (1+1e-4)*fn*frob2+fn*fn*0x1p-1000) {
		return fmt.Errorf("%w: the features' sum has ‖Σz‖² = %g, beyond n·Σ‖z‖² = %g for %d points", ErrEncoding, s2, fn*frob2, n)
	}
	return nil
}
