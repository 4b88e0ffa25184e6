package features

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestNewRFFErrors(t *testing.T) {
	refuses(t, "NewRFF", func(k kernel.RBF, d int, o RFFOptions) error { _, err := NewRFF(k, d, o); return err }, []badMap[RFFOptions]{
		{kernel.RBF{Sigma: 1}, 0, RFFOptions{Dim: 10}},
		{kernel.RBF{Sigma: 1}, 3, RFFOptions{Dim: 0}},
		{kernel.RBF{Sigma: 1}, 3, RFFOptions{Dim: 11}}, // odd, cos-sin
		{kernel.RBF{Sigma: 0}, 3, RFFOptions{Dim: 10}},
		{kernel.RBF{Sigma: math.NaN()}, 3, RFFOptions{Dim: 10}},
		{kernel.RBF{Sigma: math.Inf(1)}, 3, RFFOptions{Dim: 10}},
		{kernel.RBF{Sigma: 1}, 3, RFFOptions{Dim: 10, Form: 7}},
		{kernel.RBF{Sigma: 1e-310}, 3, RFFOptions{Dim: 10}}, // frequencies 1/σ overflow (FuzzLoadSKPCA)
		{kernel.RBF{Sigma: math.SmallestNonzeroFloat64}, 3, RFFOptions{Dim: 10, Form: RandomPhase}},
		{kernel.RBF{}, 3, RFFOptions{Dim: 10}},                       // neither σ nor γ
		{kernel.RBF{Sigma: 1, Gamma: 0.5}, 3, RFFOptions{Dim: 10}},   // both
		{kernel.RBF{Gamma: -1}, 3, RFFOptions{Dim: 10}},              // a negative γ
		{kernel.RBF{Gamma: math.MaxFloat64}, 3, RFFOptions{Dim: 10}}, // γ beyond 2¹⁰²²
	})
	// The extremes of kernel.Validate's range are accepted, and their frequencies —
	// up to about 6·√(2·2¹⁰²²) ≈ 8e154 — are finite.
	for _, k := range []kernel.RBF{{Sigma: 1.0547686614863e-154}, {Gamma: 0x1p1022}} {
		r, err := NewRFF(k, 3, RFFOptions{Dim: 10})
		if err != nil {
			t.Errorf("%v: %v", k, err)
			continue
		}
		for _, w := range r.omega.RawMatrix().Data {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				t.Errorf("%v: frequency %v", k, w)
			}
		}
	}
	if _, err := NewRFF(kernel.RBF{Sigma: 1}, 3, RFFOptions{Dim: 11, Form: RandomPhase}); err != nil {
		t.Errorf("odd dimension, random phase: %v", err)
	}
}

// TestSigmaAndGamma: every map of a kernel given by γ = 1/(2σ²) is the map of the same
// kernel given by σ, to rounding — the frequencies g/σ and g·√(2γ), the Taylor
// coefficients and prefactor, the quadrature nodes √2·t/σ and 2√γ·t differ by a few
// units in the last place, ωᵀx by about d·ε·|ω|·|x| (below 1e-14 here), and a feature
// at most as much — and each map reports the kernel as given.
func TestSigmaAndGamma(t *testing.T) {
	const d, sigma = 4, 1.3
	bySigma, byGamma := kernel.RBF{Sigma: sigma}, kernel.RBF{Gamma: 1 / (2 * sigma * sigma)}
	X := randomPoints(rand.New(rand.NewPCG(3, 4)), 20, d, 1)
	type feature interface {
		Transform(*mat.Dense, mat.Matrix) error
		Kernel() kernel.RBF
	}
	maps := map[string]func(k kernel.RBF) (feature, error){
		"RFF": func(k kernel.RBF) (feature, error) { return NewRFF(k, d, RFFOptions{Dim: 64, Seed: 1}) },
		"RFF, random phase": func(k kernel.RBF) (feature, error) {
			return NewRFF(k, d, RFFOptions{Dim: 63, Seed: 1, Form: RandomPhase})
		},
		"Taylor":     func(k kernel.RBF) (feature, error) { return NewTaylor(k, d, TaylorOptions{Degree: 3}) },
		"Quadrature": func(k kernel.RBF) (feature, error) { return NewQuadrature(k, d, QuadratureOptions{Dim: 64, Seed: 1}) },
	}
	for name, make := range maps {
		a, err := make(bySigma)
		if err != nil {
			t.Fatal(err)
		}
		b, err := make(byGamma)
		if err != nil {
			t.Fatal(err)
		}
		if a.Kernel() != bySigma || b.Kernel() != byGamma {
			t.Errorf("%s: kernels %v and %v, want them as given", name, a.Kernel(), b.Kernel())
		}
		var za, zb mat.Dense
		if err := a.Transform(&za, X); err != nil {
			t.Fatal(err)
		}
		if err := b.Transform(&zb, X); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(&za, &zb, 1e-13) {
			t.Errorf("%s: the features of σ and of γ differ beyond rounding", name)
		}
	}
}

