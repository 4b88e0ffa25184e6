package update

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// rankOneDense returns V·Λ·Vᵀ + ρ·v·vᵀ, the dense definition of Thin.RankOne.
func rankOneDense(th *Thin, rho float64, v []float64) *mat.SymDense {
	n, _ := th.Dims()
	a := thinDense(th)
	if a.SymmetricDim() != n {
		a = mat.NewSymDense(n, nil)
	}
	a.SymRankOne(a, rho, mat.NewVecDense(n, v))
	return a
}

// rankOneChecked runs RankOne and checks it against its dense definition, a fresh
// eigendecomposition of V·Λ·Vᵀ + ρ·v·vᵀ (pairCheck: residual, orthonormality and
// eigenvalues against the top of the batch spectrum, the negative values kept against
// the nearest eigenvalue), relative to the step's scale: the largest of ‖A‖₂ before
// and after and |ρ|·‖v‖², against which the projections and the secular problem round.
// tol is widened by what the Thin inherits (inherited). It returns the number of pairs
// before and after.
func rankOneChecked(t *testing.T, what string, th *Thin, rho float64, v []float64, tol float64, centred bool) (before, after int) {
	t.Helper()
	_, before = th.Dims()
	want := rankOneDense(th, rho, v)
	norm := math.Max(spectralNorm(th.Values(nil)), math.Abs(rho)*vec.Dot(v, v))
	tol += inherited(th, nil)
	if err := th.RankOne(rho, vd(v)); err != nil {
		t.Fatalf("%s: RankOne: %v", what, err)
	}
	if st := th.Stats(); st.Op != "rank-one" {
		t.Errorf("%s: Stats().Op = %q", what, st.Op)
	}
	norm = math.Max(norm, spectralNorm(th.Values(nil)))
	pairCheck(t, what+": rank-one", th, want, math.Max(norm, math.SmallestNonzeroFloat64), tol, centred)
	_, after = th.Dims()
	return before, after
}

