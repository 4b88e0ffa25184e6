package nystrom

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// Sums is what the points of a Model contribute to it: their number and the
// compensated sums Σ(φ − c) and Σ(φ − c)(φ − c)ᵀ of their shifted features, without
// the feature map they were computed with, which it names by a digest (SHA-256 of the
// kernel, the options the map depends on, the landmarks, the eigenvalues, the map and
// the shift). It is the part of a model a shard of the data makes on top of a map
// every shard shares (docs/design.md, "Nyström kernel PCA"): sums merge with sums of
// the same map (Merge), and add to a model of that map (Model.AddSums), exactly as the
// models they come from would merge.
//
// Its encoding (MarshalBinary) is about half a model's at r = r' (the sums without the
// landmarks and the map), and decoding it checks what a Model's decoding checks of its
// sums, O(r'²), but not the map, which it does not hold: a distributed fit that sends
// each shard's Sums to be merged never decodes and verifies a map, O(r²·(d + r')), more
// than once per worker. A zero Sums holds no points and no map; it is what
// UnmarshalBinary and Model.SumsTo fill.
type Sums struct {
	digest [sha256.Size]byte
	p, n   int
	sum    vecSum
	sq     triSum
}

// Len returns the number of points the sums are over.
func (s *Sums) Len() int { return s.n }

// SumsTo writes the model's Sums to dst, reusing dst's storage when it has the size,
// and allocating otherwise. A zero Model or a nil dst is an ErrArgument.
func (md *Model) SumsTo(dst *Sums) error {
	switch {
	case md.r == 0:
		return errZero
	case dst == nil:
		return fmt.Errorf("%w: nil Sums", ErrArgument)
	}
	if dst.p != md.p {
		*dst = Sums{p: md.p, sum: newVecSum(md.p), sq: newTriSum(md.p)}
	}
	dst.digest, dst.n = md.digest, md.n
	copy(dst.sum.hi, md.sum.hi)
	copy(dst.sum.lo, md.sum.lo)
	copy(dst.sq.hi, md.sq.hi)
	copy(dst.sq.lo, md.sq.lo)
	return nil
}

// AddSums adds the points s is over to the model, s being the Sums of a model with
// the same feature map (SumsTo; a model made from this one by Empty, Reset or an
// encoding): the result is the model Merge would make of that model. s is unchanged.
// A zero Model, a nil or zero s, sums of another map, or sums that would overflow are
// errors (ErrArgument, ErrNonFinite), and leave the model unchanged.
func (md *Model) AddSums(s *Sums) error {
	switch {
	case md.r == 0:
		return errZero
	case s == nil || s.p == 0:
		return fmt.Errorf("%w: nil or zero Sums", ErrArgument)
	case s.p != md.p || s.digest != md.digest:
		return fmt.Errorf("%w: adding the sums of another feature map (%d features, digest %x) to a model of %d features, digest %x",
			ErrArgument, s.p, s.digest[:6], md.p, md.digest[:6])
	}
	return md.addSums(s.n, s.sum, s.sq)
}

// Merge adds the sums o to s, both of the same feature map; o is unchanged. A nil or
// zero o, o == s, sums of another map or sums that would overflow are errors
// (ErrArgument, ErrNonFinite), and leave s unchanged.
func (s *Sums) Merge(o *Sums) error {
	switch {
	case s.p == 0 || o == nil || o.p == 0:
		return fmt.Errorf("%w: merging zero Sums", ErrArgument)
	case o == s:
		return fmt.Errorf("%w: merging Sums with themselves", ErrArgument)
	case o.p != s.p || o.digest != s.digest:
		return fmt.Errorf("%w: merging the sums of two feature maps", ErrArgument)
	}
	if err := mergeable(s.n, s.sq, o.n, o.sq); err != nil {
		return err
	}
	s.sum.merge(o.sum)
	s.sq.merge(o.sq)
	s.n += o.n
	return nil
}

// mergeable reports why the sums of o points with squares osq cannot be added to those
// of n points with squares sq: the count or a diagonal sum beyond its bound (sumLimit,
// maxPoints), the guards of Add, so that merged sums stay far from overflow.
func mergeable(n int, sq triSum, o int, osq triSum) error {
	if o > maxPoints-n {
		return fmt.Errorf("%w: %d points on top of %d", ErrArgument, o, n)
	}
	p := sq.p
	for j := range p {
		if v := osq.hi[j*p+j]; !(sq.hi[j*p+j]+v <= sumLimit) {
			return fmt.Errorf("%w: squared feature %d sums to %g: the merged sums would overflow", ErrNonFinite, j, v)
		}
	}
	return nil
}

// The encoding of Sums, version 1: the frame of package internal/wire (magic
// "IKPCANSU") around the body
//
//	digest   32 bytes: the feature map's (mapDigest)
//	sizes    uint64 p (features), n (points)
//	sum      p float64 hi, then p lo
//	squares  p(p+1)/2 float64 hi, then as many lo, the upper triangle row by row
//
// little-endian, floats bit for bit, as in a Model's encoding.
var sumsFormat = wire.Format{Magic: "IKPCANSU", Version: 1, What: "Nyström sums", Argument: ErrArgument, Encoding: ErrEncoding}

