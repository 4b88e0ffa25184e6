package stream

import (
	"fmt"
	"io"
	"math"

	"github.com/ikpca/ikpca/features"
)

// Encoding of an RNCA: the frame of every encoding of the module (magic "IKPCARNC",
// version 1; internal/wire) around the body, integers and floats little-endian:
//
//	kernel   the kernel's Spec (encoder.spec): a kernel.RBF's name, σ, γ
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

func (r *RNCA) body(e *encoder, spec []byte) {
	o := r.opts
	D := o.Features
	e.raw(spec)
	e.u64(uint64(r.rff.InDim()))
	e.u64(uint64(D))
	e.u32(uint32(o.Form))
	e.u64(o.Seed)
	e.bool(o.Uncentred)
	e.u64(uint64(r.n))
	e.floats(r.sum...)
	for i := range D {
		e.floats(r.moment[i*D+i : (i+1)*D]...)
	}
}

// spec returns the encoding of the kernel's Spec; a zero RNCA is an ErrArgument.
func (r *RNCA) spec() ([]byte, error) {
	if r.rff == nil {
		return nil, fmt.Errorf("%w: a zero RNCA (make one with NewRNCA, or decode one)", ErrArgument)
	}
	return encodedKernel(r.kern)
}

// MarshalBinary encodes the model — its kernel, options, count, sum and moment matrix —
// in the format above: D(D+3)/2 numbers. It implements encoding.BinaryMarshaler and
// leaves the model unchanged. A zero RNCA is an ErrArgument.
func (r *RNCA) MarshalBinary() ([]byte, error) {
	spec, err := r.spec()
	if err != nil {
		return nil, err
	}
	return marshal(rncaMagic, rncaVersion, func(e *encoder) { r.body(e, spec) })
}

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, a buffer of 64 KiB at a
// time (the moment matrix alone is 4·D² bytes, 1 GiB at D = 2¹⁴), and returns the number
// of bytes written. A nil w, or a zero RNCA, is an ErrArgument; w's own errors are
// returned as they are.
func (r *RNCA) MarshalBinaryTo(w io.Writer) (int, error) {
	if w == nil {
		return 0, fmt.Errorf("%w: nil writer", ErrArgument)
	}
	spec, err := r.spec()
	if err != nil {
		return 0, err
	}
	return marshalTo(w, rncaMagic, rncaVersion, func(e *encoder) { r.body(e, spec) })
}

// UnmarshalBinaryFrom reads one encoding from src — exactly its bytes — and replaces r
// by the model it encodes, as UnmarshalBinary does, returning the number of bytes read.
// A nil src is an ErrArgument; a stream that ends early an ErrEncoding; src's own errors
// are returned as they are. On error r is unchanged.
func (r *RNCA) UnmarshalBinaryFrom(src io.Reader) (int, error) {
	return unmarshalFrom(src, rncaMagic, "RNCA model", r.UnmarshalBinary)
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
	got, err := decodeRNCA(data)
	if err != nil {
		return err
	}
	*r = *got
	return nil
}

func decodeRNCA(data []byte) (*RNCA, error) {
	body, err := openFrame(data, rncaMagic, "RNCA model", rncaVersion)
	if err != nil {
		return nil, err
	}
	dec := newDecoder(body)
	k := dec.kernel()
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
