package update

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

func TestMain(m *testing.M) {
	native.Use()
	m.Run()
}

// TestSingleUpdates: one update on random matrices of several sizes, both signs of ρ,
// against a fresh batch decomposition.
func TestSingleUpdates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 3, 5, 20, 150, 400} {
		a := synth.RandomSym(n, rng)
		s := factorized(t, a)
		checkSym(t, "factorize", s, a, 4)
		base := snap(s)

		for _, rho := range []float64{2.5, -0.75, 1e-12, -1e6} {
			s2 := Sym{}
			s2.CopyFrom(s)
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			if err := s2.RankOne(rho, vd(v)); err != nil {
				t.Fatal(err)
			}
			b := mat.NewSymDense(n, nil)
			b.CopySym(a)
			b.SymRankOne(b, rho, mat.NewVecDense(n, v))
			checkSym(t, "rank-one", &s2, b, 4)
			// Trace invariant: Σλ' = Σλ + ρ‖v‖².
			var before, after, vv float64
			for i := range n {
				before += base.values[i]
				after += s2.values[i]
				vv += v[i] * v[i]
			}
			if d := math.Abs(after - before - rho*vv); d > 16*float64(n)*eps*(math.Abs(before)+math.Abs(rho)*vv+mat.Norm(a, math.Inf(1))) {
				t.Errorf("n=%d rho=%g: trace changed by %.17g, want %.17g", n, rho, after-before, rho*vv)
			}
		}
		if !snap(s).equal(base) {
			t.Errorf("n=%d: CopyFrom source was modified", n)
		}

		// Border with a random new row and column.
		a2 := synth.RandomSym(n+1, rng)
		s3 := Sym{}
		if err := s3.Factorize(synth.Leading(a2, n)); err != nil {
			t.Fatal(err)
		}
		if err := s3.Border(vd(column(a2, n, n)), a2.At(n, n)); err != nil {
			t.Fatal(err)
		}
		checkSym(t, "border", &s3, a2, 4)
	}
}

// TestBorderFromEmpty grows a decomposition from 0×0, one row and column at a time.
func TestBorderFromEmpty(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	a := synth.RandomSym(120, rng)
	var s Sym
	for m := range 120 {
		if err := s.Border(vd(column(a, m, m)), a.At(m, m)); err != nil {
			t.Fatal(err)
		}
		if m < 4 || m%40 == 39 {
			checkSym(t, "border", &s, synth.Leading(a, m+1), 4)
		}
	}
}

// TestLongBorderSequence borders the RBF kernel matrix of the Yeast data (bandwidth by
// the median heuristic) from one point to 1100, one point at a time, checking
// interlacing and the trace at every step and the full decomposition against a fresh
// batch one along the way. Yeast has 31 pairs of duplicate rows, so the kernel matrix
// is rank-deficient and deflation is exercised throughout.
func TestLongBorderSequence(t *testing.T) {
	m := 1100
	if testing.Short() || raceEnabled {
		m = 250
	}
	x := data.Yeast().X
	k := rbf(x.Slice(0, m, 0, 8), medianDistance(t, x))
	var s Sym
	prev := make([]float64, 0, m)
	var deflated, rotated, iters, roots int
	trace := 0.0
	for j := range m {
		if err := s.Border(vd(column(k, j, j)), k.At(j, j)); err != nil {
			t.Fatalf("step %d: %v", j, err)
		}
		st := s.Stats()
		deflated += st.Deflated
		rotated += st.Rotated
		iters += st.Iterations
		roots += st.Secular
		values := s.Values(nil)
		// Cauchy interlacing, λᵢ(new) ≤ λᵢ(old) ≤ λᵢ₊₁(new), up to what deflation may
		// neglect: weights of at most TOL = 64ε·σ each, σ = max(|λ|, |c|, ‖a‖), which
		// together perturb the matrix by up to (√deflated + 2)·TOL.
		sigma := math.Max(math.Max(values[j], k.At(j, j)), norm(column(k, j, j)))
		tol := (math.Sqrt(float64(st.Deflated)) + 2) * 64 * eps * sigma
		for i, v := range prev {
			if values[i] > v+tol || v > values[i+1]+tol {
				t.Fatalf("step %d: interlacing fails at %d: %.17g ≤ %.17g ≤ %.17g (tolerance %.3g)", j, i, values[i], v, values[i+1], tol)
			}
		}
		trace += k.At(j, j)
		var sum float64
		for _, v := range values {
			sum += v
		}
		if d := math.Abs(sum - trace); d > 8*float64(j+1)*eps*trace {
			t.Fatalf("step %d: Σλ = %.17g, trace %.17g", j, sum, trace)
		}
		prev = append(prev[:0], values...)
		if j+1 == 100 || j+1 == 500 || j+1 == m {
			r, o, e := checkSym(t, "yeast", &s, synth.Leading(k, j+1), 16)
			t.Logf("m = %4d: residual %.2e, orthogonality %.2e, eigenvalue error %.2e·‖K‖ (nε = %.2e)", j+1, r, o, e, float64(j+1)*eps)
		}
	}
	t.Logf("%d steps: %d components deflated (%d by rotation), %.2f iterations per root",
		m, deflated, rotated, float64(iters)/float64(roots))
}

