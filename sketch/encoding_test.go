package sketch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
)

// TestEncoding: a sketch encoded and decoded — empty, with a buffer part full, and
// compressed — has the same state and encodes to the same bytes, reads the same
// values, error bound and vectors bit for bit, and grows and merges the same; bytes
// that are not a sketch are an ErrEncoding that leaves the receiver as it was.
func TestEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	rows := synth.Normal(57, 12, rng)
	f, err := New(4, 12, Options{Buffer: 7})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, a *FD) *FD {
		t.Helper()
		b := wiretest.Marshal(t, a)
		var back FD
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if again, _ := back.MarshalBinary(); !bytes.Equal(again, b) || back.Buffer() != a.Buffer() || back.Bytes() != a.Bytes() {
			t.Fatalf("%s: decoded to another sketch", what)
		}
		return &back
	}
	check("empty", f)
	if err := f.UpdateRows(rows.Slice(0, 33, 0, 12)); err != nil { // 33 = 4 compressions + 5 rows
		t.Fatal(err)
	}
	back := check("buffered", f)
	for _, g := range []*FD{f, back} {
		if err := g.UpdateRows(rows.Slice(33, 45, 0, 12)); err != nil {
			t.Fatal(err)
		}
	}
	same := func(what string, a, b *FD) {
		t.Helper()
		va, err := a.Values(nil)
		if err != nil {
			t.Fatal(err)
		}
		vb, _ := b.Values(nil)
		var wa, wb mat.Dense
		if err := a.VectorsTo(&wa); err != nil {
			t.Fatal(err)
		}
		if err := b.VectorsTo(&wb); err != nil {
			t.Fatal(err)
		}
		if len(va) != len(vb) || a.Count() != b.Count() || math.Float64bits(a.ErrorBound()) != math.Float64bits(b.ErrorBound()) ||
			!mat.Equal(&wa, &wb) {
			t.Fatalf("%s: the sketches differ", what)
		}
		for i := range va {
			if math.Float64bits(va[i]) != math.Float64bits(vb[i]) {
				t.Fatalf("%s: σ²%d = %v and %v", what, i, va[i], vb[i])
			}
		}
	}
	same("grown after decoding", f, back)
	compressed := check("compressed", f) // Values compressed both
	h, _ := New(4, 12, Options{Buffer: 7})
	if err := h.UpdateRows(rows.Slice(45, 57, 0, 12)); err != nil {
		t.Fatal(err)
	}
	if err := f.Merge(h); err != nil {
		t.Fatal(err)
	}
	if err := compressed.Merge(check("merged in", h)); err != nil {
		t.Fatal(err)
	}
	same("merged", f, compressed)

	good, _ := f.MarshalBinary()
	for _, bad := range [][]byte{nil, good[:len(good)-1], append(bytes.Clone(good), 0), []byte("IKPCAFDS")} {
		before, _ := f.MarshalBinary()
		if err := f.UnmarshalBinary(bad); !errors.Is(err, ErrEncoding) {
			t.Errorf("%d bytes: %v, want ErrEncoding", len(bad), err)
		}
		if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) {
			t.Error("a refused encoding changed the sketch")
		}
	}
}

