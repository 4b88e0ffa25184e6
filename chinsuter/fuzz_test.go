package chinsuter

import (
	"encoding/binary"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// FuzzAdd streams arbitrary 2-D points (any float64 bits: NaN, infinities, huge and
// tiny values, repeats) in chunks to an exact and a compressed model. Nothing may
// panic; a rejected chunk must leave the model unchanged; an accepted one must leave
// finite, non-negative, descending eigenvalues and a bounded expansion.
func FuzzAdd(f *testing.F) {
	seed := func(vals ...float64) []byte {
		b := make([]byte, 0, 8*len(vals))
		for _, v := range vals {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	f.Add(seed(0, 0, 1, 1, 0.5, 0.2, -1, 0.3), uint8(1))
	f.Add(seed(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), uint8(2))
	f.Add(seed(1e300, 1, -1e300, 2, 1e-300, 3), uint8(3))
	f.Add(seed(math.NaN(), 0, 1, 1, math.Inf(1), 2, 3, 4), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		vals := make([]float64, 0, len(data)/8)
		for i := 0; i+8 <= len(data) && len(vals) < 2*60; i += 8 {
			vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
		}
		n := len(vals) / 2
		if n < 2 {
			return
		}
		X := mat.NewDense(n, 2, vals[:2*n])
		c := int(chunk%5) + 1
		for _, opts := range []Options{{}, {Components: 2, Compression: &Compression{PreImages: 3}}} {
			md, err := New(kernel.RBF{Sigma: 1}, X.Slice(0, 1, 0, 2), opts)
			if err != nil {
				continue // a non-finite first point
			}
			for i := 1; i < n; i += c {
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
