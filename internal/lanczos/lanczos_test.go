package lanczos

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/native"
)

// TestSpectralNorm compares the Lanczos spectral norm with a full eigendecomposition on
// indefinite matrices, matrices whose largest eigenvalues are clustered, and tiny sizes.
func TestSpectralNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := map[string]*mat.SymDense{
		"random 200": synth.RandomSym(200, rng),
		"random 1":   synth.RandomSym(1, rng),
		"random 2":   synth.RandomSym(2, rng),
		"zero":       mat.NewSymDense(5, nil),
		"negative":   func() *mat.SymDense { s, _ := synth.SymWithSpectrum([]float64{-9, 1, 2, 3}, rng); return s }(),
		"clustered": func() *mat.SymDense {
			s, _ := synth.SymWithSpectrum(append(make([]float64, 150), 5, 5-1e-9, 5-2e-9), rng)
			return s
		}(),
		"wide gap":   func() *mat.SymDense { s, _ := synth.SymWithSpectrum([]float64{1e-12, 1e-10, 1, 1e6}, rng); return s }(),
		"psd ranked": func() *mat.SymDense { s, _ := synth.SymWithSpectrum(geometric(300), rng); return s }(),
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
		got := SymNorm(a)
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

// TestOperator checks Norm on an operator never formed: A = G − Z·Zᵀ applied as
// G·x − Z·(Zᵀx), against the dense difference.
func TestOperator(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, k := 120, 7
	g := synth.RandomSym(n, rng)
	z := synth.Normal(n, k, rng)
	dense := mat.NewSymDense(n, nil)
	dense.SymOuterK(-1, z)
	dense.AddSym(dense, g)
	want := SymNorm(dense)
	tmp := make([]float64, k)
	got := Norm(n, func(dst, x []float64) {
		xv := mat.NewVecDense(n, x)
		dv := mat.NewVecDense(n, dst)
		dv.MulVec(g, xv)
		tv := mat.NewVecDense(k, tmp)
		tv.MulVec(z.T(), xv)
		var zt mat.VecDense
		zt.MulVec(z, tv)
		dv.SubVec(dv, &zt)
	})
	if math.Abs(got-want) > 1e-12*want {
		t.Errorf("operator norm %.17g, dense %.17g", got, want)
	}
	if Norm(0, nil) != 0 {
		t.Error("empty operator")
	}
}