// randomThin returns an exact Thin (no truncation) of n rows and k pairs with the given
// eigenvalues scale·N(0, 1) (both signs), its vectors orthonormal (centred: and
// orthogonal to 1).
func randomThin(t *testing.T, n, k int, centred bool, rng *rand.Rand) *Thin {
	t.Helper()
	vals := make([]float64, k)
	for i := range vals {
		vals[i] = rng.NormFloat64()
	}
	th, err := NewThin(vals, orthonormal(n, k, centred, rng))
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// centre subtracts its mean from x if centred (x ⊥ 1: a centred Thin's V stays in 1⊥)
// and returns it.
func centre(x []float64, centred bool) []float64 {
	if centred {
		mean := 0.0
		for _, v := range x {
			mean += v
		}
		mean /= float64(len(x))
		for i := range x {
			x[i] -= mean
		}
	}
	return x
}

// randVector returns n standard normal numbers.
func randVector(n int, rng *rand.Rand) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// TestThinRankOne checks Thin.RankOne against its dense definition (rankOneChecked) on
// its cases: a general v (partly outside span(V): the rank grows by one when nothing is
// truncated), v in span(V) (no new direction: the rank stays), v ⊥ span(V) (the new
// pair is (ρ‖v‖², v/‖v‖) and the old ones stay), ρ < 0 large enough to make
// eigenvalues negative (kept without a truncation, dropped by a rank-r one whose floor
// is 0, kept with a floor of −∞), a truncation to rank r, an empty Thin, and a centred
// Thin (V spans part of 1⊥) with a v that has a component along 1. The tolerance
// 64·(n+7)·ε relative to the step's scale is FuzzThin's: the secular problem of order
// k+1 neglects 64ε·σ per deflated component and the products round at O(k·ε).
func TestThinRankOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const n, k = 40, 10
	tol := 64 * float64(n+7) * eps
	for _, centred := range []bool{false, true} {
		th := randomThin(t, n, k, centred, rng)
		if centred {
			// A v with a component along 1 takes V out of 1⊥ (it is then a Thin of Rⁿ,
			// checked as one), on a copy.
			var out Thin
			out.CopyFrom(th)
			if before, after := rankOneChecked(t, "along 1", &out, 0.7, randVector(n, rng), tol, false); after != before+1 {
				t.Errorf("a v along 1: %d pairs, want %d", after, before+1)
			}
		}
		if before, after := rankOneChecked(t, "general", th, 0.7, centre(randVector(n, rng), centred), tol, centred); after != before+1 {
			t.Errorf("centred %v: a general v: %d pairs, want %d", centred, after, before+1)
		}

		// v in span(V): no new direction.
		var vv mat.Dense
		vv.Reset()
		th.VectorsTo(&vv)
		_, kk := th.Dims()
		inSpan := make([]float64, n)
		mat.NewVecDense(n, inSpan).MulVec(&vv, mat.NewVecDense(kk, randVector(kk, rng)))
		if before, after := rankOneChecked(t, "in span", th, -0.3, inSpan, tol, centred); after != before {
			t.Errorf("centred %v: v in span(V): %d pairs, want %d", centred, after, before)
		}

		// v ⊥ span(V) (and ⊥ 1 when centred): the old pairs stay and (ρ‖v‖², v̂) joins.
		vv.Reset()
		th.VectorsTo(&vv)
		out := centre(randVector(n, rng), centred)
		for range 2 { // twice is enough
			var p, vp mat.VecDense
			p.MulVec(vv.T(), mat.NewVecDense(n, out))
			vp.MulVec(&vv, &p)
			for i := range out {
				out[i] -= vp.AtVec(i)
			}
		}
		old := th.Values(nil)
		rankOneChecked(t, "orthogonal", th, 2, out, tol, centred)
		got := th.Values(nil)
		if len(got) != len(old)+1 {
			t.Fatalf("centred %v: v ⊥ V: %d pairs, want %d", centred, len(got), len(old)+1)
		}
		added := 2 * vec.Dot(out, out)
		found := false
		for _, l := range got {
			found = found || math.Abs(l-added) <= tol*added
		}
		if !found {
			t.Errorf("centred %v: v ⊥ V: no eigenvalue ρ‖v‖² = %g among %v", centred, added, got)
		}

		// ρ < 0 along the top vector: its eigenvalue becomes negative, and stays (exact).
		vv.Reset()
		th.VectorsTo(&vv)
		_, kk = th.Dims()
		top := mat.Col(nil, kk-1, &vv)
		lmax := th.Values(nil)[kk-1]
		rankOneChecked(t, "negative", th, -(math.Abs(lmax) + 3), top, tol, centred)
		if th.Values(nil)[0] >= 0 {
			t.Errorf("centred %v: no negative eigenvalue after ρ = −(λmax + 3) along the top vector: %v", centred, th.Values(nil))
		}
	}

	// Truncations: rank r, floor 0 (negative eigenvalues dropped) and −∞ (kept).
	for _, floor := range []float64{0, math.Inf(-1)} {
		th := randomThin(t, n, k, false, rng)
		th.SetTruncation(Truncation{Rank: 6, Floor: floor})
		for i, rho := range []float64{1, -4, 0.5, -10} {
			v := randVector(n, rng)
			rankOneChecked(t, "truncated", th, rho, v, tol, false)
			_, kk := th.Dims()
			if kk > 6 {
				t.Errorf("floor %g, step %d: %d pairs kept at rank 6", floor, i, kk)
			}
			st := th.Stats()
			if kk == 0 {
				continue
			}
			if floor == 0 && th.Values(nil)[0] <= 0 {
				t.Errorf("floor 0, step %d: a non-positive eigenvalue kept: %v", i, th.Values(nil))
			}
			if st.Dropped.Count > 0 && st.Dropped.Max > th.Values(nil)[0] {
				t.Errorf("floor %g, step %d: dropped %g above the smallest kept %g", floor, i, st.Dropped.Max, th.Values(nil)[0])
			}
		}
	}

	// An empty Thin of n rows: the only pair is (ρ‖v‖², v/‖v‖).
	var empty Thin
	if err := empty.Reset(n); err != nil {
		t.Fatal(err)
	}
	v := randVector(n, rng)
	rankOneChecked(t, "empty", &empty, 0.25, v, tol, false)
	if got, want := empty.Values(nil), 0.25*vec.Dot(v, v); len(got) != 1 || math.Abs(got[0]-want) > tol*want {
		t.Errorf("empty: values %v, want [%g]", got, want)
	}
	// A negative ρ on an empty Thin at rank r with floor 0 leaves it empty.
	var neg Thin
	neg.Reset(n)
	neg.SetTruncation(Truncation{Rank: 3})
	rankOneChecked(t, "empty, ρ < 0", &neg, -1, v, tol, false)
	if _, kk := neg.Dims(); kk != 0 || neg.Stats().Dropped.Count != 1 {
		t.Errorf("empty, ρ < 0 at rank 3: %d pairs, dropped %+v", kk, neg.Stats().Dropped)
	}
}

