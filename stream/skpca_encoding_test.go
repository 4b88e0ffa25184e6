package stream

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/sketch"
)

// sealed returns body followed by its checksum, as the encoders write it.
func sealed(body []byte) []byte { return wire.Seal(bytes.Clone(body)) }

// sameSKPCA fails unless a and b read the same, bit for bit: values, error bound,
// sizes, memory, options and the scores of Y on every component.
func sameSKPCA(t *testing.T, what string, a, b *SKPCA, Y mat.Matrix) {
	t.Helper()
	va, vb := a.Values(nil), b.Values(nil)
	if len(va) != len(vb) || a.Len() != b.Len() || a.Dim() != b.Dim() || a.Bytes() != b.Bytes() || a.Options() != b.Options() ||
		math.Float64bits(a.ErrorBound()) != math.Float64bits(b.ErrorBound()) {
		t.Fatalf("%s: values, sizes, options or error bound differ", what)
	}
	for i := range va {
		if math.Float64bits(va[i]) != math.Float64bits(vb[i]) {
			t.Fatalf("%s: λ%d = %v and %v", what, i, va[i], vb[i])
		}
	}
	if len(va) == 0 {
		return
	}
	var sa, sb mat.Dense
	if err := a.Transform(&sa, Y, len(va)); err != nil {
		t.Fatal(err)
	}
	if err := b.Transform(&sb, Y, len(vb)); err != nil {
		t.Fatal(err)
	}
	for i, v := range sa.RawMatrix().Data {
		if math.Float64bits(v) != math.Float64bits(sb.RawMatrix().Data[i]) {
			t.Fatalf("%s: scores differ", what)
		}
	}
}

// roundTrip encodes s, decodes it into a zero SKPCA and checks that it encodes back to
// the same bytes.
func roundTrip(t *testing.T, s *SKPCA) *SKPCA {
	t.Helper()
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back SKPCA
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	again, err := back.MarshalBinary()
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("encoded again: not the same bytes (%v)", err)
	}
	return &back
}

