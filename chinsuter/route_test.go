package chinsuter

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that the exact and the compressed model (Fit, New, Add,
// AddBatch, Transform, Orthogonality, the encoding and its checks) reach BLAS and LAPACK through package native only, never through gonum's
// blas64 and lapack64 registries, so that a -tags openblas build runs them on OpenBLAS
// without native.Use. Not parallel: the registries are replaced while it runs.
func TestBackendRoute(t *testing.T) {
	T := toy(120, 12)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		for _, opts := range []Options{{}, {Components: 4, Compression: &Compression{PreImages: 6}}} {
			md, err := Fit(kernel.RBF{Sigma: 1}, T.Slice(0, 20, 0, 2), opts)
			if err != nil {
				t.Fatal(err)
			}
			testmat.AddRows(t, md, T, 20, 30)
			for i := 30; i < 110; i += 20 {
				if err := md.AddBatch(T.Slice(i, i+20, 0, 2)); err != nil {
					t.Fatal(err)
				}
			}
			var dst mat.Dense
			if err := md.Transform(&dst, T.Slice(110, 120, 0, 2), 2); err != nil {
				t.Fatal(err)
			}
			if _, err := md.Orthogonality(); err != nil {
				t.Fatal(err)
			}
			b := wiretest.Marshal(t, md)
			var back Model
			if err := back.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			empty, err := New(kernel.RBF{Sigma: 1}, 2, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := empty.AddBatch(T.Slice(0, 20, 0, 2)); err != nil {
				t.Fatal(err)
			}
		}
	})
}
