package kpca

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// sweepPoints returns the first n points of Yeast or n standard normal points in 8
// dimensions, with duplicates and near-duplicates added (testmat.WithNearDuplicates).
func sweepPoints(t *testing.T, set string, n int) *mat.Dense {
	t.Helper()
	var base *mat.Dense
	switch set {
	case "issue":
		return points(t, "yeast", n) // as the issue took them
	case "yeast":
		base = points(t, "yeast", n)
	case "normal":
		rng := rand.New(rand.NewPCG(3, 5))
		base = mat.NewDense(n, 8, nil)
		for i := range n {
			for l := range 8 {
				base.Set(i, l, rng.NormFloat64())
			}
		}
	}
	return testmat.WithNearDuplicates(base)
}

// TestCertifySweep: the certificate holds at every bandwidth. Yeast (with duplicates and
// near-duplicates added, sweepPoints), RBF kernels of σ from 0.01× to 1000× the median
// distance, centred and uncentred, tracked at rank 20 from Options{Components: 5,
// BatchMax: 200} and polished by three passes (the setting), certified; also
// N(0, 1) data with γ = 1e-6, and Laplacian, polynomial, sigmoid and cosine kernels. The
// reference is the exact matrix of the points computed at 128 bits and rounded
// (testmat.ExactMatrix), its eigenvalues with rigorous error bounds (testmat.ExactEigen), which must
// stay below a hundredth of each interval's width: every interval Lower ≤ λⱼ ≤ Upper and the tail must hold against
// them. It counts the intervals that hold and fails on any that misses. At 1× the
// median, each of the top 5 intervals is at most 20× the model's eigenvalue error wide,
// or 3 times the certificate's Rounding, whichever is larger (the interval is
// θ ± Rounding around the Ritz value, plus the quadratic residual term, whose residual
// is widened by Rounding too). The widths
// (relative to λ₁) at 0.01×, 1× and 100× are logged.
func TestCertifySweep(t *testing.T) {
	n := 200
	scales := []float64{0.01, 0.1, 1, 10, 100, 300, 1000}
	if testing.Short() {
		n = 100
		scales = []float64{0.01, 1, 100, 1000}
	}
	type sweepCase struct {
		set       string
		k         func(med float64) kernel.Kernel
		scale     float64
		uncentred bool
	}
	// The case first: the first 400 points of Yeast as they are, σ = 100× the
	// median, where the old allowance put λ₁ below its lower bound.
	cases := []sweepCase{{"issue", func(med float64) kernel.Kernel { return kernel.RBF{Sigma: 100 * med} }, 100, false}}
	for _, s := range scales {
		for _, unc := range []bool{false, true} {
			s := s
			cases = append(cases, sweepCase{"yeast", func(med float64) kernel.Kernel {
				return kernel.RBF{Sigma: s * med}
			}, s, unc})
		}
	}
	cases = append(cases,
		sweepCase{"normal", func(float64) kernel.Kernel { return kernel.RBF{Gamma: 1e-6} }, math.NaN(), false},
		sweepCase{"yeast", func(med float64) kernel.Kernel { return kernel.Laplacian{Gamma: 1 / (100 * med)} }, 100, false},
		sweepCase{"yeast", func(float64) kernel.Kernel { return kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1} }, math.NaN(), false},
		sweepCase{"normal", func(float64) kernel.Kernel { return kernel.Sigmoid{Gamma: 0.01, Coef0: 0.5} }, math.NaN(), false},
		sweepCase{"yeast", func(float64) kernel.Kernel { return kernel.Cosine{} }, math.NaN(), true},
	)
	held, total := 0, 0
	for _, c := range cases {
		x := sweepPoints(t, c.set, n)
		if c.set == "issue" {
			x = sweepPoints(t, c.set, 400)
		}
		m, d := x.Dims()
		med, err := kernel.MedianDistance(x, 1000)
		if err != nil {
			t.Fatal(err)
		}
		k := c.k(med)
		what := fmt.Sprintf("%s %v %s", c.set, k, modeName(c.uncentred))
		first := min(200, m/2)
		md := fitModel(t, k, x.Slice(0, first, 0, d), Options{Components: 5, Rank: 20, BatchMax: 200, Uncentred: c.uncentred})
		if _, err := md.AddRows(t.Context(), x.Slice(first, m, 0, d), nil); err != nil {
			t.Fatal(err)
		}
		if err := md.Polish(3); err != nil {
			t.Fatal(err)
		}
		cert, err := md.Certify()
		if err != nil {
			t.Fatal(err)
		}
		r := len(cert.Lower)
		want, errs := testmat.ExactEigen(t, testmat.ExactMatrix(t, k, x, c.uncentred), r+1)
		got := md.Values(nil)
		for j := range r {
			total++
			ok := cert.Lower[j] <= want[j]+errs[j] && want[j]-errs[j] <= cert.Upper[j]
			if ok {
				held++
			} else {
				t.Errorf("%s: λ%d = %.16g ± %.2g outside [%.16g, %.16g]", what, j, want[j], errs[j], cert.Lower[j], cert.Upper[j])
			}
			// The reference must resolve the interval, to find a miss of its size.
			if w := cert.Upper[j] - cert.Lower[j]; !(errs[j] <= 0.01*w) {
				t.Errorf("%s: λ%d's reference error %.3g is not below a hundredth of the interval's width %.3g", what, j, errs[j], w)
			}
		}
		total++
		if want[r]-errs[r] <= cert.Tail {
			held++
		} else {
			t.Errorf("%s: λ%d = %.16g above the tail bound %.16g", what, r, want[r], cert.Tail)
		}
		var width float64
		for j := range 5 {
			w := cert.Upper[j] - cert.Lower[j]
			width = math.Max(width, w)
			if c.scale == 1 {
				allowed := math.Max(20*math.Abs(got[j]-want[j]), 3*cert.Rounding)
				if !(w <= allowed) {
					t.Errorf("%s: λ%d's interval %.3g wide, the model's error %.3g, the rounding allowance %.3g", what, j, w, math.Abs(got[j]-want[j]), cert.Rounding)
				}
			}
		}
		t.Logf("%-44s m = %d: top-5 widths ≤ %.3g·λ₁, Rounding %.3g·λ₁, λ₁ = %.6g", what, m, width/want[0], cert.Rounding/want[0], want[0])
	}
	t.Logf("%d of %d intervals and tails held", held, total)
}
