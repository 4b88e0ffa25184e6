package kpca

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// sigmoidCosine returns the kernels of TestSigmoidCosine on Yeast (8 coordinates in
// [0, 1]): two sigmoids, whose kernel matrices have negative eigenvalues (the first
// with a negative diagonal near the origin), and the cosine.
func sigmoidCosine() []kernel.Kernel {
	return []kernel.Kernel{kernel.Sigmoid{Gamma: 0.3, Coef0: -0.5}, kernel.Sigmoid{Gamma: 2, Coef0: 1}, kernel.Cosine{}}
}

// TestSigmoidCosine: exact models of every mode and method with the sigmoid kernel (not
// positive semi-definite) and the cosine kernel, grown from 10 Yeast points one at a time
// to 60 and then by AddRows (the block path, kernel.Cross) to 120, against a fresh batch
// decomposition of kernel.Matrix at every 10th point (checkExact: eigenvalues,
// reconstruction and orthogonality to 1e-10, TestAgainstBatch's tolerance; the sums to
// 1e-12). The sigmoid's matrices must have an eigenvalue below −1e-6·λmax (rounding
// leaves ~1e-13·λmax), so that the models are seen to keep negative eigenvalues; and the
// training points' Transform is their Scores, zero on a component of negative
// eigenvalue.
func TestSigmoidCosine(t *testing.T) {
	x := points(t, "yeast", 120)
	_, d := x.Dims()
	for _, k := range sigmoidCosine() {
		if _, ok := k.(kernel.Sigmoid); ok {
			v, err := native.EigenSym(nil, nil, kernel.Matrix(k, x))
			if err != nil {
				t.Fatal(err)
			}
			if !(v[0] < -1e-6*v[len(v)-1]) {
				t.Fatalf("%v: eigenvalues in [%g, %g]: the test wants an indefinite matrix", k, v[0], v[len(v)-1])
			}
		}
		for _, opts := range allOptions {
			for _, nm := range exactModels(t, k, x.Slice(0, 10, 0, d), opts) {
				md := nm.md
				what := k.(interface{ String() string }).String() + " " + nm.name
				for m := 10; m < 60; m++ {
					if err := md.Add(x.RawRowView(m)); err != nil {
						t.Fatalf("%s: point %d: %v", what, m, err)
					}
					if (m+1)%10 == 0 {
						checkExact(t, what, md, 1e-10)
					}
				}
				if _, err := md.AddRows(context.Background(), x.Slice(60, 120, 0, d), nil); err != nil {
					t.Fatalf("%s: AddRows: %v", what, err)
				}
				checkExact(t, what+" after AddRows", md, 1e-10)
				values := md.Values(nil)
				if _, ok := k.(kernel.Sigmoid); ok && !(values[len(values)-1] < 0) {
					t.Errorf("%s: smallest eigenvalue %g, want a negative one", what, values[len(values)-1])
				}
				// Transform of the training points is Scores: score_j(xᵢ) = eᵢᵀA·uⱼ/√λⱼ against
				// √λⱼ·(uⱼ)ᵢ. With A = VΛVᵀ + R, A·uⱼ = λⱼuⱼ + Σ_q λ_q v_q(v_qᵀuⱼ − δ_qj) + R·uⱼ, so
				// the two differ by at most (‖R‖_F + √k·o·‖A‖_F)/√λⱼ, o = max|VᵀV − I|, both
				// measured (reconstruction, orthogonality; checkExact holds them below 1e-10);
				// a centred Transform subtracts (K1/m)ᵀuⱼ from the model's running row sums,
				// within 1e-12 of ‖K1/m‖ ≤ ‖K‖_F (checkSums): 1e-12·‖K‖_F/√λⱼ more; twice the
				// sum covers Transform's own rounding (m·ε·‖A‖/√λⱼ, far smaller). That holds for
				// uⱼ ⊥ 1, which a centred Transform assumes; the rank-one method's uⱼ leans
				// towards its trivial vector (eigenvalue 0) by about ε·‖A‖/λⱼ, which makes
				// components of λⱼ ~ 1e-5·λmax differ by 1e-4 relative, with an RBF kernel as
				// with these: only components of λⱼ ≥ 1e-3·λmax are compared. A component of
				// eigenvalue ≤ 0 scores exactly 0 both ways.
				comps := md.Components()
				var tr, sc mat.Dense
				if err := md.Transform(&tr, x, comps); err != nil {
					t.Fatalf("%s: Transform: %v", what, err)
				}
				if err := md.Scores(&sc, comps); err != nil {
					t.Fatal(err)
				}
				a := target(k, x, 120, opts.Uncentred)
				normA := mat.Norm(a, 2) // Frobenius
				off := 2 * ((reconstruction(md, a)+math.Sqrt(float64(comps))*orthogonality(md))*normA +
					1e-12*mat.Norm(kernel.Matrix(k, x), 2))
				for j, l := range values {
					if 0 < l && l < 1e-3*values[0] {
						continue
					}
					for i := range 120 {
						ta, sb := tr.At(i, j), sc.At(i, j)
						if l <= 0 {
							if ta != 0 || sb != 0 {
								t.Fatalf("%s: component %d of eigenvalue %g scores %g (Transform) and %g (Scores), want 0", what, j, l, ta, sb)
							}
							continue
						}
						if !(math.Abs(ta-sb) <= off/math.Sqrt(l)) {
							t.Fatalf("%s: point %d component %d (λ = %g): Transform %g, Scores %g (bound %g)", what, i, j, l, ta, sb, off/math.Sqrt(l))
						}
					}
				}
			}
		}
	}
}