// TestEncodingStream: MarshalBinaryTo writes MarshalBinary's bytes, UnmarshalBinaryFrom
// reads exactly one encoding from a stream of several, and their nil writer and reader
// are ErrArgument; an encoding cut short in a stream is an ErrEncoding, and a reader's
// own error comes back.
func TestEncodingStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, _ := New(3, 5, Options{})
	b, _ := New(2, 5, Options{Buffer: 5})
	if err := a.UpdateRows(synth.Normal(17, 5, rng)); err != nil {
		t.Fatal(err)
	}
	if err := b.UpdateRows(synth.Normal(4, 5, rng)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, f := range []*FD{a, b} {
		want, _ := f.MarshalBinary()
		start := buf.Len()
		if n, err := f.MarshalBinaryTo(&buf); err != nil || n != len(want) || !bytes.Equal(buf.Bytes()[start:], want) {
			t.Fatalf("MarshalBinaryTo: %d bytes, %v, or not MarshalBinary's", n, err)
		}
	}
	all := bytes.Clone(buf.Bytes())
	for _, want := range []*FD{a, b} {
		var got FD
		wb, _ := want.MarshalBinary()
		n, err := got.UnmarshalBinaryFrom(&buf)
		if err != nil || n != len(wb) {
			t.Fatalf("UnmarshalBinaryFrom: %d bytes, %v; want %d", n, err, len(wb))
		}
		if gb, _ := got.MarshalBinary(); !bytes.Equal(gb, wb) {
			t.Fatal("UnmarshalBinaryFrom: another sketch")
		}
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes left", buf.Len())
	}
	var got FD
	if _, err := got.UnmarshalBinaryFrom(bytes.NewReader(all[:len(all)/3])); !errors.Is(err, ErrEncoding) || !errors.Is(err, ikpca.ErrEncoding) {
		t.Errorf("a stream cut short: %v", err)
	}
	boom := errors.New("read failed")
	if _, err := got.UnmarshalBinaryFrom(io.MultiReader(bytes.NewReader(all[:30]), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v", err)
	}
	if _, err := a.MarshalBinaryTo(nil); !errors.Is(err, ikpca.ErrArgument) {
		t.Errorf("MarshalBinaryTo(nil): %v", err)
	}
	if _, err := got.UnmarshalBinaryFrom(nil); !errors.Is(err, ikpca.ErrArgument) {
		t.Errorf("UnmarshalBinaryFrom(nil): %v", err)
	}
	if _, err := a.MarshalBinaryTo((*bytes.Buffer)(nil)); !errors.Is(err, ikpca.ErrArgument) {
		t.Errorf("MarshalBinaryTo of a nil *bytes.Buffer: %v", err)
	}
	if _, err := got.UnmarshalBinaryFrom((*bytes.Reader)(nil)); !errors.Is(err, ikpca.ErrArgument) {
		t.Errorf("UnmarshalBinaryFrom of a nil *bytes.Reader: %v", err)
	}
	if got.b != nil {
		t.Error("refused encodings changed the receiver")
	}
}

// TestEncodingRefused: under a valid frame, every field that describes a sketch that
// cannot exist is an ErrEncoding that leaves the receiver as it was: version 1, sizes
// out of range, more rows in use than possible, the settled flag, non-finite or
// negative totals, totals that break (ℓ+1)·Δ + ‖B‖_F² ≤ ‖A‖_F², rows without rows seen,
// compressed rows that are not their σᵢ², and the body's length.
func TestEncodingRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	f, _ := New(3, 4, Options{})
	if err := f.UpdateRows(synth.Normal(20, 4, rng)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Values(nil); err != nil { // compressed: rows ΣVᵀ and σ²
		t.Fatal(err)
	}
	good, _ := f.MarshalBinary()
	body := good[wire.PrefixSize : len(good)-32]
	u64 := func(off int, v uint64) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint64(b[off:], v) }
	}
	f64 := func(off int, v float64) func([]byte) { return u64(off, math.Float64bits(v)) }
	// ℓ, d, buffer, n, rows in use at 0, 8, 16, 24, 32; settled at 40; ‖A‖², Δ at 41, 49;
	// the rows from 57.
	for _, c := range []struct {
		what    string
		version uint32
		edit    func([]byte)
		cut     int
	}{
		{"version 1", 1, nil, 0},
		{"ℓ = 0", 2, u64(0, 0), 0},
		{"d = 0", 2, u64(8, 0), 0},
		{"buffer ℓ", 2, u64(16, 3), 0},
		{"buffer 2⁶³", 2, u64(16, 1<<63), 0},
		{"no rows seen", 2, u64(24, 0), 0},
		{"more rows in use than ℓ, compressed", 2, u64(32, 4), 0},
		{"settled 2", 2, func(b []byte) { b[40] = 2 }, 0},
		{"‖A‖² = +Inf", 2, f64(41, math.Inf(1)), 0},
		{"‖A‖² below the rows'", 2, f64(41, 1e-3), 0},
		{"Δ < 0", 2, f64(49, -1), 0},
		{"Δ beyond ‖A‖²/(ℓ+1)", 2, f64(49, 1e6), 0},
		{"a NaN row entry", 2, f64(57, math.NaN()), 0},
		{"a row entry doubled", 2, func(b []byte) {
			binary.LittleEndian.PutUint64(b[57:], math.Float64bits(2*math.Float64frombits(binary.LittleEndian.Uint64(b[57:]))))
		}, 0},
		{"a body without its last σ²", 2, nil, 8},
		{"a body shorter than the sizes", 2, nil, len(body) - 20},
	} {
		b := bytes.Clone(body)
		if c.edit != nil {
			c.edit(b)
		}
		in := wire.Frame(fdMagic, c.version, b[:len(b)-c.cut])
		before, _ := f.MarshalBinary()
		if err := f.UnmarshalBinary(in); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", c.what, err)
		}
		if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) {
			t.Errorf("%s: the receiver changed", c.what)
		}
	}
	if err := f.UnmarshalBinary(wire.Frame(fdMagic, fdVersion, body)); err != nil {
		t.Errorf("the body framed again: %v", err)
	}
	var zero FD
	if _, err := zero.MarshalBinary(); !errors.Is(err, ErrArgument) {
		t.Errorf("MarshalBinary of a zero FD: %v", err)
	}
}