// TestThinRankOneMatchesSym: a square Thin (k = n) is a Sym, and RankOne is
// Sym.RankOne: after the same updates the two decompositions agree to rounding — the
// eigenvalues within 64·n·ε·‖A‖, and the matrices they represent, U·Λ·Uᵀ, within the
// same (a comparison of the vectors themselves would depend on their signs and on the
// rotations inside clusters; the represented matrix does not).
func TestThinRankOneMatchesSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	const n = 50
	a := synth.RandomSym(n, rng)
	s := factorized(t, a)
	var u mat.Dense
	s.VectorsTo(&u)
	th, err := NewThin(s.Values(nil), &u)
	if err != nil {
		t.Fatal(err)
	}
	for step, rho := range []float64{0.8, -1.5, 3, -0.2} {
		v := randVector(n, rng)
		if err := s.RankOne(rho, vd(v)); err != nil {
			t.Fatal(err)
		}
		if err := th.RankOne(rho, vd(v)); err != nil {
			t.Fatal(err)
		}
		if _, k := th.Dims(); k != n {
			t.Fatalf("step %d: a square Thin has %d pairs after RankOne", step, k)
		}
		sv, tv := s.Values(nil), th.Values(nil)
		norm := spectralNorm(sv)
		tol := 64 * n * eps * norm
		if d := testmat.MaxAbsDiff(sv, tv); d > tol {
			t.Errorf("step %d: eigenvalues differ by %.3g > %.3g", step, d, tol)
		}
		var tu mat.Dense
		s.VectorsTo(&u)
		th.VectorsTo(&tu)
		as, at := synth.Reconstruct(sv, &u), synth.Reconstruct(tv, &tu)
		var diff mat.Dense
		diff.Sub(as, at)
		if d := mat.Norm(&diff, 2); d > tol {
			t.Errorf("step %d: U·Λ·Uᵀ differ by %.3g > %.3g", step, d, tol)
		}
	}
}

// atVector is a mat.Vector that is not a mat.RawVectorer: RankOne reads it with AtVec.
type atVector struct{ x []float64 }

func (v atVector) Dims() (int, int)    { return len(v.x), 1 }
func (v atVector) At(i, _ int) float64 { return v.x[i] }
func (v atVector) T() mat.Matrix       { return mat.Transpose{Matrix: v} }
func (v atVector) Len() int            { return len(v.x) }
func (v atVector) AtVec(i int) float64 { return v.x[i] }

// TestThinRankOneVectors: the same v as a *mat.VecDense, as a column of a matrix
// (increment 4) and as a mat.Vector that is only AtVec gives bit for bit the same
// update, since each is copied into the same scratch before any arithmetic.
func TestThinRankOneVectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	const n, k = 30, 8
	base := randomThin(t, n, k, false, rng)
	base.SetTruncation(Truncation{Rank: 8})
	v := randVector(n, rng)
	wide := mat.NewDense(n, 4, nil)
	wide.SetCol(2, v)
	var want thinSnap
	for i, x := range []mat.Vector{mat.NewVecDense(n, v), wide.ColView(2), atVector{v}} {
		var th Thin
		th.CopyFrom(base)
		if err := th.RankOne(-0.9, x); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			want = snapT(&th)
		} else if !snapT(&th).equal(want) {
			t.Errorf("vector %d (%T): a different result from the contiguous vector's", i, x)
		}
	}
}

