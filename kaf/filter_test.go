package kaf

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// linearProblem returns features and targets d = φᵀw* + noise.
func linearProblem(n, m int, noise float64, seed uint64) ([][]float64, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	w := make([]float64, m)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	phis := make([][]float64, n)
	ds := make([]float64, n)
	for k := range n {
		phi := make([]float64, m)
		for i := range phi {
			phi[i] = rng.NormFloat64() / math.Sqrt(float64(m))
		}
		phis[k] = phi
		ds[k] = vec.Dot(phi, w) + noise*rng.NormFloat64()
	}
	return phis, ds, w
}

func distance(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// TestFiltersConverge: every filter finds the weights of a noiseless linear problem.
func TestFiltersConverge(t *testing.T) {
	const m = 12
	phis, ds, w := linearProblem(4000, m, 0, 1)
	lms, _ := NewLMS(m, 0.5)
	rls, _ := NewRLS(m, RLSOptions{Delta: 1e-3})
	ex, _ := NewExRLS(m, RLSOptions{Lambda: 1e-3, Delta: 1e-3})
	for name, f := range map[string]Filter{"LMS": lms, "RLS": rls, "ExRLS": ex} {
		for k := range phis {
			if _, err := f.Update(phis[k], ds[k]); err != nil {
				t.Fatal(err)
			}
		}
		got := f.Weights(nil)
		tol := 1e-5 // the regulariser δ‖w‖² biases RLS by about δ/n
		if name == "LMS" {
			tol = 1e-3
		}
		if e := distance(got, w); e > tol*math.Sqrt(m) {
			t.Errorf("%s: ‖w − w*‖ = %g", name, e)
		}
	}
}

// TestRLSIsLeastSquares: after n samples, RLS (λ = 1) equals the regularised
// least-squares solution (ΦᵀΦ + δI)⁻¹Φᵀd, computed independently; with forgetting the
// weighted one.
func TestRLSIsLeastSquares(t *testing.T) {
	const m, n = 6, 40
	phis, ds, _ := linearProblem(n, m, 0.1, 2)
	for _, lambda := range []float64{1, 0.95} {
		delta := 0.3
		f, _ := NewRLS(m, RLSOptions{Lambda: lambda, Delta: delta})
		for k := range phis {
			_, _ = f.Update(phis[k], ds[k])
		}
		a := mat.NewDense(m, m, nil)
		b := mat.NewVecDense(m, nil)
		for k := range phis {
			wk := math.Pow(lambda, float64(n-1-k))
			p := mat.NewVecDense(m, phis[k])
			var outer mat.Dense
			outer.Outer(wk, p, p)
			a.Add(a, &outer)
			b.AddScaledVec(b, wk*ds[k], p)
		}
		reg := delta * math.Pow(lambda, n)
		for i := range m {
			a.Set(i, i, a.At(i, i)+reg)
		}
		var want mat.VecDense
		if err := want.SolveVec(a, b); err != nil {
			t.Fatal(err)
		}
		got := f.Weights(nil)
		for i := range m {
			if math.Abs(got[i]-want.AtVec(i)) > 1e-10*(1+math.Abs(want.AtVec(i))) {
				t.Errorf("λ=%g: w[%d] = %.15g, least squares %.15g", lambda, i, got[i], want.AtVec(i))
			}
		}
	}
}

// TestExRLSTracks: a drifting target w(i+1) = α·w(i) is tracked by ExRLS with the right
// α and not by RLS without forgetting.
func TestExRLSTracks(t *testing.T) {
	const m = 4
	rng := rand.New(rand.NewPCG(5, 5))
	w := []float64{1, -1, 0.5, 2}
	alpha := 0.999
	ex, _ := NewExRLS(m, RLSOptions{Alpha: alpha, Q: 1e-6, Lambda: 1e-2})
	rls, _ := NewRLS(m, RLSOptions{})
	var exErr, rlsErr float64
	for k := range 3000 {
		phi := make([]float64, m)
		for i := range phi {
			phi[i] = rng.NormFloat64()
		}
		d := vec.Dot(phi, w)
		e1, _ := ex.Update(phi, d)
		e2, _ := rls.Update(phi, d)
		if k >= 2000 {
			exErr += e1 * e1
			rlsErr += e2 * e2
		}
		for i := range w {
			w[i] *= alpha
		}
	}
	t.Logf("MSE over the last 1000 samples: ExRLS %.3g, RLS %.3g", exErr/1000, rlsErr/1000)
	if exErr > rlsErr/10 {
		t.Errorf("ExRLS does not track the drift: MSE %g against RLS %g", exErr/1000, rlsErr/1000)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := NewLMS(0, 0.1); err == nil {
		t.Error("LMS with 0 features")
	}
	if _, err := NewLMS(3, -1); err == nil {
		t.Error("LMS with a negative step")
	}
	for _, m := range []int{100_000_000_000_000, math.MaxInt} {
		if _, err := NewLMS(m, 0.1); !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("LMS with %d features: %v, want an ikpca.ErrArgument", m, err)
		}
	}
	for _, m := range []int{100_000_000_000_000, math.MaxInt} {
		if _, err := NewRLS(m, RLSOptions{}); err == nil {
			t.Errorf("RLS with %d features: no error", m)
		}
	}
	for _, o := range []RLSOptions{{Lambda: 1.5}, {Delta: -1}, {Q: -1}, {Lambda: math.NaN()}} {
		if _, err := NewRLS(3, o); err == nil {
			t.Errorf("RLS %+v: no error", o)
		}
	}
	lms, _ := NewLMS(3, 0.1)
	rls, _ := NewRLS(3, RLSOptions{})
	for _, f := range []Filter{lms, rls} {
		before := f.Weights(nil)
		for _, c := range []struct {
			phi []float64
			d   float64
		}{{[]float64{1, 2}, 0}, {[]float64{1, math.NaN(), 0}, 1}, {[]float64{1, 2, 3}, math.Inf(1)}} {
			if _, err := f.Update(c.phi, c.d); err == nil {
				t.Errorf("%T Update(%v, %v): no error", f, c.phi, c.d)
			}
		}
		if distance(before, f.Weights(nil)) != 0 {
			t.Errorf("%T: bad input changed the weights", f)
		}
		if f.SetWeights([]float64{1}) == nil || f.SetWeights([]float64{1, math.NaN(), 0}) == nil {
			t.Errorf("%T: bad SetWeights accepted", f)
		}
	}
	if _, err := NewKLMS(kernel.RBF{Sigma: 1}, 2, 0.1, -1); err == nil {
		t.Error("KLMS with a negative quantisation")
	}
}

func TestNoAllocations(t *testing.T) {
	phis, ds, _ := linearProblem(10, 30, 0, 3)
	lms, _ := NewLMS(30, 0.1)
	rls, _ := NewRLS(30, RLSOptions{})
	ex, _ := NewExRLS(30, RLSOptions{Alpha: 0.99, Q: 1e-4})
	for _, f := range []Filter{lms, rls, ex} {
		k := 0
		if a := testing.AllocsPerRun(50, func() { _, _ = f.Update(phis[k%10], ds[k%10]); k++ }); a != 0 {
			t.Errorf("%T allocates %g per update", f, a)
		}
	}
}

// TestKLMS: KLMS learns a smooth function; QKLMS with a quantisation size keeps a
// smaller dictionary at a similar error.
func TestKLMS(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	target := func(x []float64) float64 { return math.Sin(2*x[0]) * math.Cos(x[1]) }
	k := kernel.RBF{Sigma: 0.5}
	klms, _ := NewKLMS(k, 2, 0.5, 0)
	qklms, _ := NewKLMS(k, 2, 0.5, 0.2)
	for range 2000 {
		x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
		_, _ = klms.Update(x, target(x))
		_, _ = qklms.Update(x, target(x))
	}
	var e1, e2 float64
	for range 500 {
		x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
		y1, _ := klms.Predict(x)
		y2, _ := qklms.Predict(x)
		e1 += (y1 - target(x)) * (y1 - target(x))
		e2 += (y2 - target(x)) * (y2 - target(x))
	}
	t.Logf("test MSE: KLMS %.3g with %d centres, QKLMS %.3g with %d", e1/500, klms.Len(), e2/500, qklms.Len())
	if klms.Len() != 2000 || qklms.Len() >= 400 {
		t.Errorf("dictionaries: KLMS %d, QKLMS %d", klms.Len(), qklms.Len())
	}
	if e1/500 > 1e-2 || e2/500 > 2e-2 {
		t.Errorf("did not learn: MSE %g and %g", e1/500, e2/500)
	}
	if _, err := klms.Update([]float64{math.NaN(), 0}, 1); err == nil || klms.Len() != 2000 {
		t.Error("bad input accepted or stored")
	}
}
