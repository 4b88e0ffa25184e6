package sharded

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// TestCertificateSweep: a run's certificate holds at every bandwidth and for every
// positive semi-definite kernel, against the exact matrix of the points (computed at 128
// bits, testmat.ExactMatrix) and its eigenvalues with rigorous error bounds
// (testmat.ExactEigen), which must resolve each interval (a hundredth of its width):
// every interval holds its eigenvalue, the tail the first eigenvalue beyond the rank,
// and every sine below 1 the sine between the span of the top Ritz vectors (the scores
// over √θ) and the exact matrix's top eigenvectors (gonum's, whose own error, ε·‖A‖ over
// the gap, is far below the margin of 1e-9). Yeast with duplicates and near-duplicates
// (testmat.WithNearDuplicates), RBF kernels of σ from 0.01× to 1000× the median distance, centred and
// not, Laplacian, polynomial and cosine kernels; 3 shards, rank 10, 6 passes; the
// deterministic certificate and the one with 30 test vectors (which holds with
// probability 1 − 2⁻³⁰ over their draw, fixed here by the seed).
func TestCertificateSweep(t *testing.T) {
	x := testmat.WithNearDuplicates(testmat.FirstRows(t, "yeast", 120))
	m, _ := x.Dims()
	med, err := kernel.MedianDistance(x, 1000)
	if err != nil {
		t.Fatal(err)
	}
	type sweep struct {
		k         kernel.Kernel
		uncentred bool
		tests     int // test vectors: 0, the deterministic certificate
	}
	var cases []sweep
	for _, tests := range []int{0, 30} {
		for _, s := range []float64{0.01, 1, 100, 1000} {
			cases = append(cases, sweep{kernel.RBF{Sigma: s * med}, false, tests}, sweep{kernel.RBF{Sigma: s * med}, true, tests})
		}
		cases = append(cases, sweep{kernel.Laplacian{Gamma: 1 / (100 * med)}, false, tests},
			sweep{kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, false, tests}, sweep{kernel.Cosine{}, true, tests})
	}
	ids := make([]uint64, m)
	for i := range ids {
		ids[i] = splitmix(uint64(i))
	}
	held, total := 0, 0
	for _, c := range cases {
		what := fmt.Sprintf("%v uncentred %v, %d test vectors", c.k, c.uncentred, c.tests)
		shards, all, _ := split(x, ids, 3)
		o := Options{Centred: !c.uncentred, Components: 5, Rank: 10, Passes: 6, Seed: 2, TestVectors: c.tests}
		res, err := Run(context.Background(), c.k, shards, o)
		if err != nil {
			t.Fatal(err)
		}
		values, lo, hi, sine, _, _ := res.Global.Bounds()
		exact := testmat.ExactMatrix(t, c.k, all, c.uncentred)
		want, errs := testmat.ExactEigen(t, exact, o.Rank+1)
		for j := range values {
			total++
			if lo[j] <= want[j]+errs[j] && want[j]-errs[j] <= hi[j] {
				held++
			} else {
				t.Errorf("%s: λ%d = %.16g ± %.2g outside [%.16g, %.16g]", what, j, want[j], errs[j], lo[j], hi[j])
			}
			if w := hi[j] - lo[j]; !(errs[j] <= 0.01*w) {
				t.Errorf("%s: λ%d's reference error %.3g is not below a hundredth of the interval's width %.3g", what, j, errs[j], w)
			}
		}
		total++
		if r := o.Rank; want[r]-errs[r] <= res.Global.Tail {
			held++
		} else {
			t.Errorf("%s: λ%d = %.16g above the tail bound %.16g", what, r, want[r], res.Global.Tail)
		}
		// The sines, against the exact matrix's eigenvectors.
		_, W := testmat.Eigen(t, exact)
		U := mat.NewDense(m, len(values), nil)
		row := 0
		for _, sc := range res.Scores {
			for i := range sc.Rows {
				for j := range len(values) {
					U.Set(row, j, sc.Data[i*sc.Cols+j]/math.Sqrt(values[j]))
				}
				row++
			}
		}
		for j := range values {
			if !(sine[j] < 1) {
				continue
			}
			Wj := W.Slice(0, m, 0, j+1)
			Uj := U.Slice(0, m, 0, j+1)
			var wu, p mat.Dense
			wu.Mul(Wj.T(), Uj)
			p.Mul(Wj, &wu)
			p.Sub(Uj, &p)
			var svd mat.SVD
			svd.Factorize(&p, mat.SVDNone)
			if got := svd.Values(nil)[0]; got > sine[j]+1e-9 {
				t.Errorf("%s: the sine of the top %d is %.3g, above its bound %.3g", what, j+1, got, sine[j])
			}
		}
		if g := res.Global; c.tests > 0 && g.Random < g.Bound && g.Failure != math.Pow(2, -30) {
			t.Errorf("%s: a random tail %g below the deterministic %g, failure probability %g", what, g.Random, g.Bound, g.Failure)
		}
		t.Logf("%-58s top-5 widths ≤ %.3g·λ₁, sine of the top 5 ≤ %.3g; tail %.3g (b %.3g, random %.3g)", what, (hi[0]-lo[0])/want[0], sine[4],
			res.Global.Tail, res.Global.Bound, res.Global.Random)
	}
	t.Logf("%d of %d intervals and tails held", held, total)
}