// TestThinRankOneBadInput: every refusal wraps its kind (and the ikpca kind) and leaves
// the Thin bit for bit as it was; ρ = 0 changes nothing; non-convergence (the iteration
// cap on the poles of LAPACK issue #1166) is secular.ErrNotConverged, state unchanged.
func TestThinRankOneBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	const n, k = 12, 5
	th := randomThin(t, n, k, false, rng)
	good := randVector(n, rng)
	nan := append([]float64(nil), good...)
	nan[3] = math.NaN()
	inf := append([]float64(nil), good...)
	inf[0] = math.Inf(-1)
	wide := mat.NewDense(n, 2, nil)
	wide.SetCol(1, nan)
	cases := []struct {
		name      string
		call      func() error
		want, ikp error
	}{
		{"NaN rho", func() error { return th.RankOne(math.NaN(), vd(good)) }, ErrNonFinite, ikpca.ErrNonFinite},
		{"Inf rho", func() error { return th.RankOne(math.Inf(1), vd(good)) }, ErrNonFinite, ikpca.ErrNonFinite},
		{"NaN in v", func() error { return th.RankOne(1, vd(nan)) }, ErrNonFinite, ikpca.ErrNonFinite},
		{"−Inf in v", func() error { return th.RankOne(1, vd(inf)) }, ErrNonFinite, ikpca.ErrNonFinite},
		{"NaN in a strided v", func() error { return th.RankOne(1, wide.ColView(1)) }, ErrNonFinite, ikpca.ErrNonFinite},
		{"NaN in an AtVec v", func() error { return th.RankOne(1, atVector{nan}) }, ErrNonFinite, ikpca.ErrNonFinite},
		{"short v", func() error { return th.RankOne(1, vd(good[:n-1])) }, ErrDimension, ikpca.ErrDimension},
		{"long v", func() error { return th.RankOne(1, vd(append(good, 1))) }, ErrDimension, ikpca.ErrDimension},
		{"nil v", func() error { return th.RankOne(1, nil) }, ErrArgument, ikpca.ErrArgument},
		{"typed nil v", func() error { return th.RankOne(1, (*mat.VecDense)(nil)) }, ErrArgument, ikpca.ErrArgument},
		{"overflow", func() error { return th.RankOne(1e300, vd(append(make([]float64, n-1), 1e200))) }, secular.ErrNonFinite, ikpca.ErrNonFinite},
	}
	for _, c := range cases {
		was := snapT(th)
		err := c.call()
		if !errors.Is(err, c.want) || !errors.Is(err, c.ikp) {
			t.Errorf("%s: %v, want %v and %v", c.name, err, c.want, c.ikp)
		}
		if !snapT(th).equal(was) {
			t.Errorf("%s: state changed", c.name)
		}
	}
	was := snapT(th)
	if err := th.RankOne(0, vd(good)); err != nil || !snapT(th).equal(was) {
		t.Errorf("ρ = 0: %v, state changed %v", err, !snapT(th).equal(was))
	}
	var zero Thin
	if err := zero.RankOne(1, nil); err != nil {
		t.Errorf("RankOne(1, nil) of the 0×0 Thin: %v", err)
	}

	p := oracle.Issue1166
	m := len(p.D)
	eye := mat.NewDense(m, m, nil)
	for i := range m {
		eye.Set(i, i, 1)
	}
	sq, err := NewThin(p.D, eye)
	if err != nil {
		t.Fatal(err)
	}
	sq.SetOptions(Options{MaxIterations: 2})
	was = snapT(sq)
	if err := sq.RankOne(p.Rho, vd(p.Z)); !errors.Is(err, secular.ErrNotConverged) || !errors.Is(err, ikpca.ErrNotConverged) {
		t.Errorf("issue 1166 with 2 iterations: %v, want ErrNotConverged", err)
	}
	if !snapT(sq).equal(was) {
		t.Error("issue 1166: state changed")
	}
	sq.SetOptions(Options{})
	rankOneChecked(t, "issue 1166", sq, p.Rho, p.Z, 64*float64(m+7)*eps, false)
}

