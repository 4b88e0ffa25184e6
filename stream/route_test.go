package stream

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that the models' hot paths — Add, AddBatch, Merge, Pass and
// Transform of SKPCA, RNCA (centred), KRQA and KHA — reach BLAS and LAPACK through
// package native only, never through gonum's blas64 and lapack64 registries, so that a
// -tags openblas build runs them on OpenBLAS without native.Use. Not parallel: the
// registries are replaced while it runs.
func TestBackendRoute(t *testing.T) {
	X := toy(60, 4)
	test := X.Slice(50, 60, 0, 2)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		var dst mat.Dense
		s, err := NewSKPCA(kernel.RBF{Sigma: 1}, 2, SKPCAOptions{Features: 32, Sketch: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		o, err := NewSKPCA(kernel.RBF{Sigma: 1}, 2, SKPCAOptions{Features: 32, Sketch: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		testmat.AddRows(t, s, X, 0, 25)
		if err := o.AddBatch(X.Slice(25, 50, 0, 2)); err != nil {
			t.Fatal(err)
		}
		if err := s.Merge(o); err != nil {
			t.Fatal(err)
		}
		if err := s.Transform(&dst, test, 2); err != nil {
			t.Fatal(err)
		}
		r, err := NewRNCA(kernel.RBF{Sigma: 1}, 2, RNCAOptions{Features: 32, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		testmat.AddRows(t, r, X, 0, 25)
		if err := r.AddBatch(X.Slice(25, 50, 0, 2)); err != nil {
			t.Fatal(err)
		}
		dst.Reset()
		if err := r.Transform(&dst, test, 2); err != nil {
			t.Fatal(err)
		}
		quadratic := kernel.Polynomial{Degree: 2, Gamma: 1}
		krqa, err := NewKRQA(quadratic, 2, KRQAOptions{Components: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		kha, err := NewKHA(quadratic, 2, KHAOptions{Components: 2, Rate: 0.05, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			if err := krqa.Add(X.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
			if err := kha.Add(X.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			if err := krqa.Pass(); err != nil {
				t.Fatal(err)
			}
			if err := kha.Pass(); err != nil {
				t.Fatal(err)
			}
		}
		dst.Reset()
		if err := krqa.Transform(&dst, test, 2); err != nil {
			t.Fatal(err)
		}
		dst.Reset()
		if err := kha.Transform(&dst, test, 2); err != nil {
			t.Fatal(err)
		}
	})
}
