package nystrom

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// fuzzKernel is a kernel.Func registered for FuzzLoadModel, so that the decoding of a
// Func's name through the kernel registry is fuzzed too.
var fuzzKernel = kernel.Func{Name: "nystrom-fuzz", F: func(x, y []float64) float64 { return kernel.RBF{Sigma: 1}.Eval(x, y) }}

// FuzzLoadModel: no input makes UnmarshalBinary or UnmarshalBinaryFrom panic, a refused
// input is an ErrEncoding that leaves the receiver as it was, and whatever is accepted
// is a usable model that encodes back to the very same bytes (the encoding is
// canonical; wiretest.Decoded, which also requires the same verdict from a stream):
// finite eigenvalues, a point that transforms, a merge with its own Empty. Each input is
// tried as it is and sealed (wiretest.Reseal: its frame's length and a valid checksum), so
// that the fuzzer reaches the checks behind the frame; the seeds are the bodies of valid
// encodings for every built-in kernel, a registered Func, every strategy, centred and
// uncentred, with and without points.
func FuzzLoadModel(f *testing.F) {
	if err := kernel.Register(fuzzKernel); err != nil {
		f.Fatal(err)
	}
	X := mat.NewDense(8, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1, -1, 0.5, 0.3, 0.3})
	kernels := []kernel.Kernel{kernel.RBF{Sigma: 1}, kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, kernel.Laplacian{Sigma: 2},
		kernel.Linear{}, kernel.RBF{Gamma: 0.5}, kernel.Laplacian{Gamma: 0.5}, kernel.Sigmoid{Gamma: 0.5, Coef0: -1}, kernel.Cosine{}, fuzzKernel}
	for i, k := range kernels {
		m, err := Fit(k, X, Options{Landmarks: 2 + i%6, Strategy: Strategy(i % 3), Uncentred: i%2 == 1})
		if err != nil {
			f.Fatal(err)
		}
		for _, mm := range []*Model{m, m.Empty()} {
			b := wiretest.Marshal(f, mm)
			f.Add(wiretest.Unsealed(b))
			if i == 0 {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(encodingMagic + "\x03\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00rbf"))
	wiretest.Fuzz(f, wiretest.Reseal, func() *Model { return new(Model) },
		func(m *Model) bool { return m.kern == nil && m.n == 0 && m.r == 0 }, ErrEncoding,
		func(t *testing.T, m *Model) {
			if r := m.Options().Landmarks; r < 1 || m.Dim() < 1 || m.Features() < 1 || m.Features() > r {
				t.Fatalf("decoded %d landmarks of dimension %d, %d features", r, m.Dim(), m.Features())
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
			if err := e.Merge(m); err != nil && e.Len() != 0 {
				t.Fatalf("a refused merge changed the model: %v", err)
			}
		})
}