// TestThinRankOneAllocations: at rank r, once Reserve has made room, RankOne allocates
// nothing of its own, with v a *mat.VecDense header or a strided column (increment 3).
// With OpenBLAS that means zero; gonum's pure-Go dgemm allocates for its goroutines,
// so there the bound is what one bare dgemm of the step's size allocates.
func TestThinRankOneAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(79, 80))
	const n, r, steps = 300, 40, 10
	var th Thin
	th.SetOptions(Options{Workers: 2, Serial: 64})
	th.SetTruncation(Truncation{Rank: r, Floor: math.Inf(-1)})
	th.Reserve(n, r+2)
	vals := make([]float64, r)
	for i := range vals {
		vals[i] = 1 + rng.Float64()
	}
	if err := th.SetEigen(vals, orthonormal(n, r, false, rng)); err != nil {
		t.Fatal(err)
	}
	wide := mat.NewDense(n, 3, nil)
	vs := make([][]float64, steps+1)
	for i := range vs {
		vs[i] = randVector(n, rng)
	}
	var h mat.VecDense
	step := 0
	contiguous := testing.AllocsPerRun(steps, func() {
		if err := th.RankOne(0.5, header(&h, vs[step%len(vs)])); err != nil {
			t.Fatal(err)
		}
		step++
	})
	col := wide.ColView(1)
	strided := testing.AllocsPerRun(steps, func() {
		wide.SetCol(1, vs[step%len(vs)]) // no allocation: a copy into the matrix
		if err := th.RankOne(-0.25, col); err != nil {
			t.Fatal(err)
		}
		step++
	})
	if _, k := th.Dims(); k != r {
		t.Fatalf("%d pairs after the steps, want %d", k, r)
	}
	g := blas64.General{Rows: n, Cols: r + 1, Stride: r + 1, Data: make([]float64, n*(r+1))}
	c := blas64.General{Rows: n, Cols: r + 1, Stride: r + 1, Data: make([]float64, n*(r+1))}
	hh := blas64.General{Rows: r + 1, Cols: r + 1, Stride: r + 1, Data: make([]float64, (r+1)*(r+1))}
	gemm := testing.AllocsPerRun(steps, func() { native.Gemm(blas.NoTrans, blas.Trans, 1, g, hh, 0, c) })
	t.Logf("allocations per RankOne: contiguous %v, strided %v; a bare dgemm %v (%s)", contiguous, strided, gemm, native.Compiled)
	if contiguous > gemm || strided > gemm {
		t.Errorf("RankOne allocates %v (contiguous), %v (strided); a bare dgemm %v", contiguous, strided, gemm)
	}
	if native.Compiled == "openblas" && (contiguous != 0 || strided != 0) {
		t.Errorf("with OpenBLAS RankOne must not allocate: %v, %v", contiguous, strided)
	}
}

// FuzzThinRankOne starts a Thin as FuzzThin does (decodeThin: small positive
// semi-definite matrices, exact or at a rank; centred, its V spans part of 1⊥ and k may
// be n−1, a hyperplane) and runs up to three updates on it, RankOne (ρ and v from the
// numbers that follow) or, for an op byte divisible by 3, an uncentred Border (e = nil,
// f = 1), checking each against its dense definition (rankOneChecked, borderChecked).
// v is not centred: a centred Border would need V ⊥ 1 exactly, which a RankOne of a v
// centred only to rounding does not keep (1ᵀv of the order of ε·‖v‖·√n turns the
// vectors towards 1 by up to that over the gap next to their eigenvalue: the fuzzer
// found a centred Border after such a RankOne 2% above its tolerance), so the updates
// here are those of a Thin of Rⁿ.
func FuzzThinRankOne(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 1, 64, 0, 0, 64, 64, 64, 64})
	f.Add([]byte{0x80 | 3, 2, 1, 3, 2, 64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 200, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{5, 3, 1, 2, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 130, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, th, nums, ok := startThin(t, data)
		if !ok {
			return
		}
		for _, op := range c.ops {
			n, k := th.Dims()
			tol := 64 * float64(max(n, k)+7) * eps
			if len(nums) < n+1 {
				return
			}
			x := nums[:n+1]
			nums = nums[n+1:]
			if op%3 == 0 {
				borderChecked(t, "fuzz", th, x[:n], nil, 1, x[n], tol, false)
				continue
			}
			rankOneChecked(t, "fuzz", th, x[n], x[:n], tol, false)
		}
	})
}
