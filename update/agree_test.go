package update

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

// stage is the decomposition after one stage of the agreement workload.
type stage struct {
	values  []float64  // ascending
	vectors *mat.Dense // columns in the order of values
}

// agreementWorkload is a fixed workload whose results the two backends must reproduce
// within rounding: a factorisation, rank-one updates of both signs and bordering steps
// on the Yeast RBF kernel. It returns the decomposition after each stage.
func agreementWorkload(t *testing.T) []stage {
	t.Helper()
	x := data.Yeast().X
	m := 200
	k := rbf(x.Slice(0, m, 0, 8), medianDistance(t, x))
	rng := rand.New(rand.NewPCG(9, 9))
	var out []stage
	record := func(s *Sym) {
		var u mat.Dense
		s.VectorsTo(&u)
		out = append(out, stage{values: s.Values(nil), vectors: &u})
	}
	var s Sym
	if err := s.Factorize(synth.Leading(k, 150)); err != nil {
		t.Fatal(err)
	}
	record(&s)
	for range 10 {
		v := make([]float64, 150)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		if err := s.RankOne(rng.NormFloat64(), vd(v)); err != nil {
			t.Fatal(err)
		}
	}
	record(&s)
	var g Sym
	for j := range m {
		if err := g.Border(vd(column(k, j, j)), k.At(j, j)); err != nil {
			t.Fatal(err)
		}
	}
	record(&g)
	return out
}

// TestBackendAgreement runs the workload on the compiled-in backend and on gonum's
// pure-Go BLAS and LAPACK in the same process (the openblas build links both; package
// internal/backend switches package native between them) and compares what rounding
// cannot move:
//
//   - the eigenvalues, to 64·n·ε·‖A‖: each backend's are within c·n·ε·‖A‖ of the exact
//     ones with c of order 1 per update (backward stability of each update; the update
//     tests check residuals to 4·n·ε·‖A‖ per step), and rounding errors of successive
//     updates largely average out (measured: the backends differ by 0.1·n·ε·‖A‖);
//   - the invariant subspaces of the top j eigenvalues, for every j ≤ 20 where the gap
//     δ = λ_(j) − λ_(j+1) exceeds 1e-6·‖A‖: by the Davis–Kahan sin θ theorem each
//     backend's subspace is within ‖E‖/δ of the exact one for a backward error ‖E‖, so
//     the sine of the largest principal angle between the two is bounded by
//     2·64·n·ε·‖A‖/δ. Subspaces are sign-free; single vectors inside a near-degenerate
//     cluster are not compared at all.
//
// In the pure-Go build there is only one backend: the test says so and skips.
func TestBackendAgreement(t *testing.T) {
	mine, theirs := backend.Compare(t, native.Compiled == "gonum", func() []stage { return agreementWorkload(t) })
	if len(mine) != len(theirs) {
		t.Fatalf("%d and %d stages", len(mine), len(theirs))
	}
	var worstValue, worstSine float64 // in units of the bounds
	for st := range mine {
		a, b := mine[st], theirs[st]
		n := len(a.values)
		norm := math.Max(math.Abs(a.values[0]), math.Abs(a.values[n-1]))
		bound := 64 * float64(n) * eps * norm
		d := testmat.MaxAbsDiff(a.values, b.values)
		worstValue = math.Max(worstValue, d/bound)
		if d > bound {
			t.Errorf("stage %d: eigenvalues differ by %.3g·‖A‖ (bound %.3g·‖A‖)", st, d/norm, bound/norm)
		}
		compared := 0
		for j := 1; j <= 20 && j < n; j++ {
			gap := a.values[n-j] - a.values[n-j-1]
			if gap <= 1e-6*norm {
				continue
			}
			compared++
			s := sine(a.vectors.Slice(0, n, n-j, n), b.vectors.Slice(0, n, n-j, n))
			worstSine = math.Max(worstSine, s/(2*bound/gap))
			if s > 2*bound/gap {
				t.Errorf("stage %d: top-%d subspaces differ by sin θ = %.3g (gap %.3g·‖A‖, bound %.3g)", st, j, s, gap/norm, 2*bound/gap)
			}
		}
		if compared == 0 {
			t.Errorf("stage %d: no subspace separated by a gap compared", st)
		}
	}
	t.Logf("%s and gonum agree on %d stages: eigenvalues to %.2g of the bound, subspaces to %.2g", native.Compiled, len(mine), worstValue, worstSine)
}

// sine returns the sine of the largest principal angle between the column spans of the
// orthonormal matrices p and q: ‖q − p·pᵀq‖₂.
func sine(p, q mat.Matrix) float64 {
	var ptq, r mat.Dense
	ptq.Mul(p.T(), q)
	r.Mul(p, &ptq)
	r.Sub(q, &r)
	return mat.Norm(&r, 2)
}
