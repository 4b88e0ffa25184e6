package stream

import (
	"bytes"
	"crypto/sha256"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/sketch"
)

// FuzzLoadSKPCA: no input makes SKPCA.UnmarshalBinary panic, and whatever it accepts is
// a usable model that encodes back to the very same bytes: finite, descending values, a
// point that transforms, an added point and a merge with a model of its options. Each
// input is tried as it is and sealed with a valid checksum; the seeds are the bodies of
// valid encodings (fresh, a buffer part full, compressed; both forms). The decoder's
// memory bound is lowered to 2²⁰ floats for the run, so that inputs asking for large
// models are refused cheaply instead of allocating 256 MiB each.
func FuzzLoadSKPCA(f *testing.F) {
	saved := sketch.MaxDecodeFloats
	sketch.MaxDecodeFloats = 1 << 20
	f.Cleanup(func() { sketch.MaxDecodeFloats = saved })
	X := toy(40, 3)
	for i, opts := range []SKPCAOptions{
		{Features: 8, Sigma: 1, Sketch: 2, Seed: 1},
		{Features: 5, Sigma: 0.5, Sketch: 3, Seed: 2, Form: features.RandomPhase, Buffer: 5},
	} {
		s, err := NewSKPCA(2, opts)
		if err != nil {
			f.Fatal(err)
		}
		for step := range 3 {
			b, err := s.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b[:len(b)-sha256.Size])
			if i == 0 && step == 1 {
				f.Add(b)
			}
			if err := s.AddBatch(X.Slice(0, 7+13*step, 0, 2)); err != nil {
				f.Fatal(err)
			}
			if step == 1 {
				_ = s.Values(nil)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, sealed(data)} {
			var s SKPCA
			if err := s.UnmarshalBinary(in); err != nil {
				if s.fd != nil {
					t.Fatal("a refused encoding changed the receiver")
				}
				continue
			}
			out, err := s.MarshalBinary()
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("a decoded model encodes to other bytes (%v)", err)
			}
			vals := s.Values(nil)
			for i, v := range vals {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || i > 0 && v > vals[i-1] {
					t.Fatalf("values %v", vals)
				}
			}
			x := make([]float64, s.Dim())
			if len(vals) > 0 {
				var sc mat.Dense
				if err := s.Transform(&sc, mat.NewDense(1, s.Dim(), x), len(vals)); err != nil {
					t.Fatalf("Transform: %v", err)
				}
			}
			if err := s.Add(x); err != nil {
				t.Fatalf("Add: %v", err)
			}
			o, err := NewSKPCA(s.Dim(), s.Options())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Merge(o); err != nil {
				t.Fatalf("Merge: %v", err)
			}
		}
	})
}
