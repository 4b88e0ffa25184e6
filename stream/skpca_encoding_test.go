package stream

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/sketch"
)

// sameSKPCA fails unless a and b read the same, bit for bit: values, sizes and scores
// of Y on every component (wiretest.SameModel), memory, options and error bound.
func sameSKPCA(t *testing.T, what string, a, b *SKPCA, Y mat.Matrix) {
	t.Helper()
	if a.Bytes() != b.Bytes() || a.Options() != b.Options() || math.Float64bits(a.ErrorBound()) != math.Float64bits(b.ErrorBound()) {
		t.Fatalf("%s: memory, options or error bound differ", what)
	}
	wiretest.SameModel(t, what, a, b, Y)
}

// TestSKPCAEncoding: an SKPCA encoded and decoded reads, grows and merges exactly as the
// original — fresh, with its sketch's buffer part full (not compressed), compressed by a
// read, centred and not, both feature forms, a buffer of its own, a kernel given by σ
// and by γ — and a decoded accumulator merged into a model equals the original merged,
// bit for bit.
func TestSKPCAEncoding(t *testing.T) {
	X, sigma := standardised(t, data.Magic().X, 400)
	Y := X.Slice(300, 400, 0, 10)
	for _, c := range []struct {
		k    kernel.RBF
		opts SKPCAOptions
	}{
		{kernel.RBF{Sigma: sigma}, SKPCAOptions{Features: 64, Sketch: 6, Seed: 3}},
		{kernel.RBF{Sigma: sigma}, SKPCAOptions{Features: 64, Sketch: 6, Seed: 3, Uncentred: true}},
		{kernel.RBF{Gamma: 1 / (2 * sigma * sigma)}, SKPCAOptions{Features: 33, Sketch: 4, Seed: 4, Form: features.RandomPhase, Buffer: 9}},
		{kernel.RBF{Sigma: sigma}, SKPCAOptions{Features: 33, Sketch: 4, Seed: 4, Form: features.RandomPhase, Buffer: 9, Uncentred: true}},
	} {
		s, err := NewSKPCA(c.k, 10, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		sameSKPCA(t, "fresh", s, decoded(t, s, new(SKPCA)), Y)
		testmat.AddRows(t, s, X, 0, 103) // a buffer part full: 103 = 2·6·8 + 7
		back := decoded(t, s, new(SKPCA))
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
		sameSKPCA(t, "read, then decoded", s, decoded(t, s, new(SKPCA)), Y)

		// A partial accumulator shipped as bytes and merged.
		part, err := NewSKPCA(c.k, 10, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := part.AddBatch(X.Slice(200, 300, 0, 10)); err != nil {
			t.Fatal(err)
		}
		shipped := decoded(t, part, new(SKPCA))
		other := decoded(t, s, new(SKPCA))
		if err := s.Merge(part); err != nil {
			t.Fatal(err)
		}
		if err := other.Merge(shipped); err != nil {
			t.Fatal(err)
		}
		sameSKPCA(t, "merged with a decoded accumulator", s, other, Y)
		if s.Kernel() != c.k || other.Kernel() != c.k {
			t.Errorf("kernels %v and %v, want %v", s.Kernel(), other.Kernel(), c.k)
		}
	}
}

// TestSKPCAEncodingRefused: every defect of an encoding is an ErrEncoding, of no other
// kind, and leaves the receiver unchanged, through UnmarshalBinary and
// UnmarshalBinaryFrom (wiretest.Refuses): damage the checksums catch, and under valid checksums version
// 1, kernels NewSKPCA refuses or that are not as they describe themselves, options
// NewSKPCA refuses, sizes beyond MaxDecodeFloats, sums no features give, a sketch of
// other sizes, and a sketch that cannot exist.
func TestSKPCAEncodingRefused(t *testing.T) {
	X, sigma := standardised(t, data.Yeast().X, 50)
	s, err := NewSKPCA(kernel.RBF{Sigma: sigma}, 8, SKPCAOptions{Features: 16, Sketch: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	_ = s.Values(nil) // compressed: the sketch holds ΣVᵀ and σ²
	good := wiretest.Marshal(t, s)
	body := wiretest.Body(good)
	// The body: the Spec ("rbf": 4 + 3 + 4·8 = 39 bytes; σ at 7, γ at 15, degree at 23,
	// c at 31), d at 39, D at 47, form at 55, seed at 59, ℓ at 67, buffer at 75,
	// Uncentred at 83, the 16 sums at 84, the sketch's frame at 212.
	const sums, fd = 84, 84 + 16*8
	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
	}
	putF := func(off int, v float64) func([]byte) []byte { return put64(off, math.Float64bits(v)) }
	// inner edits the sketch's body and frames it again.
	inner := func(edit func([]byte)) func([]byte) []byte {
		return func(b []byte) []byte {
			in := bytes.Clone(wiretest.Body(b[fd:]))
			edit(in)
			return append(b[:fd:fd], wire.Frame("IKPCAFDS", 2, in)...)
		}
	}
	fdPut := func(off int, v uint64) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint64(b[off:], v) }
	}
	// The sketch's body: ℓ, d, buffer, n, rows in use at 0, 8, 16, 24, 32; settled at
	// 40; ‖A‖², Δ at 41, 49; the rows from 57.
	for _, c := range []struct {
		what    string
		edit    func([]byte) []byte
		version uint32
		raw     []byte
	}{
		{"nothing", nil, 0, []byte{}},
		{"a flipped bit", nil, 0, func() []byte { b := bytes.Clone(good); b[len(b)-40] ^= 1; return b }()},
		{"truncated", nil, 0, good[:len(good)-8]},
		{"an extra byte", nil, 0, append(bytes.Clone(good), 1)},
		{"version 1", nil, 1, nil},
		{"version 3", nil, 3, nil},
		{"a Laplacian kernel", func(b []byte) []byte {
			return append(kernelwire.Append(nil, kernel.Spec{Name: "laplacian", Sigma: 1}), b[39:]...)
		}, 0, nil},
		{"a polynomial kernel", func(b []byte) []byte {
			return append(kernelwire.Append(nil, kernel.Spec{Name: "polynomial", Degree: 2, Gamma: 1}), b[39:]...)
		}, 0, nil},
		{"an unregistered kernel.Func", func(b []byte) []byte { return append(kernelwire.Append(nil, kernel.Spec{Name: "mine"}), b[39:]...) }, 0, nil},
		{"the kernel's name in capitals", func(b []byte) []byte { copy(b[4:], "RBF"); return b }, 0, nil},
		{"σ and γ", putF(15, 0.5), 0, nil},
		{"a degree for the RBF", put64(23, 2), 0, nil},
		{"σ = −1", putF(7, -1), 0, nil},
		{"a kernel name of 2³² − 1 bytes", put64(0, 0xffffffff), 0, nil},
		{"dimension 0", put64(39, 0), 0, nil},
		{"dimension 2⁴⁰", put64(39, 1<<40), 0, nil},
		{"2³⁰ features", put64(47, 1<<30), 0, nil},
		{"2⁶³ features", put64(47, 1<<63), 0, nil},
		{"form 5", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[55:], 5); return b }, 0, nil},
		{"ℓ = 4", put64(67, 4), 0, nil},
		{"ℓ = 2²⁴", put64(67, 1<<24), 0, nil},
		{"buffer 3", put64(75, 3), 0, nil},
		{"Uncentred 2", func(b []byte) []byte { b[83] = 2; return b }, 0, nil},
		{"uncentred, with the sums", func(b []byte) []byte { b[83] = 1; return b }, 0, nil},
		{"a NaN sum", putF(sums, math.NaN()), 0, nil},
		{"a sum beyond Cauchy–Schwarz", putF(sums, 1e3), 0, nil},
		{"the sums cut", func(b []byte) []byte { return append(b[:sums+8:sums+8], b[fd:]...) }, 0, nil},
		{"no sketch", func(b []byte) []byte { return b[:fd] }, 0, nil},
		{"sketch: ℓ = 0", inner(fdPut(0, 0)), 0, nil},
		{"sketch: another dimension", inner(fdPut(8, 17)), 0, nil},
		{"sketch: rows in use beyond ℓ, compressed", inner(fdPut(32, 4)), 0, nil},
		{"sketch: fewer rows seen than in use", inner(fdPut(24, 1)), 0, nil},
		{"sketch: 10⁶ rows seen", inner(fdPut(24, 1e6)), 0, nil}, // the sums then fit, the energy not
		{"sketch: settled 2", inner(func(b []byte) { b[40] = 2 }), 0, nil},
		{"sketch: ‖A‖² = NaN", inner(fdPut(41, math.Float64bits(math.NaN()))), 0, nil},
		{"sketch: ‖A‖² beyond 2n", inner(fdPut(41, math.Float64bits(1e4))), 0, nil},
		{"sketch: Δ = −1", inner(fdPut(49, math.Float64bits(-1))), 0, nil},
		{"sketch: a row entry scaled", inner(func(b []byte) {
			binary.LittleEndian.PutUint64(b[57:], math.Float64bits(2*math.Float64frombits(binary.LittleEndian.Uint64(b[57:]))))
		}), 0, nil},
		{"sketch: another magic", func(b []byte) []byte { b[fd] = 'X'; return b }, 0, nil},
	} {
		in := c.raw
		if in == nil {
			b := bytes.Clone(body)
			if c.edit != nil {
				b = c.edit(b)
			}
			v := uint32(skpcaVersion)
			if c.version != 0 {
				v = c.version
			}
			in = wire.Frame(skpcaMagic, v, b)
		}
		wiretest.Refuses(t, c.what, s, in, ErrEncoding)
	}
	var zero SKPCA
	if err := zero.UnmarshalBinary(wire.Frame(skpcaMagic, skpcaVersion, body)); err != nil {
		t.Errorf("the good body framed again: %v", err)
	}
	// The sketch decodes on its own, too.
	var f sketch.FD
	if err := f.UnmarshalBinary(wiretest.Body(good[fd:])); err != nil {
		t.Errorf("the sketch's own encoding: %v", err)
	}
}
