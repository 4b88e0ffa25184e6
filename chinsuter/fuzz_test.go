package chinsuter

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// FuzzAdd streams arbitrary 2-D points (any float64 bits: NaN, infinities, huge and
// tiny values, repeats) in chunks to an exact and a compressed model started by Fit of
// the first point, and to an exact one started empty by New. Nothing may
// panic; a rejected chunk must leave the model unchanged; an accepted one must leave
// finite, non-negative, descending eigenvalues and a bounded expansion.
func FuzzAdd(f *testing.F) {
	seed := testmat.FuzzBytes
	f.Add(seed(0, 0, 1, 1, 0.5, 0.2, -1, 0.3), uint8(1))
	f.Add(seed(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), uint8(2))
	f.Add(seed(1e300, 1, -1e300, 2, 1e-300, 3), uint8(3))
	f.Add(seed(math.NaN(), 0, 1, 1, math.Inf(1), 2, 3, 4), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		vals := testmat.FuzzFloats(data, 2*60)
		n := len(vals) / 2
		if n < 2 {
			return
		}
		X := mat.NewDense(n, 2, vals[:2*n])
		c := int(chunk%5) + 1
		for q, opts := range []Options{{}, {Components: 2, Compression: &Compression{PreImages: 3}}, {}} {
			// The first point by Fit, or (the last options) every point added to New's
			// empty model.
			first := 1
			md, err := Fit(kernel.RBF{Sigma: 1}, X.Slice(0, 1, 0, 2), opts)
			if q == 2 {
				first = 0
				md, err = New(kernel.RBF{Sigma: 1}, 2, opts)
			}
			if err != nil {
				continue // a non-finite first point
			}
			for i := first; i < n; i += c {
				before := snap(md)
				if err := md.AddBatch(X.Slice(i, min(i+c, n), 0, 2)); err != nil {
					if !sameSnapshot(before, snap(md)) {
						t.Fatalf("a rejected chunk changed the model: %v", err)
					}
					continue
				}
				v := md.Values(nil)
				for j, x := range v {
					if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || (j > 0 && x > v[j-1]*(1+1e-12)) {
						t.Fatalf("eigenvalues %v", v)
					}
				}
				if opts.Compression != nil && md.Expansion() > 9 {
					t.Fatalf("expansion %d > 9", md.Expansion())
				}
			}
		}
	})
}

// FuzzLoadModel: no input makes UnmarshalBinary or UnmarshalBinaryFrom panic, a refused
// input is an ErrEncoding that leaves the receiver as it was, and whatever is accepted
// is a usable model that encodes back to the very same bytes (the encoding is
// canonical; wiretest.Decoded, which also requires the same verdict from a stream):
// finite, descending eigenvalues, a point that transforms, a point that is added or
// refused without changing the model. Each input is tried as it is and sealed
// (wiretest.Reseal: its frame's length and a valid checksum), so that the fuzzer reaches
// the checks behind the frame; the seeds are the bodies of valid encodings of every form
// and kernel (encodingModels), with and without points.
func FuzzLoadModel(f *testing.F) {
	if err := kernel.Register(encodingKernel); err != nil {
		f.Fatal(err)
	}
	for _, md := range encodingModels(f) {
		b := wiretest.Marshal(f, md)
		f.Add(wiretest.Unsealed(b))
	}
	f.Add([]byte(encodingMagic + "\x02\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00rbf"))
	wiretest.Fuzz(f, wiretest.Reseal, func() *Model { return new(Model) },
		func(m *Model) bool { return m.kern == nil && m.n == 0 && m.d == 0 }, ErrEncoding,
		func(t *testing.T, m *Model) {
			values := m.Values(nil)
			for j, v := range values {
				if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || j > 0 && v > values[j-1] {
					t.Fatalf("eigenvalues %v", values)
				}
			}
			if k := len(values); k > 0 {
				var sc mat.Dense
				_ = m.Transform(&sc, mat.NewDense(1, m.Dim(), nil), k)
			}
			if m.Dim() <= 64 {
				before := snap(m)
				if err := m.Add(make([]float64, m.Dim())); err != nil && !sameSnapshot(before, snap(m)) {
					t.Fatalf("a refused point changed the model: %v", err)
				}
			}
		})
}