// TestSigmoidCosineRank: rank-8 models with the sigmoid and the cosine kernel, tracked
// from 20 Yeast points to 120 (one at a time, then in blocks), whose truncations drop
// negative eigenvalues of the sigmoid's matrix as well as positive ones: ErrorBound
// bounds the true ‖K′ − K̃‖₂ and ValueBounds holds the batch eigenvalues (the bounds
// account for the dropped negative parts, docs/design.md, "Rank-r tracking"), to the
// batch decomposition's rounding, 1e-10·λmax.
func TestSigmoidCosineRank(t *testing.T) {
	x := points(t, "yeast", 120)
	_, d := x.Dims()
	for _, k := range sigmoidCosine() {
		for _, uncentred := range []bool{false, true} {
			opts := Options{Components: 8, Rank: 8, Uncentred: uncentred}
			what := k.(interface{ String() string }).String() + " " + modeName(uncentred)
			md := fitModel(t, k, x.Slice(0, 20, 0, d), opts)
			for m := 20; m < 70; m++ {
				if err := md.Add(x.RawRowView(m)); err != nil {
					t.Fatalf("%s: point %d: %v", what, m, err)
				}
			}
			if _, err := md.AddRows(context.Background(), x.Slice(70, 120, 0, d), nil); err != nil {
				t.Fatalf("%s: AddRows: %v", what, err)
			}
			a := target(k, x, 120, uncentred)
			batch := batchValues(t, a, uncentred)
			slack := 1e-10 * math.Abs(batch[0])
			// E = A − V·Λ·Vᵀ and its spectral norm.
			var v mat.Dense
			md.VectorsTo(&v)
			values := md.Values(nil)
			e := mat.NewSymDense(120, nil)
			for i := range 120 {
				for j := i; j < 120; j++ {
					s := a.At(i, j)
					for q, l := range values {
						s -= v.At(i, q) * l * v.At(j, q)
					}
					e.SetSym(i, j, s)
				}
			}
			ev, err := native.EigenSym(nil, nil, e)
			if err != nil {
				t.Fatal(err)
			}
			norm := math.Max(-ev[0], ev[len(ev)-1])
			if !(norm <= md.ErrorBound()+slack) {
				t.Errorf("%s: ‖K′ − K̃‖₂ = %g beyond ErrorBound %g", what, norm, md.ErrorBound())
			}
			lo, hi := md.ValueBounds(nil, nil)
			for j := range lo {
				if !(lo[j]-slack <= batch[j] && batch[j] <= hi[j]+slack) {
					t.Errorf("%s: eigenvalue %d = %g outside [%g, %g]", what, j, batch[j], lo[j], hi[j])
				}
			}
			t.Logf("%s: ‖E‖₂ = %.3g, ErrorBound %.3g, λ₁ = %.4g, smallest batch eigenvalue %.3g", what, norm, md.ErrorBound(), batch[0], batch[len(batch)-1])
		}
	}
}
