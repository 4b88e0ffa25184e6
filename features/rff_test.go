package features

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNewRFFErrors(t *testing.T) {
	for _, c := range []struct {
		d    int
		opts RFFOptions
	}{
		{0, RFFOptions{Dim: 10, Sigma: 1}},
		{3, RFFOptions{Dim: 0, Sigma: 1}},
		{3, RFFOptions{Dim: 11, Sigma: 1}}, // odd, cos-sin
		{3, RFFOptions{Dim: 10, Sigma: 0}},
		{3, RFFOptions{Dim: 10, Sigma: math.NaN()}},
		{3, RFFOptions{Dim: 10, Sigma: math.Inf(1)}},
		{3, RFFOptions{Dim: 10, Sigma: 1, Form: 7}},
		{3, RFFOptions{Dim: 10, Sigma: 1e-310}}, // frequencies 1/σ overflow (FuzzLoadSKPCA)
		{3, RFFOptions{Dim: 10, Sigma: math.SmallestNonzeroFloat64, Form: RandomPhase}},
	} {
		if _, err := NewRFF(c.d, c.opts); !errors.Is(err, ErrArgument) {
			t.Errorf("NewRFF(%d, %+v): %v, want ErrArgument", c.d, c.opts, err)
		}
	}
	// The smallest bandwidths that keep the frequencies finite are accepted.
	if _, err := NewRFF(3, RFFOptions{Dim: 10, Sigma: 1e-300}); err != nil {
		t.Errorf("σ = 1e-300: %v", err)
	}
	if _, err := NewRFF(3, RFFOptions{Dim: 11, Sigma: 1, Form: RandomPhase}); err != nil {
		t.Errorf("odd dimension, random phase: %v", err)
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
		r, err := NewRFF(5, RFFOptions{Dim: 64, Sigma: 1.3, Form: form, Seed: 9})
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
		return NewRFF(3, RFFOptions{Dim: 16, Sigma: 1, Seed: seed})
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
				r, err := NewRFF(d, RFFOptions{Dim: D, Sigma: sigma, Form: form, Seed: seed})
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
					e := est - r.Kernel(x, y)
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
