package stream

import (
	"fmt"
	"io"
	"math"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// Encoding of an RNCA: the frame of every encoding of the module (magic "IKPCARNC",
// version 1; internal/wire) around the body, integers and floats little-endian:
//
//	kernel   the kernel's Spec (internal/kernelwire): a kernel.RBF's name, σ, γ
//	dim      uint64  d, the points' dimension
//	options  uint64 Features, uint32 Form, uint64 Seed, uint8 Uncentred (RNCAOptions)
//	n        uint64  the points seen
//	sum      D float64, Σz
//	moment   D(D+1)/2 float64, the upper triangle of ZᵀZ row by row (the lower one is
//	         never written: dsyr and dsyrk update the upper, and the eigensolver reads it)
//
// The random Fourier features are made again from the kernel, options and seed, the
// same bits; the eigendecomposition is computed again from the same sums when first
// read, the same bits.
const (
	rncaMagic   = "IKPCARNC"
	rncaVersion = 1
)

// rncaFormat is the encoding's frame, its name in errors and its error kinds.
var rncaFormat = encodingFormat(rncaMagic, rncaVersion, "RNCA model")

func (r *RNCA) body(f *wire.Fields) {
	o := r.opts
	D := o.Features
	f.U64(uint64(r.rff.InDim()))
	f.U64(uint64(D))
	f.U32(uint32(o.Form))
	f.U64(o.Seed)
	f.Bool(o.Uncentred)
	f.U64(uint64(r.n))
	f.F64(r.sum...)
	for i := range D {
		f.F64(r.moment[i*D+i : (i+1)*D]...)
	}
}

// encode returns the body of r's encoding; a zero RNCA is an ErrArgument.
func (r *RNCA) encode() (wire.Body, error) {
	if r.rff == nil {
		return wire.Body{}, zeroModel("RNCA")
	}
	return withKernel(r.kern, r.body)
}

// MarshalBinary encodes the model — its kernel, options, count, sum and moment matrix —
// in the format above: D(D+3)/2 numbers. It implements encoding.BinaryMarshaler and
// leaves the model unchanged. A zero RNCA is an ErrArgument.
func (r *RNCA) MarshalBinary() ([]byte, error) { return rncaFormat.Marshal(r.encode) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w (the moment matrix
// alone is 4·D² bytes, 1 GiB at D = 2¹⁴), with the errors of ikpca.Persistent.
func (r *RNCA) MarshalBinaryTo(w io.Writer) (int, error) { return rncaFormat.MarshalTo(w, r.encode) }

// UnmarshalBinaryFrom restores r from one encoding read from src, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (r *RNCA) UnmarshalBinaryFrom(src io.Reader) (int, error) {
	return rncaFormat.UnmarshalFrom(src, r.UnmarshalBinary)
}

// UnmarshalBinary replaces r by the model encoded in data (by MarshalBinary); a zero RNCA
// may receive it. It implements encoding.BinaryUnmarshaler. Data that is not an encoded
// model, of another version, truncated, corrupted or with bytes left over, a kernel
// NewRNCA refuses or that is not as it describes itself, options NewRNCA refuses,
// frequencies (d×D/2) beyond MaxDecodeFloats (the encoding does not hold them: they are
// bounded before anything is allocated; the D×D matrix is bounded by the bytes
// present), a number that is not finite, or sums that no features give — non-zero
// without points, a negative diagonal, beyond Cauchy–Schwarz (|Mᵢⱼ| ≤ √(MᵢᵢMⱼⱼ), ‖Σz‖² ≤
// n·trace M) by more than rounding — gives an error wrapping ErrEncoding and leaves r
// unchanged.
func (r *RNCA) UnmarshalBinary(data []byte) error {
	return kernelwire.Unmarshal(rncaFormat, r, data, 0, decodeRNCA)
}

// decodeRNCA reads the body of an encoded RNCA after its kernel k.
func decodeRNCA(k kernel.Kernel, body *wire.Reader) (*RNCA, error) {
	dec := newDecoder(body)
	d := dec.size("the dimension", uint64(MaxDecodeFloats))
	D := dec.size("the number of features", 1<<14)
	form := dec.u32("the features' form")
	seed := dec.u64("the seed")
	uncentred := dec.bool("Uncentred")
	n := dec.size("the number of points", maxCount)
	if dec.err != nil {
		return nil, dec.err
	}
	if d < 1 || D < 1 {
		return nil, fmt.Errorf("%w: dimension %d and %d features", ErrEncoding, d, D)
	}
	if d > MaxDecodeFloats/D {
		return nil, fmt.Errorf("%w: dimension %d and %d features: frequencies beyond MaxDecodeFloats = %d numbers", ErrEncoding, d, D, MaxDecodeFloats)
	}
	// The sums are D(D+3)/2 numbers in the body: a forged D costs no allocation.
	if uint64(dec.r.Len()) != 8*uint64(D)*uint64(D+3)/2 {
		return nil, fmt.Errorf("%w: %d bytes of sums for %d features, want %d", ErrEncoding, dec.r.Len(), D, 8*D*(D+3)/2)
	}
	sum := dec.floats(D, "the features' sum")
	upper := dec.floats(D*(D+1)/2, "the moment matrix")
	if err := dec.end(); err != nil {
		return nil, err
	}
	m, err := NewRNCA(k, d, RNCAOptions{Features: D, Form: features.Form(form), Seed: seed, Uncentred: uncentred})
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrEncoding, err)
	}
	for i := range D {
		copy(m.moment[i*D+i:(i+1)*D], upper[:D-i])
		upper = upper[D-i:]
	}
	copy(m.sum, sum)
	m.n = n
	if err := m.checkSums(); err != nil {
		return nil, err
	}
	return m, nil
}

// checkSums reports sums that no features give (ErrEncoding): non-zero without points, a
// diagonal of ZᵀZ negative or beyond n·2/D (every random feature is at most √(2/D) in
// magnitude, features.RFF), an entry beyond Cauchy–Schwarz, |Mᵢⱼ| ≤ √(MᵢᵢMⱼⱼ), or a sum
// beyond ‖Σz‖² ≤ n·Σ‖z‖² = n·trace M, by more than rounding: a relative 1e-4 (the
// computed sums err by at most about n·ε relative to the sums of magnitudes, below 1e-6
// for 10¹⁰ points) and an absolute n·2⁻⁵⁰⁰ per entry for squares that underflowed.
func (r *RNCA) checkSums() error {
	D, fn := r.opts.Features, float64(r.n)
	var trace float64
	for i := range D {
		v := r.moment[i*D+i]
		if !(v >= 0 && v <= (1+1e-4)*fn*2/float64(D)) || r.n == 0 && v != 0 {
			return fmt.Errorf("%w: ZᵀZ has diagonal entry %g with %d points of %d features", ErrEncoding, v, r.n, D)
		}
		trace += v
	}
	tiny := fn * 0x1p-500
	for i := range D {
		for j := i + 1; j < D; j++ {
			if !(math.Abs(r.moment[i*D+j]) <= (1+1e-4)*math.Sqrt(r.moment[i*D+i]*r.moment[j*D+j])+tiny) {
				return fmt.Errorf("%w: ZᵀZ has entry (%d, %d) = %g beyond Cauchy–Schwarz", ErrEncoding, i, j, r.moment[i*D+j])
			}
		}
	}
	return checkSum(r.sum, r.n, trace)
}