// TestRankDeficientGrowth borders the kernel matrix of a handful of distinct points
// repeated many times: every new row duplicates an earlier one, the matrix has rank ≤ 12,
// and almost every component deflates at every step. No point may be dropped.
func TestRankDeficientGrowth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	y := data.Yeast().X
	const m, distinctRows = 240, 12
	x := mat.NewDense(m, 8, nil)
	for i := range m {
		x.SetRow(i, y.RawRowView(rng.IntN(distinctRows)))
	}
	k := rbf(x, 0.3)
	var s Sym
	for j := range m {
		if err := s.Border(vd(column(k, j, j)), k.At(j, j)); err != nil {
			t.Fatalf("step %d: %v", j, err)
		}
	}
	checkSym(t, "duplicates", &s, k, 2)
	values := s.Values(nil)
	nonzero := 0
	for _, v := range values {
		if v > 1e-10*values[m-1] {
			nonzero++
		}
	}
	if nonzero > distinctRows {
		t.Errorf("%d non-zero eigenvalues for %d distinct points", nonzero, distinctRows)
	}
	// The all-ones matrix of one point repeated: eigenvalues 0 (m−1 times) and m.
	var ones Sym
	for j := range 200 {
		a := make([]float64, j)
		for i := range a {
			a[i] = 1
		}
		if err := ones.Border(vd(a), 1); err != nil {
			t.Fatal(err)
		}
	}
	v := ones.Values(nil)
	if math.Abs(v[199]-200) > 1e-12*200 || math.Abs(v[0]) > 1e-12*200 || math.Abs(v[198]) > 1e-12*200 {
		t.Errorf("all-ones 200×200: extreme eigenvalues %g, %g, %g", v[0], v[198], v[199])
	}
}

// TestRankOneSequence applies many rank-one updates of both signs, then removes them
// again in reverse order: the spectrum must come back.
func TestRankOneSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n := 200
	a := synth.RandomSym(n, rng)
	s := factorized(t, a)
	orig := s.Values(nil)
	b := mat.NewSymDense(n, nil)
	b.CopySym(a)
	type upd struct {
		rho float64
		v   []float64
	}
	var ups []upd
	for i := range 60 {
		v := make([]float64, n)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		if i%7 == 3 {
			v = mat.Col(nil, n/2, s.Vectors()) // along an eigenvector
		}
		// |ρ|‖v‖² stays within a small multiple of ‖A‖, so that the rounding errors,
		// of the order of ε times the intermediate norms, are comparable to ε‖A‖.
		rho := rng.NormFloat64() * math.Pow(10, -float64(rng.IntN(3))) / 10
		if err := s.RankOne(rho, vd(v)); err != nil {
			t.Fatal(err)
		}
		b.SymRankOne(b, rho, mat.NewVecDense(n, v))
		ups = append(ups, upd{rho, v})
	}
	checkSym(t, "60 updates", s, b, 8)
	for i := len(ups) - 1; i >= 0; i-- {
		if err := s.RankOne(-ups[i].rho, vd(ups[i].v)); err != nil {
			t.Fatal(err)
		}
	}
	back := s.Values(nil)
	norm := math.Max(math.Abs(orig[0]), math.Abs(orig[n-1]))
	if d := testmat.MaxAbsDiff(orig, back); d > 1e-11*norm {
		t.Errorf("after undoing 60 updates the eigenvalues moved by %.3g", d)
	}
	checkSym(t, "undone", s, a, 64)
}

// TestNearSingularDowndate removes most of the weight of the top eigenvector, the
// kind of downdate that produces tiny eigenvalues.
func TestNearSingularDowndate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 80
	values := make([]float64, n)
	for i := range values {
		values[i] = float64(i + 1)
	}
	a, q := synth.SymWithSpectrum(values, rng)
	var s Sym
	if err := s.SetEigen(values, q); err != nil {
		t.Fatal(err)
	}
	top := mat.Col(nil, n-1, q)
	rho := -(float64(n) - 1e-9)
	if err := s.RankOne(rho, vd(top)); err != nil {
		t.Fatal(err)
	}
	b := mat.NewSymDense(n, nil)
	b.CopySym(a)
	b.SymRankOne(b, rho, mat.NewVecDense(n, top))
	checkSym(t, "downdate", &s, b, 4)
	if v := s.Values(nil)[0]; math.Abs(v-1e-9) > 1e-13 {
		t.Errorf("smallest eigenvalue %.17g, want 1e-9", v)
	}
}

func norm(x []float64) float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	return math.Sqrt(ss)
}

// TestCopyHoldsOneBuffer checks that a Sym that is only copied into holds one n×n
// matrix, and that its first update allocates the second and gives the same result,
// bit for bit, as the same update of the source.
func TestCopyHoldsOneBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := synth.RandomSym(30, rng)
	src := factorized(t, a)
	v := make([]float64, 30)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	for _, step := range []func(*Sym) error{
		func(s *Sym) error { return s.RankOne(-0.4, vd(v)) },
		func(s *Sym) error { return s.Border(vd(v), 0.5) },
	} {
		var cp, ref Sym
		cp.CopyFrom(src)
		ref.CopyFrom(src)
		if len(cp.spare) != 0 || len(cp.u) < 30*30 {
			t.Fatalf("a copy holds %d + %d floats", len(cp.u), len(cp.spare))
		}
		if !snap(&cp).equal(snap(src)) {
			t.Fatal("copy differs from its source")
		}
		if err := step(&cp); err != nil {
			t.Fatal(err)
		}
		if len(cp.spare) < cp.capN*cp.capN {
			t.Errorf("no second buffer after an update: %d floats", len(cp.spare))
		}
		ref.Reserve(31)
		if err := step(&ref); err != nil {
			t.Fatal(err)
		}
		if !snap(&cp).equal(snap(&ref)) {
			t.Error("the copy's update differs from the reserved one's")
		}
	}
}
