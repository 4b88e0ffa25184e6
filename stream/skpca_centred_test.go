package stream

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// centredCovariance returns C = (Z − 1z̄ᵀ)ᵀ(Z − 1z̄ᵀ) of the rows of Z, formed densely.
func centredCovariance(Z *mat.Dense) *mat.SymDense {
	n, D := Z.Dims()
	Zc := mat.DenseCopyOf(Z)
	for j := range D {
		m := mat.Sum(Zc.ColView(j)) / float64(n)
		for i := range n {
			Zc.Set(i, j, Zc.At(i, j)-m)
		}
	}
	var c mat.SymDense
	c.SymOuterK(1, Zc.T())
	return &c
}

// TestSKPCACentred checks the centred model against the dense definition (docs/design.md,
// "Centred SKPCA") on cpu_act (standardised) and a9a, D = 128:
//
//   - the components and values are the top eigenpairs of C̃ = BᵀB − n·z̄z̄ᵀ formed as a
//     D×D matrix from the sketch B and the features' mean: the (ℓ+1)-dimensional
//     problem loses nothing;
//   - the certificate: ‖C − C̃‖₂ ≤ Δ for the exact covariance C of the features, and
//     λᵢ(C) − Δ ≤ λᵢ(C̃) ≤ λᵢ(C);
//   - with ℓ ≥ n the sketch does not shrink (Δ = 0) and the values are C's, of which
//     at most n − 1 are not zero;
//   - Transform is (z(x) − z̄)ᵀW.
//
// Tolerances: the dense references and the model differ by rounding, a few D·ε of λ₁
// for the eigenvalues (the SVD of the sketch, its products and the eigensolvers),
// below 1e-12·λ₁ measured; 1e-10·λ₁ is far below any error of the method (Δ here is
// 0.05–0.5 of λ₁) and above rounding. An eigenvector's residual ‖C̃w − λw‖ carries the
// same rounding; 1e-9·λ₁.
func TestSKPCACentred(t *testing.T) {
	const D = 128
	for _, set := range []struct {
		name        string
		X           *mat.Dense
		standardise bool
	}{{"cpu_act", data.CPUAct().X, true}, {"a9a", data.A9A().X, false}} {
		for _, c := range []struct{ n, ell int }{{300, 5}, {300, 20}, {30, 40}} {
			X, sigma := prepare(t, set.X, c.n, set.standardise)
			_, d := X.Dims()
			s, err := NewSKPCA(kernel.RBF{Sigma: sigma}, d, SKPCAOptions{Features: D, Sketch: c.ell, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if !s.Centred() {
				t.Fatal("the default SKPCA does not centre")
			}
			if err := s.AddBatch(X); err != nil {
				t.Fatal(err)
			}
			vals := s.Values(nil)
			delta := s.ErrorBound()
			var W, Z, B mat.Dense
			s.VectorsTo(&W)
			if err := s.Map().Transform(&Z, X); err != nil {
				t.Fatal(err)
			}
			if err := s.Sketch().Sketch(&B); err != nil {
				t.Fatal(err)
			}
			mean := s.Mean(nil)
			// C̃ = BᵀB − n·z̄z̄ᵀ, dense.
			ct := mat.NewSymDense(D, nil)
			ct.SymOuterK(1, B.T())
			ct.SymRankOne(ct, -float64(c.n), mat.NewVecDense(D, mean))
			wantT, _ := testmat.Eigen(t, ct)
			C := centredCovariance(&Z)
			exact, _ := testmat.Eigen(t, C)
			top := exact[0]
			what := fmt.Sprintf("%s, n = %d, ℓ = %d", set.name, c.n, c.ell)

			if len(vals) == 0 || len(vals) > min(c.ell, c.n-1) {
				t.Fatalf("%s: %d values (ℓ = %d, n = %d)", what, len(vals), c.ell, c.n)
			}
			for i, v := range vals {
				if math.Abs(v-wantT[i]) > 1e-10*top {
					t.Errorf("%s: λ%d = %g, dense C̃ %g", what, i, v, wantT[i])
				}
				if v > exact[i]+1e-10*top || v < exact[i]-delta-1e-10*top {
					t.Errorf("%s: λ%d = %g outside [λ(C) − Δ, λ(C)] = [%g, %g]", what, i, v, exact[i]-delta, exact[i])
				}
				var r mat.VecDense
				w := W.ColView(i)
				r.MulVec(ct, w)
				r.AddScaledVec(&r, -v, w)
				if e := r.Norm(2); e > 1e-9*top {
					t.Errorf("%s: component %d is no eigenvector of C̃: residual %g", what, i, e)
				}
			}
			// The values left out are rounding: the dense C̃ has nothing above 1e-9·λ₁
			// beyond them.
			if p := len(vals); p < len(wantT) && wantT[p] > 1e-9*top {
				t.Errorf("%s: the eigenvalue %g of C̃ after the %d reported is missing", what, wantT[p], p)
			}
			diff := mat.NewSymDense(D, nil)
			subSym(diff, C, ct)
			if e := symNorm(t, diff); e > delta+1e-10*top {
				t.Errorf("%s: ‖C − C̃‖₂ = %g > Δ = %g", what, e, delta)
			}
			if c.ell >= c.n && delta != 0 {
				t.Errorf("%s: Δ = %g with ℓ ≥ n", what, delta)
			}
			// Scores.
			var sc, want mat.Dense
			if err := s.Transform(&sc, X, len(vals)); err != nil {
				t.Fatal(err)
			}
			want.Mul(centredRows(&Z, mean), &W)
			if !mat.EqualApprox(&sc, &want, 1e-10*math.Sqrt(top)) {
				t.Errorf("%s: Transform is not (z − z̄)ᵀW", what)
			}
		}
	}
}

// centredRows returns the rows of Z less mean.
func centredRows(Z *mat.Dense, mean []float64) *mat.Dense {
	out := mat.DenseCopyOf(Z)
	n, _ := out.Dims()
	for i := range n {
		row := out.RawRowView(i)
		for j, m := range mean {
			row[j] -= m
		}
	}
	return out
}

// TestSKPCAUncentredIsThePaper: with Uncentred set the model is the paper's, as it was
// before centring came: its values are the sketch's squared singular values and its
// components the sketch's right singular vectors signed by package sign, bit for bit,
// its scores z(x)ᵀW, and it keeps no sum (Mean is zero, the memory that of the sketch,
// the map and the components).
func TestSKPCAUncentredIsThePaper(t *testing.T) {
	X, sigma := standardised(t, data.Magic().X, 200)
	s, err := NewSKPCA(kernel.RBF{Sigma: sigma}, 10, SKPCAOptions{Features: 64, Sketch: 6, Seed: 2, Uncentred: true})
	if err != nil {
		t.Fatal(err)
	}
	testmat.AddRows(t, s, X, 0, 200)
	vals := s.Values(nil)
	fdVals, err := s.Sketch().Values(nil)
	if err != nil {
		t.Fatal(err)
	}
	var W, V mat.Dense
	s.VectorsTo(&W)
	if err := s.Sketch().VectorsTo(&V); err != nil {
		t.Fatal(err)
	}
	sign.Flip(&V)
	if !vec.SameBits(vals, fdVals) || !mat.Equal(&W, &V) {
		t.Error("the uncentred model is not the sketch's decomposition bit for bit")
	}
	var sc, Z, want mat.Dense
	if err := s.Transform(&sc, X, len(vals)); err != nil {
		t.Fatal(err)
	}
	_ = s.Map().Transform(&Z, X)
	want.Mul(&Z, &W)
	if !mat.EqualApprox(&sc, &want, 1e-12) {
		t.Error("the uncentred scores are not z(x)ᵀW")
	}
	if s.Centred() || slices.ContainsFunc(s.Mean(nil), func(v float64) bool { return v != 0 }) || s.sum != nil || s.c != nil {
		t.Error("the uncentred model centres, or keeps a sum")
	}
	r, c := s.w.Dims()
	if want := s.fd.Bytes() + 8*(10*64+64+r*c+6); s.Bytes() != want {
		t.Errorf("Bytes %d, want %d", s.Bytes(), want)
	}
}