// TestSKPCAEncoding: an SKPCA encoded and decoded reads, grows and merges exactly as the
// original — fresh, with its sketch's buffer part full (not compressed), compressed by a
// read, both feature forms, a buffer of its own — and a decoded accumulator merged into
// a model equals the original merged, bit for bit.
func TestSKPCAEncoding(t *testing.T) {
	X, sigma := standardised(t, data.Magic().X, 400)
	Y := X.Slice(300, 400, 0, 10)
	for _, opts := range []SKPCAOptions{
		{Features: 64, Sigma: sigma, Sketch: 6, Seed: 3},
		{Features: 33, Sigma: sigma, Sketch: 4, Seed: 4, Form: features.RandomPhase, Buffer: 9},
	} {
		s, err := NewSKPCA(10, opts)
		if err != nil {
			t.Fatal(err)
		}
		sameSKPCA(t, "fresh", s, roundTrip(t, s), Y)
		for i := range 103 { // a buffer part full: 103 = 2·6·8 + 7
			if err := s.Add(X.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		back := roundTrip(t, s)
		// Both grow the same way from here, reading only at the end (the decoded one
		// must not have been compressed by the encoding).
		if err := s.AddBatch(X.Slice(103, 200, 0, 10)); err != nil {
			t.Fatal(err)
		}
		if err := back.AddBatch(X.Slice(103, 200, 0, 10)); err != nil {
			t.Fatal(err)
		}
		sameSKPCA(t, "grown after decoding", s, back, Y)
		// Compressed by the read above: round trip again.
		sameSKPCA(t, "read, then decoded", s, roundTrip(t, s), Y)

		// A partial accumulator shipped as bytes and merged.
		part, err := NewSKPCA(10, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := part.AddBatch(X.Slice(200, 300, 0, 10)); err != nil {
			t.Fatal(err)
		}
		shipped := roundTrip(t, part)
		other := roundTrip(t, s)
		if err := s.Merge(part); err != nil {
			t.Fatal(err)
		}
		if err := other.Merge(shipped); err != nil {
			t.Fatal(err)
		}
		sameSKPCA(t, "merged with a decoded accumulator", s, other, Y)
	}
}

// TestSKPCAEncodingRefused: every defect of an encoding is an ErrEncoding and leaves
// the receiver unchanged: damage the checksums catch, and under valid checksums options
// NewSKPCA refuses, a sketch of other sizes, sizes beyond sketch.MaxDecodeFloats, and a
// sketch that cannot exist.
func TestSKPCAEncodingRefused(t *testing.T) {
	X, sigma := standardised(t, data.Yeast().X, 50)
	s, err := NewSKPCA(8, SKPCAOptions{Features: 16, Sigma: sigma, Sketch: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	_ = s.Values(nil) // compressed: the sketch holds ΣVᵀ and σ²
	good, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	body := good[:len(good)-sha256.Size]
	const fd = skpcaHeader // the sketch's encoding starts here
	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
	}
	// inner edits the sketch's encoding and seals it again, then the whole.
	inner := func(edit func([]byte)) func([]byte) []byte {
		return func(b []byte) []byte {
			in := bytes.Clone(b[fd : len(b)-sha256.Size])
			edit(in)
			return append(b[:fd:fd], sealed(in)...)
		}
	}
	fdPut := func(off int, v uint64) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint64(b[off:], v) }
	}
	const fdSizes = 12 // ℓ, d, buffer, n, rows in use at 12, 20, 28, 36, 44; settled at 52; totals at 53
	for _, c := range []struct {
		what string
		edit func([]byte) []byte
		raw  []byte
	}{
		{"nothing", nil, []byte{}},
		{"a flipped bit", nil, func() []byte { b := bytes.Clone(good); b[len(b)-40] ^= 1; return b }()},
		{"truncated", nil, good[:len(good)-8]},
		{"an extra byte", nil, append(bytes.Clone(good), 1)},
		{"version 2", func(b []byte) []byte { b[8] = 2; return b }, nil},
		{"dimension 0", put64(12, 0), nil},
		{"dimension 2⁴⁰", put64(12, 1<<40), nil},
		{"σ = −1", put64(28, math.Float64bits(-1)), nil},
		{"form 5", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[36:], 5); return b }, nil},
		{"ℓ = 4", put64(48, 4), nil},
		{"buffer 3", put64(56, 3), nil},
		{"2³⁰ features", put64(20, 1<<30), nil},
		{"2⁶³ features", put64(20, 1<<63), nil},
		{"sketch: ℓ = 0", inner(fdPut(fdSizes, 0)), nil},
		{"sketch: rows in use beyond ℓ, compressed", inner(fdPut(fdSizes+32, 4)), nil},
		{"sketch: fewer rows seen than in use", inner(fdPut(fdSizes+24, 1)), nil},
		{"sketch: settled 2", inner(func(b []byte) { b[fdSizes+40] = 2 }), nil},
		{"sketch: ‖A‖² = NaN", inner(fdPut(fdSizes+41, math.Float64bits(math.NaN()))), nil},
		{"sketch: Δ = −1", inner(fdPut(fdSizes+49, math.Float64bits(-1))), nil},
		{"sketch: a row entry scaled", inner(func(b []byte) {
			off := fdSizes + 57
			binary.LittleEndian.PutUint64(b[off:], math.Float64bits(2*math.Float64frombits(binary.LittleEndian.Uint64(b[off:]))))
		}), nil},
		{"sketch: another magic", inner(func(b []byte) { b[0] = 'X' }), nil},
	} {
		in := c.raw
		if in == nil {
			in = sealed(c.edit(bytes.Clone(body)))
		}
		before, _ := s.MarshalBinary()
		if err := s.UnmarshalBinary(in); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", c.what, err)
		}
		if after, _ := s.MarshalBinary(); !bytes.Equal(before, after) {
			t.Errorf("%s: the refused encoding changed the model", c.what)
		}
	}
	var zero SKPCA
	if err := zero.UnmarshalBinary(good); err != nil {
		t.Errorf("the good encoding: %v", err)
	}
	// A sketch refused on its own, too.
	var f sketch.FD
	if err := f.UnmarshalBinary(good[fd : len(good)-sha256.Size]); err != nil {
		t.Errorf("the sketch's own encoding: %v", err)
	}
}
