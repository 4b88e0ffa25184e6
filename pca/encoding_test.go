package pca

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
)

// encodedModels returns models in several states: empty, one point, exact, weighted,
// windowed (full, its ring turned), rank r.
func encodedModels(t testing.TB) []*Model {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 80, 0, 10))
	var out []*Model
	for _, opts := range []Options{{Components: All}, {Components: 2, Window: 20}, {Components: 3, Rank: 5}} {
		empty := mustNew(t, 10, opts)
		one := mustNew(t, 10, opts)
		if err := one.Add(X.RawRowView(0)); err != nil {
			t.Fatal(err)
		}
		m := mustFit(t, X.Slice(0, 50, 0, 10), opts)
		for i := 50; i < 80; i++ {
			if err := m.AddWeighted(X.RawRowView(i), 1+float64(i%3)); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, empty, one, m)
	}
	return out
}

// TestEncoding: every model encodes and decodes bit for bit, into a zero Model and over
// another, by bytes and by stream, and the decoded model continues exactly as the
// original: the same encoding after the same further steps.
func TestEncoding(t *testing.T) {
	X := mat.DenseCopyOf(data.Magic().X.Slice(100, 140, 0, 10))
	for i, m := range encodedModels(t) {
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if n, err := m.MarshalBinaryTo(&buf); err != nil || n != len(b) || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("model %d: MarshalBinaryTo: %d bytes, %v", i, n, err)
		}
		var zero Model
		if err := zero.UnmarshalBinary(b); err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		over := mustFit(t, X, Options{Components: 1})
		buf.Write([]byte("trailing"))
		if n, err := over.UnmarshalBinaryFrom(&buf); err != nil || n != len(b) {
			t.Fatalf("model %d: UnmarshalBinaryFrom: %d of %d bytes, %v", i, n, len(b), err)
		}
		for _, c := range []*Model{&zero, over} {
			if c.Len() > 0 {
				wiretest.SameModel(t, "decoded", m, c, X)
			}
			for r := range 30 {
				x := X.RawRowView(r)
				if m.Len() > 0 && m.Options().Window == 0 && r%4 == 3 {
					if err := m.Remove(X.RawRowView(r - 1)); err != nil {
						t.Fatal(err)
					}
					if err := c.Remove(X.RawRowView(r - 1)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := m.Add(x); err != nil {
					t.Fatal(err)
				}
				if err := c.Add(x); err != nil {
					t.Fatal(err)
				}
			}
			b1, _ := m.MarshalBinary()
			b2, _ := c.MarshalBinary()
			if !bytes.Equal(b1, b2) {
				t.Errorf("model %d: the decoded model continued differently", i)
			}
			// Put m back for the next copy.
			if err := m.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestEncodingRefused: truncated, corrupted and forged encodings are ErrEncoding and
// leave the receiver as it was.
func TestEncodingRefused(t *testing.T) {
	models := encodedModels(t)
	m := models[2]
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	recv := mustFit(t, data.Magic().X.Slice(0, 20, 0, 10), Options{Components: 2})
	wiretest.Refuses(t, "empty", recv, nil, ErrEncoding)
	wiretest.Refuses(t, "truncated", recv, b[:len(b)-1], ErrEncoding)
	flipped := append([]byte(nil), b...)
	flipped[len(flipped)/2] ^= 1
	wiretest.Refuses(t, "corrupted", recv, flipped, ErrEncoding)
	body := wiretest.Body(b)
	forge := func(off int, v uint64) []byte {
		c := append([]byte(nil), body...)
		for i := range 8 {
			c[off+i] = byte(v >> (8 * i))
		}
		return wire.Frame(magic, version, c)
	}
	for name, in := range map[string][]byte{
		"dimension 0":         forge(0, 0),
		"dimension huge":      forge(0, 1<<40),
		"components 11":       forge(8, 11),
		"rank 10":             forge(16, 10),
		"window 1":            forge(24, 1),
		"points huge":         forge(32, 1<<63),
		"negative weight":     forge(40, math.Float64bits(-1)),
		"NaN trace":           forge(48, math.Float64bits(math.NaN())),
		"certificate":         forge(56, math.Float64bits(1)),
		"version 2":           wire.Frame(magic, 2, body),
		"bytes left over":     wire.Frame(magic, version, append(append([]byte(nil), body...), 0)),
		"no points, a weight": func() []byte { c := forge(32, 0); return c }(),
	} {
		wiretest.Refuses(t, name, recv, in, ErrEncoding)
	}
	for _, w := range []func() error{
		func() error { _, err := m.MarshalBinaryTo(nil); return err },
		func() error { _, err := recv.UnmarshalBinaryFrom(nil); return err },
	} {
		if msg := sentinels.Check(w(), ikpca.ErrArgument); msg != "" {
			t.Error(msg)
		}
	}
}

// FuzzUnmarshal: no input makes the decoder panic; a refused input is an ErrEncoding
// that leaves a zero Model zero; an accepted one is a model that encodes back to the
// same bytes, whose values are finite, non-negative and descending, and which takes a
// point and transforms one (or refuses with an error of one kind).
func FuzzUnmarshal(f *testing.F) {
	for _, m := range encodedModels(f) {
		b, err := m.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(wiretest.Body(b))
	}
	frame := func(data []byte) []byte { return wire.Frame(magic, version, data) }
	zero := func() *Model { return new(Model) }
	isZero := func(m *Model) bool { return m.d == 0 }
	wiretest.Fuzz(f, frame, zero, isZero, ErrEncoding, func(t *testing.T, m *Model) {
		v := m.Values(nil)
		for j, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || j > 0 && x > v[j-1] {
				t.Fatalf("values %v", v)
			}
		}
		x := make([]float64, m.Dim())
		x[0] = 1
		if err := m.Add(x); err != nil && sentinels.Check(err, nil) != "" {
			t.Fatalf("Add: %v", err)
		}
		if m.Components() > 0 {
			var d mat.Dense
			if err := m.Transform(&d, mat.NewDense(1, m.Dim(), x), 1); err != nil && sentinels.Check(err, nil) != "" {
				t.Fatalf("Transform: %v", err)
			}
		}
	})
}
