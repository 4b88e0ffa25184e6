package kaf

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

func randomInputs(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 11))
	X := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			X.Set(i, j, 2*rng.Float64()-1)
		}
	}
	return X
}

// TestSPEEDMap: φ̃(x) = Λ^{-½}Vᵀk(X, x) agrees with an independent batch
// eigendecomposition (native.EigenSym), up to the signs of the eigenvectors, and with
// m = n its inner products reproduce the kernel on the dictionary.
func TestSPEEDMap(t *testing.T) {
	k := kernel.RBF{Sigma: 0.8}
	X := randomInputs(40, 3, 1)
	s, err := NewSPEED(k, X, SPEEDOptions{Components: 40})
	if err != nil {
		t.Fatal(err)
	}
	K := kernel.Matrix(k, X)
	vals, err := native.EigenSym(nil, nil, K)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Values(nil)
	for j := range 10 {
		if want := vals[len(vals)-1-j]; math.Abs(got[j]-want) > 1e-12*vals[len(vals)-1] {
			t.Errorf("λ%d = %g, batch %g", j, got[j], want)
		}
	}
	phi := make([][]float64, 40)
	for i := range 40 {
		phi[i] = make([]float64, s.OutDim())
		if err := s.Map(phi[i], X.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		for j := range 40 {
			if d := vec.Dot(phi[i], phi[j]) - K.At(i, j); math.Abs(d) > 1e-8 {
				t.Fatalf("φ̃(x%d)ᵀφ̃(x%d) − k = %g", i, j, d)
			}
		}
	}
	if a := testing.AllocsPerRun(20, func() { _ = s.Map(phi[0], X.RawRowView(0)) }); a != 0 {
		t.Errorf("Map allocates %g times", a)
	}
	// A cutoff keeps the eigenvalues ≥ cutoff·λ₁.
	c, _ := NewSPEED(k, X, SPEEDOptions{Cutoff: 1e-3})
	for _, v := range c.Values(nil) {
		if v < 1e-3*got[0] {
			t.Errorf("cutoff kept %g", v)
		}
	}
	if c.OutDim() >= 40 || c.OutDim() < 3 {
		t.Errorf("cutoff kept %d", c.OutDim())
	}
}

// TestISPEEDEqualsBatch: growing the dictionary one sample at a time (bordered updates)
// gives the map of the batch decomposition of the grown dictionary.
func TestISPEEDEqualsBatch(t *testing.T) {
	k := kernel.RBF{Sigma: 0.7}
	X := randomInputs(60, 2, 2)
	for _, centred := range []bool{false, true} {
		opts := SPEEDOptions{Components: 8, Centred: centred}
		inc, err := NewSPEED(k, X.Slice(0, 20, 0, 2), opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := 20; i < 60; i++ {
			if err := inc.Grow(X.RawRowView(i), nil); err != nil {
				t.Fatal(err)
			}
		}
		batch, _ := NewSPEED(k, X, opts)
		gv, bv := inc.Values(nil), batch.Values(nil)
		for j := range gv {
			if math.Abs(gv[j]-bv[j]) > 1e-11*bv[0] {
				t.Errorf("centred=%v λ%d: incremental %g, batch %g", centred, j, gv[j], bv[j])
			}
		}
		// Features agree up to the sign of each eigenfunction.
		probe := randomInputs(10, 2, 9)
		a, b := make([]float64, 8), make([]float64, 8)
		for i := range 10 {
			_ = inc.Map(a, probe.RawRowView(i))
			_ = batch.Map(b, probe.RawRowView(i))
			for j := range 8 {
				if math.Abs(math.Abs(a[j])-math.Abs(b[j])) > 1e-9 {
					t.Errorf("centred=%v feature %d: %g vs %g", centred, j, a[j], b[j])
				}
			}
		}
		// Centred features are the kernel PCA scores: kpca.Transform of the same points.
		if centred {
			md, _ := kpca.Fit(k, X, kpca.Options{Components: kpca.All})
			var sc mat.Dense
			_ = md.Transform(&sc, probe, 8)
			for i := range 10 {
				_ = batch.Map(b, probe.RawRowView(i))
				for j := range 8 {
					if math.Abs(math.Abs(b[j])-math.Abs(sc.At(i, j))) > 1e-9 {
						t.Errorf("centred SPEED feature %d differs from the kernel PCA score", j)
					}
				}
			}
		}
	}
}

// TestTransfer: carrying a filter's weights into the grown basis keeps its predictions
// exactly when all eigenfunctions are kept, and otherwise changes them only by the part
// of the function along the discarded ones.
func TestTransfer(t *testing.T) {
	k := kernel.RBF{Sigma: 0.6}
	X := randomInputs(31, 2, 3)
	probe := randomInputs(20, 2, 4)
	for _, m := range []int{40, 10} { // 40: all eigenfunctions, before and after the growth
		s, _ := NewSPEED(k, X.Slice(0, 30, 0, 2), SPEEDOptions{Components: m})
		rng := rand.New(rand.NewPCG(5, 5))
		w := make([]float64, s.OutDim())
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		predict := func(w []float64) []float64 {
			out := make([]float64, 20)
			phi := make([]float64, s.OutDim())
			for i := range 20 {
				_ = s.Map(phi, probe.RawRowView(i))
				out[i] = vec.Dot(w, phi)
			}
			return out
		}
		before := predict(w)
		coef := expansion(s.psi, w)
		if err := s.Grow(X.RawRowView(30), &w); err != nil {
			t.Fatal(err)
		}
		after := predict(w)
		// The transferred function is Σ c'ⱼk(xⱼ, ·) with c' the projection of [c; 0] onto
		// the kept eigenvectors V_m: compute it independently.
		var v mat.Dense
		md, _ := kpca.Fit(k, X, kpca.Options{Components: kpca.All, Uncentred: true})
		md.VectorsTo(&v)
		full := append(coef, 0)
		proj := make([]float64, 31)
		for j := range min(m, 31) {
			var a float64
			for i := range 31 {
				a += v.At(i, j) * full[i]
			}
			for i := range 31 {
				proj[i] += a * v.At(i, j)
			}
		}
		var worst, moved float64
		for i := range 20 {
			col := make([]float64, 31)
			kernel.Column(col, k, X, probe.RawRowView(i))
			want := vec.Dot(proj, col)
			worst = math.Max(worst, math.Abs(after[i]-want))
			moved = math.Max(moved, math.Abs(after[i]-before[i]))
		}
		t.Logf("m=%d: |transferred − projected function| ≤ %.2g, change of the predictions ≤ %.2g", m, worst, moved)
		if worst > 1e-8 {
			t.Errorf("m=%d: the transfer is not the projection (%g)", m, worst)
		}
		if m == 40 && moved > 1e-8 {
			t.Errorf("all eigenfunctions kept: predictions changed by %g", moved)
		}
	}
}

func TestSPEEDBadInput(t *testing.T) {
	k := kernel.RBF{Sigma: 1}
	X := randomInputs(10, 2, 6)
	if _, err := NewSPEED(k, X, SPEEDOptions{}); err == nil {
		t.Error("no components and no cutoff: no error")
	}
	s, _ := NewSPEED(k, X, SPEEDOptions{Components: 4})
	w := []float64{1, 2, 3, 4}
	if s.Grow([]float64{math.NaN(), 0}, &w) == nil || s.Len() != 10 || w[0] != 1 {
		t.Error("Grow(NaN) accepted or changed something")
	}
	short := []float64{1}
	if s.Grow([]float64{0.1, 0.2}, &short) == nil || s.Len() != 10 {
		t.Error("Grow with wrong weights accepted")
	}
	if s.Map(make([]float64, 3), []float64{0, 0}) == nil || s.Map(make([]float64, 4), []float64{0}) == nil {
		t.Error("Map with bad lengths accepted")
	}
}

// TestSPEEDFilter: on a smooth target, LMS and RLS on SPEED features learn it; siSPEED
// grows a small dictionary and reaches the accuracy of SPEED on the full dictionary.
func TestSPEEDFilter(t *testing.T) {
	k := kernel.RBF{Sigma: 0.5}
	target := func(x []float64) float64 { return math.Sin(3*x[0]) + x[1]*x[1] }
	train := randomInputs(1500, 2, 21)
	test := randomInputs(200, 2, 22)
	mse := func(f *SPEEDFilter) float64 {
		var s float64
		for i := range 200 {
			y, err := f.Predict(test.RawRowView(i))
			if err != nil {
				t.Fatal(err)
			}
			s += (y - target(test.RawRowView(i))) * (y - target(test.RawRowView(i)))
		}
		return s / 200
	}
	run := func(seed int, thr float64, factory func(int) (Filter, error)) (*SPEEDFilter, float64) {
		s, err := NewSPEED(k, train.Slice(0, seed, 0, 2), SPEEDOptions{Components: 30})
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewSPEEDFilter(s, factory, SPEEDFilterOptions{Threshold: thr})
		if err != nil {
			t.Fatal(err)
		}
		for pass := range 2 {
			for i := range 1500 {
				if pass == 0 && i < seed {
					continue
				}
				x := train.RawRowView(i)
				if _, err := f.Update(x, target(x)); err != nil {
					t.Fatal(err)
				}
			}
		}
		return f, mse(f)
	}
	rls := func(m int) (Filter, error) { return NewRLS(m, RLSOptions{Delta: 1e-2}) }
	lms := func(m int) (Filter, error) { return NewLMS(m, 0.5) }
	batch, batchMSE := run(300, -1, rls)
	si, siMSE := run(50, 0.15, rls)
	_, lmsMSE := run(300, -1, lms)
	t.Logf("test MSE: SPEED+RLS (300-sample dictionary) %.3g; siSPEED+RLS (50 → %d samples) %.3g; SPEED+LMS %.3g",
		batchMSE, si.Map().Len(), siMSE, lmsMSE)
	if batch.Map().Len() != 300 {
		t.Errorf("frozen dictionary grew to %d", batch.Map().Len())
	}
	if si.Map().Len() <= 50 || si.Map().Len() > 400 {
		t.Errorf("siSPEED dictionary %d", si.Map().Len())
	}
	if batchMSE > 1e-3 || siMSE > 3*batchMSE+1e-4 || lmsMSE > 5e-2 {
		t.Errorf("did not learn: %g %g %g", batchMSE, siMSE, lmsMSE)
	}
}
