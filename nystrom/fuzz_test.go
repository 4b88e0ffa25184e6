package nystrom

import (
	"bytes"
	"crypto/sha256"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// FuzzLoadModel: no input makes UnmarshalBinary panic, and whatever it accepts is a
// usable model that encodes back to the very same bytes (the encoding is canonical):
// finite eigenvalues, a point that transforms, a merge with its own Empty. Each input
// is tried as it is and sealed with a valid checksum, so that the fuzzer reaches the
// checks behind the checksum; the seeds are the bodies of valid encodings (sealed, they
// decode) for every built-in kernel and strategy, with and without points.
func FuzzLoadModel(f *testing.F) {
	X := mat.NewDense(8, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1, -1, 0.5, 0.3, 0.3})
	kernels := []kernel.Kernel{kernel.RBF{Sigma: 1}, kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, kernel.Laplacian{Sigma: 2}, kernel.Linear{}, kernel.RBF{Gamma: 0.5}, kernel.Laplacian{Gamma: 0.5}}
	for i, k := range kernels {
		m, err := Fit(k, X, Options{Rank: 2 + i, Landmarks: Strategy(i % 3)})
		if err != nil {
			f.Fatal(err)
		}
		for _, mm := range []*Model{m, m.Empty()} {
			b, err := mm.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b[:len(b)-sha256.Size])
			if i == 0 {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(encodingMagic + "\x01\x00\x00\x00\x03\x00\x00\x00rbf"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, seal(data)} {
			var m Model
			if err := m.UnmarshalBinary(in); err != nil {
				if m.kern != nil || m.n != 0 {
					t.Fatal("a refused encoding changed the receiver")
				}
				continue
			}
			if m.Rank() < 1 || m.Dim() < 1 || m.Features() < 1 || m.Features() > m.Rank() {
				t.Fatalf("decoded %d landmarks of dimension %d, %d features", m.Rank(), m.Dim(), m.Features())
			}
			out, err := m.MarshalBinary()
			if err != nil {
				t.Fatalf("MarshalBinary of a decoded model: %v", err)
			}
			if !bytes.Equal(out, in) {
				t.Fatal("a decoded model encodes to other bytes")
			}
			values := m.Values(nil)
			for _, v := range values {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("eigenvalue %v", v)
				}
			}
			if k := len(values); k > 0 {
				var s mat.Dense
				_ = m.Transform(&s, mat.NewDense(1, m.Dim(), nil), k)
			}
			e := m.Empty()
			if err := e.Merge(&m); err != nil && e.Len() != 0 {
				t.Fatalf("a refused merge changed the model: %v", err)
			}
		}
	})
}
