package kpca

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/native"
)

// TestBackendRoute checks that the model's hot paths — Add in every mode and method, at
// rank r and in a window, Remove, AddBatch, Transform, VectorsTo, Drift, Refresh and
// UnmarshalBinary (its check of the model against its points) — reach BLAS
// and LAPACK through package native only, never through gonum's blas64 and lapack64
// registries, so that a -tags openblas build runs them on OpenBLAS even without
// native.Use (which TestMain calls: the registries are replaced by recording
// implementations while the test runs). Not parallel.
func TestBackendRoute(t *testing.T) {
	x, k := sample(t, "yeast", 60)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		for _, opts := range append(slices.Clone(allOptions), Options{Components: 5, Rank: 5, Window: 30}, Options{Uncentred: true, Components: 5, Rank: 5}, Options{Components: All, Window: 30}) {
			md := fitModel(t, k, x.Slice(0, 20, 0, 8), opts)
			for i := 20; i < 40; i++ {
				if err := md.Add(x.RawRowView(i)); err != nil {
					t.Fatal(name(opts), err)
				}
			}
			{
				if err := md.Remove(7); err != nil {
					t.Fatal(name(opts), err)
				}
				md.ValueBounds(nil, nil)
				if err := md.AddBatch(x.Slice(40, 58, 0, 8)); err != nil { // refactorized when exact
					t.Fatal(name(opts), err)
				}
			}
			var dst, vecs mat.Dense
			if err := md.Transform(&dst, x.Slice(40, 60, 0, 8), 3); err != nil {
				t.Fatal(name(opts), err)
			}
			md.VectorsTo(&vecs)
			_ = md.Drift()
			if err := md.Refresh(); err != nil {
				t.Fatal(name(opts), err)
			}
			if _, err := decoded(encode(t, md)); err != nil {
				t.Fatal(name(opts), err)
			}
		}
	})
}
