package kpca

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

// TestSpectralNorm compares the Lanczos spectral norm with a full eigendecomposition on
// indefinite matrices, matrices whose largest eigenvalues are clustered, and tiny sizes.
func TestSpectralNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := map[string]*mat.SymDense{
		"random 200": testmat.RandomSym(200, rng),
		"random 1":   testmat.RandomSym(1, rng),
		"random 2":   testmat.RandomSym(2, rng),
		"zero":       mat.NewSymDense(5, nil),
		"negative":   func() *mat.SymDense { s, _ := testmat.SymWithSpectrum([]float64{-9, 1, 2, 3}, rng); return s }(),
		"clustered": func() *mat.SymDense {
			s, _ := testmat.SymWithSpectrum(append(make([]float64, 150), 5, 5-1e-9, 5-2e-9), rng)
			return s
		}(),
		"wide gap":   func() *mat.SymDense { s, _ := testmat.SymWithSpectrum([]float64{1e-12, 1e-10, 1, 1e6}, rng); return s }(),
		"psd ranked": func() *mat.SymDense { s, _ := testmat.SymWithSpectrum(geometric(300), rng); return s }(),
	}
	for name, a := range cases {
		vals, err := native.EigenSym(nil, nil, a)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for _, v := range vals {
			want = math.Max(want, math.Abs(v))
		}
		got := spectralNorm(a)
		if math.Abs(got-want) > 1e-12*math.Max(want, 1e-300) {
			t.Errorf("%s: spectral norm %.17g, want %.17g", name, got, want)
		}
	}
}

func geometric(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Pow(0.9, float64(i))
	}
	return v
}