// FuzzUnmarshalFD: no bytes make UnmarshalBinary panic, and whatever it accepts is a
// usable sketch that encodes back to the same bytes: its values finite, positive and
// descending, its error bound finite, and a row, a merge and a read after it work. Each
// input is tried as it is and framed with a valid checksum (so that the checks after
// the frame's are reached); the seeds are valid encodings — empty, a buffer part full,
// compressed, merged. The decoder's memory bound is lowered to 2²⁰ floats for the run.
func FuzzUnmarshalFD(f *testing.F) {
	saved := MaxDecodeFloats
	MaxDecodeFloats = 1 << 20
	f.Cleanup(func() { MaxDecodeFloats = saved })
	rng := rand.New(rand.NewPCG(1, 2))
	g, _ := New(2, 3, Options{Buffer: 5})
	h, _ := New(2, 3, Options{Buffer: 5})
	_ = h.UpdateRows(synth.Normal(6, 3, rng))
	for step := range 4 {
		b, _ := g.MarshalBinary()
		f.Add(b)
		f.Add(b[wire.PrefixSize : len(b)-32])
		switch step {
		case 0:
			_ = g.UpdateRows(synth.Normal(7, 3, rng))
		case 1:
			_, _ = g.Values(nil)
		case 2:
			_ = g.Merge(h)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, wire.Frame(fdMagic, fdVersion, data)} {
			var s FD
			if err := s.UnmarshalBinary(in); err != nil {
				if !errors.Is(err, ErrEncoding) || s.b != nil {
					t.Fatalf("refused with %v, or the receiver changed", err)
				}
				continue
			}
			out, err := s.MarshalBinary()
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("a decoded sketch encodes to other bytes (%v)", err)
			}
			vals, err := s.Values(nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if !(v > 0) || math.IsInf(v, 0) || i > 0 && v > vals[i-1] {
					t.Fatalf("values %v", vals)
				}
			}
			if e := s.ErrorBound(); math.IsNaN(e) || math.IsInf(e, 0) || e < 0 {
				t.Fatalf("error bound %v", e)
			}
			if err := s.Update(make([]float64, s.Dim())); err != nil {
				t.Fatalf("Update: %v", err)
			}
			o, err := New(s.Ell(), s.Dim(), Options{Buffer: s.Buffer()})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Merge(o); err != nil {
				t.Fatalf("Merge: %v", err)
			}
			var B mat.Dense
			if err := s.Sketch(&B); err != nil {
				t.Fatalf("Sketch: %v", err)
			}
		}
	})
}