// MarshalBinary encodes the sums (encoding.BinaryMarshaler). Zero Sums are an
// ErrArgument.
func (s *Sums) MarshalBinary() ([]byte, error) {
	return sumsFormat.Marshal(func() (wire.Body, error) {
		if s.p == 0 {
			return wire.Body{}, fmt.Errorf("%w: zero Sums", ErrArgument)
		}
		p := s.p
		return wire.Body{Len: uint64(len(s.digest) + 16 + 8*(2*p+p*(p+1))), Write: func(f *wire.Fields) {
			f.Bytes(s.digest[:])
			f.U64(uint64(p))
			f.U64(uint64(s.n))
			f.F64(s.sum.hi...)
			f.F64(s.sum.lo...)
			for _, half := range [][]float64{s.sq.hi, s.sq.lo} {
				for i := range p {
					f.F64(half[i*p+i : (i+1)*p]...)
				}
			}
		}}, nil
	})
}

// UnmarshalBinary replaces s by the sums data encodes (encoding.BinaryUnmarshaler).
// Data that is not an encoding of Sums, truncated or corrupted, or that holds sums no
// set of points gives — sizes that do not fit the data, a count beyond 2⁵³, non-zero
// sums of no points, sums beyond Cauchy–Schwarz's bounds (the checks of
// Model.UnmarshalBinary on its sums, O(p²)) — is an ErrEncoding, and leaves s unchanged.
// The map is not checked: Sums do not hold it, and Model.AddSums refuses sums of
// another.
func (s *Sums) UnmarshalBinary(data []byte) error {
	return wire.Unmarshal(sumsFormat, s, data, decodeSums)
}

// decodeSums reads the body of an encoding of Sums.
func decodeSums(body []byte) (*Sums, error) {
	dec := wire.NewReader(body)
	if dec.Len() < sha256.Size+16 {
		return nil, fmt.Errorf("%w: %d bytes of Nyström sums", ErrEncoding, dec.Len())
	}
	var s Sums
	copy(s.digest[:], dec.Bytes(sha256.Size))
	p64, n64 := dec.U64(), dec.U64()
	have := uint64(dec.Len() / 8)
	if p64 < 1 || p64 > have || p64+1 > have/p64 {
		return nil, fmt.Errorf("%w: %d features for %d bytes of data", ErrEncoding, p64, dec.Len())
	}
	p := int(p64)
	tri := p * (p + 1) / 2
	if want := 2*p + 2*tri; dec.Len()%8 != 0 || int(have) != want {
		return nil, fmt.Errorf("%w: %d bytes of data, want %d", ErrEncoding, dec.Len(), 8*want)
	}
	if n64 > maxPoints {
		return nil, fmt.Errorf("%w: %d points", ErrEncoding, n64)
	}
	fields, err := dec.Arrays(ErrEncoding, wire.Array{What: "sums", Len: p}, wire.Array{What: "sums' compensation", Len: p},
		wire.Array{What: "sums of squares", Len: tri}, wire.Array{What: "sums of squares' compensation", Len: tri})
	if err != nil {
		return nil, err
	}
	s.p, s.n = p, int(n64)
	s.sum = vecSum{hi: fields[0], lo: fields[1]}
	s.sq = newTriSum(p)
	unpackUpper(s.sq, fields[2], fields[3])
	if err := checkSums(p, s.n, s.sum, s.sq); err != nil {
		return nil, err
	}
	return &s, nil
}

// unpackUpper writes the packed upper triangles hi and lo, row by row, into t.
func unpackUpper(t triSum, hi, lo []float64) {
	p := t.p
	for half, src := range [][]float64{hi, lo} {
		dst := t.hi
		if half == 1 {
			dst = t.lo
		}
		for i := range p {
			copy(dst[i*p+i:(i+1)*p], src[:p-i])
			src = src[p-i:]
		}
	}
}

// mapDigest is the SHA-256 of what makes the feature map of md (docs/design.md,
// "Nyström kernel PCA"): the kernel (its Spec, or its type), the tolerance and the
// centring, the sizes, the landmarks, the eigenvalues, the map and the shift, floats
// bit for bit. Two models have the same digest when Merge would accept one into the
// other (compatible), and sums travel with it in its stead (Sums). It costs one pass
// over the map, O(r·(d + r')), made once when the map is (New, decoding) and shared by
// Empty.
func (md *Model) mapDigest() [sha256.Size]byte {
	h := sha256.New()
	if spec, ok := md.kern.(kernel.Specified); ok {
		fmt.Fprintf(h, "%+v\x00", spec.Spec())
	} else {
		fmt.Fprintf(h, "%T\x00", md.kern)
	}
	var b []byte
	word := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	floats := func(xs []float64) { // 8 KiB at a time
		for len(xs) > 0 || len(b) > 0 {
			for len(xs) > 0 && len(b) < 8<<10 {
				word(math.Float64bits(xs[0]))
				xs = xs[1:]
			}
			h.Write(b)
			b = b[:0]
		}
	}
	word(math.Float64bits(md.opts.Tolerance))
	if md.opts.Uncentred {
		word(1)
	} else {
		word(0)
	}
	for _, v := range []int{md.d, md.r, md.p} {
		word(uint64(v))
	}
	floats(nil)
	for i := range md.r {
		floats(md.land.RawRowView(i))
	}
	floats(md.sigma)
	floats(md.f)
	floats(md.shift)
	return [sha256.Size]byte(h.Sum(nil))
}