func randomPoints(rng *rand.Rand, n, d int, scale float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, scale*rng.NormFloat64())
		}
	}
	return x
}

// TestMapMatchesTransform checks that one point at a time and a batch agree, that the
// cos-sin features have unit norm exactly, and that bad input is an error that leaves
// the destination alone.
func TestMapMatchesTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X := randomPoints(rng, 40, 5, 1)
	for _, form := range []Form{CosSin, RandomPhase} {
		r, err := NewRFF(kernel.RBF{Sigma: 1.3}, 5, RFFOptions{Dim: 64, Form: form, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		unit := 0.0 // random-phase features are not unit vectors
		if form == CosSin {
			unit = 1e-14
		}
		checkMap(t, form.String(), r, X, 1e-14, unit)
	}
}

func TestSeedReproducible(t *testing.T) {
	checkSeeds(t, []float64{0.3, -1.2, 2}, func(seed uint64) (featureMap, error) {
		return NewRFF(kernel.RBF{Sigma: 1}, 3, RFFOptions{Dim: 16, Seed: seed})
	})
}

// TestKernelConvergence measures the error of z(x)ᵀz(y) against the exact Gaussian
// kernel over fixed pairs of points, for D = 2⁶ … 2¹², averaged over seeds, and fits
// the rate: the error must fall as D^(−1/2) (slope −0.5 on log–log axes), and the
// estimate must be unbiased.
func TestKernelConvergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d, pairs, seeds = 4, 30, 12
	sigma := 1.5
	X := randomPoints(rng, 2*pairs, d, 1)
	for _, form := range []Form{CosSin, RandomPhase} {
		dims := []int{64, 256, 1024, 4096}
		rms := make([]float64, len(dims))
		var bias float64
		for k, D := range dims {
			var se float64
			for seed := range uint64(seeds) {
				r, err := NewRFF(kernel.RBF{Sigma: sigma}, d, RFFOptions{Dim: D, Form: form, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				var Z mat.Dense
				if err := r.Transform(&Z, X); err != nil {
					t.Fatal(err)
				}
				for p := range pairs {
					x, y := X.RawRowView(2*p), X.RawRowView(2*p+1)
					est := mat.Dot(Z.RowView(2*p), Z.RowView(2*p+1))
					e := est - r.Kernel().Eval(x, y)
					se += e * e
					if k == len(dims)-1 {
						bias += e
					}
				}
			}
			rms[k] = math.Sqrt(se / (pairs * seeds))
		}
		// Least-squares slope of log rms against log D.
		var sx, sy, sxx, sxy float64
		for k, D := range dims {
			lx, ly := math.Log(float64(D)), math.Log(rms[k])
			sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
		}
		n := float64(len(dims))
		slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
		t.Logf("%v: rms error %.4g at D=%d … %.4g at D=%d, slope %.3f", form, rms[0], dims[0], rms[3], dims[3], slope)
		if slope > -0.4 || slope < -0.6 {
			t.Errorf("%v: error falls as D^%.3f, want D^-0.5", form, slope)
		}
		// Unbiased: the mean error over pairs·seeds estimates is within 4 standard errors.
		mean := bias / (pairs * seeds)
		if se := rms[3] / math.Sqrt(pairs*seeds); math.Abs(mean) > 4*se {
			t.Errorf("%v: mean error %.3g exceeds 4 standard errors %.3g", form, mean, 4*se)
		}
	}
}

func TestFormString(t *testing.T) {
	if CosSin.String() != "cos-sin" || RandomPhase.String() != "random-phase" || Form(9).String() != "Form(9)" {
		t.Error("Form.String")
	}
}
