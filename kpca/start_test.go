package kpca

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// TestTopPairsPartial: the partial solver (top r+1 pairs and the trace) gives the same
// kept pairs as a full decomposition truncated, and a summary of what it drops that
// bounds the full one's: the same largest dropped eigenvalue, a positive sum no smaller,
// and a negative side no smaller than the rounding the full spectrum shows.
func TestTopPairsPartial(t *testing.T) {
	x, k := sample(t, "magic", 300)
	a := kernel.Matrix(k, x)
	n := a.SymmetricDim()
	norm := 0.0
	for i := range n {
		norm = math.Max(norm, math.Abs(a.At(i, i)))
	}
	for _, r := range []int{1, 10, 50, 200} {
		pv, pw, pd, err := topPairs(a, r, true)
		if err != nil {
			t.Fatal(err)
		}
		fv, fw, fd, err := topPairs(a, r, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(pv) != len(fv) || pd.Count != fd.Count {
			t.Fatalf("r = %d: %d kept (%d dropped), full %d (%d)", r, len(pv), pd.Count, len(fv), fd.Count)
		}
		// Backward-stable solvers: eigenvalues within c·n·ε·‖A‖ of each other.
		tol := 64 * float64(n) * roundoff * fv[len(fv)-1]
		for i := range pv {
			if math.Abs(pv[i]-fv[i]) > tol {
				t.Errorf("r = %d: λ%d = %v, full %v", r, i, pv[i], fv[i])
			}
		}
		if math.Abs(pd.Max-fd.Max) > tol {
			t.Errorf("r = %d: largest dropped %v, full %v", r, pd.Max, fd.Max)
		}
		if pd.Positive < fd.Positive-tol*float64(n) || pd.Min > fd.Min+tol || pd.Negative < fd.Negative-tol {
			t.Errorf("r = %d: partial drop %+v does not bound the full %+v", r, pd, fd)
		}
		// The kept vectors span the same space where the spectrum has a gap at the cut.
		gap := fv[0] - fd.Max
		if gap > 1e-6*fv[len(fv)-1] {
			var c mat.Dense
			c.Mul(pw.T(), fw)
			var sv mat.SVD
			if !sv.Factorize(&c, mat.SVDNone) {
				t.Fatal("SVD failed")
			}
			s := sv.Values(nil)
			cosMin := s[len(s)-1]
			if sin := math.Sqrt(math.Max(0, 1-cosMin*cosMin)); sin > 2*tol/gap+1e-7 {
				t.Errorf("r = %d: subspaces differ by a sine of %g (gap %g)", r, sin, gap)
			}
		}
	}
	if psd(kernel.Func{Name: "f", F: func(x, y []float64) float64 { return 0 }}) {
		t.Error("a user's kernel taken for positive semi-definite")
	}
}
