package kpca

import (
	"bytes"
	"crypto/sha256"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// FuzzLoad: no input makes Load panic, and whatever it accepts is a usable model —
// finite eigenvalues, a checkpoint that saves and loads back to the same values, points
// that transform. Each input is tried as it is and sealed with a valid checksum, so that
// the fuzzer reaches the checks behind the checksum; the seeds are the bodies of valid
// checkpoints (sealed, they load).
func FuzzLoad(f *testing.F) {
	x := mat.NewDense(6, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1})
	kernels := []kernel.Kernel{kernel.RBF{Sigma: 1}, kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, kernel.Laplacian{Sigma: 2}, kernel.Linear{}, kernel.RBF{Gamma: 0.5}, kernel.Laplacian{Gamma: 0.5}}
	for i, opts := range allOptions {
		md, err := New(kernels[i%len(kernels)], x.Slice(0, 3+i%3, 0, 2), opts)
		if err != nil {
			f.Fatal(err)
		}
		b := checkpoint(f, md)
		f.Add(b[:len(b)-sha256.Size])
		if i == 0 {
			f.Add(b)
		}
	}
	for _, opts := range []Options{{Rank: 2}, {Mode: Uncentred, Window: 6}, {Rank: 3, Window: 6}} {
		md, err := New(kernels[0], x.Slice(0, 5, 0, 2), opts)
		if err != nil {
			f.Fatal(err)
		}
		if err := md.Add(x.RawRowView(5)); err != nil {
			f.Fatal(err)
		}
		b := checkpoint(f, md)
		f.Add(b[:len(b)-sha256.Size])
	}
	f.Add([]byte(checkpointMagic + "\x01\x00\x00\x00\x02\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, seal(data)} {
			md, err := Load(bytes.NewReader(in), nil)
			if err != nil {
				if md != nil {
					t.Fatal("a model with an error")
				}
				continue
			}
			if md.Len() < 1 || md.Dim() < 1 {
				t.Fatalf("loaded a model of %d points of dimension %d", md.Len(), md.Dim())
			}
			values := md.Values(nil)
			for _, v := range values {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("eigenvalue %v", v)
				}
			}
			var buf bytes.Buffer
			if err := md.Save(&buf); err != nil {
				t.Fatalf("Save of a loaded model: %v", err)
			}
			back, err := Load(&buf, nil)
			if err != nil {
				t.Fatalf("Load of a saved model: %v", err)
			}
			if !slices.Equal(back.Values(nil), values) {
				t.Fatal("values changed in a save and load")
			}
			if k := md.Components(); k > 0 {
				var s mat.Dense
				p := make([]float64, md.Dim())
				_ = md.Transform(&s, mat.NewDense(1, md.Dim(), p), k)
			}
		}
	})
}
