package update

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// without returns a with row and column i deleted.
func without(a mat.Symmetric, i int) *mat.SymDense {
	n := a.SymmetricDim()
	if n == 1 {
		return &mat.SymDense{}
	}
	b := mat.NewSymDense(n-1, nil)
	for r := range n - 1 {
		for c := r; c < n-1; c++ {
			b.SetSym(r, c, a.At(r+btoi(r >= i), c+btoi(c >= i)))
		}
	}
	return b
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// spectralNorm returns max|λ| of the decomposition, ‖A‖₂.
func spectralNorm(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	return math.Max(math.Abs(values[0]), math.Abs(values[len(values)-1]))
}

// removal records a decomposition before a Remove, to check the step.
type removal struct {
	values []float64
	aii    float64 // the removed diagonal entry
	norm   float64 // ‖A‖₂ before the removal
	// batchMayFail lets the comparison with the batch eigensolver be skipped when the
	// batch result is itself wrong (its residual fails): gonum v0.17's Dsyev returns an
	// eigenvalue of 2e121 for a 6×6 matrix of norm 0.5 with entries down to 1e-323, and
	// one of 1.3e-12 (residual 2.5e-12) where the eigenvalue is 1.2e-67, which FuzzRemove
	// found (and 6.9e-14 with residual 1.4e-13, within what the comparison allows for
	// the batch's own error). The residual and orthogonality of the update are still
	// checked.
	batchMayFail bool
	// inputResidual and inputOrth are the residual (relative to ‖A‖) and orthogonality
	// of the decomposition removed from, when they may exceed c·n·ε (FuzzRemove, with
	// gonum's Dsyev): the removal inherits them.
	inputResidual, inputOrth float64
}

func before(s *Sym, a mat.Symmetric, i int) removal {
	v := s.Values(nil)
	return removal{values: v, aii: a.At(i, i), norm: spectralNorm(v)}
}

// checkRemoved checks s after removing a row and column from the matrix recorded in r:
// against a fresh batch decomposition of b, the matrix left, with the errors measured
// relative to ‖A‖ before the removal — the backward error of the step is O(ε‖A‖), and b
// can be much smaller than A (when the point removed carried the dominant component).
// Tolerances are c·(n+4)·ε: the residual ‖B·U − U·Λ‖_F/‖A‖₂ and the eigenvalue errors
// of a backward-stable step grow like n·ε, and the orthogonality max|UᵀU − I| too (Gu
// and Eisenstat); the 4 covers the few roundings per entry that do not depend on n,
// which dominate for n ≤ 3 (where the decomposition removed from has them already).
// Residual and eigenvalues may in addition be off by what deflation neglects, up to
// 128ε·‖A‖ per deflated component (secular.Solver.Restrict), counted as (√deflated + 2)
// such terms: the pieces act on mostly disjoint coordinates. It also checks Cauchy interlacing with the old eigenvalues, the trace
// (Σμ = Σλ − A_ii) and the deleted row (Stats().Removed). It returns the measures.
func checkRemoved(t *testing.T, what string, s *Sym, b mat.Symmetric, r removal, c float64) (residual, orth, valueErr float64) {
	t.Helper()
	n := b.SymmetricDim()
	if s.Len() != n {
		t.Fatalf("%s: Len %d, want %d", what, s.Len(), n)
	}
	st := s.Stats()
	if st.Op != "remove" || st.Size != n || st.Deflated+st.Secular != n {
		t.Errorf("%s: stats %+v", what, st)
	}
	values := s.Values(nil)
	if !slices.IsSorted(values) {
		t.Errorf("%s: values not ascending", what)
	}
	norm := math.Max(r.norm, math.SmallestNonzeroFloat64)
	tol := c * float64(n+4) * eps
	deflation := 0.0
	if st.Deflated > 0 {
		deflation = (math.Sqrt(float64(st.Deflated)) + 2) * 128 * eps
	}
	slack := (deflation + tol) * norm
	for k, v := range values {
		if r.values[k] > v+slack || v > r.values[k+1]+slack {
			t.Errorf("%s: interlacing fails at %d: %.17g ≤ %.17g ≤ %.17g", what, k, r.values[k], v, r.values[k+1])
		}
	}
	var sumOld, sumNew, abs float64
	for _, v := range r.values {
		sumOld += v
		abs += math.Abs(v)
	}
	for _, v := range values {
		sumNew += v
	}
	// Each value carries the step's error (of the order of tol·‖A‖) and the sums add
	// n roundings of their terms; the old values describe A only to the input's residual,
	// which can move the trace by n times it.
	if d := math.Abs(sumNew - (sumOld - r.aii)); d > 2*tol*(abs+math.Abs(r.aii))+float64(n+1)*r.inputResidual*norm {
		t.Errorf("%s: Σμ = %.17g, Σλ − A_ii = %.17g", what, sumNew, sumOld-r.aii)
	}
	// The deleted row: O(nε) for secular vectors, ≤ 64ε for deflated ones.
	if !(st.Removed <= 64*eps+tol) {
		t.Errorf("%s: the deleted row has an entry %.3g", what, st.Removed)
	}
	if n == 0 {
		return 0, 0, 0
	}
	var u mat.Dense
	s.VectorsTo(&u)
	residual, orth = pairResidual(b, values, &u, norm)
	// With vectors: gonum v0.17's values-only path (Dsterf) panics on matrices of norm
	// below about 1e-146 — it passes n as the leading dimension of a vector to Dlascl.
	var batchVectors mat.Dense
	want, err := native.EigenSym(nil, &batchVectors, b)
	if err != nil {
		t.Fatal(err)
	}
	// The batch eigenvalues are within their residual of the exact ones (Weyl; ‖B‖ ≤ ‖A‖
	// by interlacing), which is of the order of n·ε for a good solver: it widens the
	// tolerance. A residual far above is no reference.
	br := testmat.Residual(b, want, &batchVectors)
	if !(br <= 16*tol) {
		if !r.batchMayFail {
			t.Fatalf("%s: the batch eigensolver's residual is %.3g", what, br)
		}
		t.Logf("%s: the batch eigensolver failed (residual %.3g); values not compared", what, br)
		want, br = values, 0
	}
	valueErr = testmat.MaxAbsDiff(values, want) / norm
	if lim := tol + deflation + r.inputResidual; !(residual <= lim) {
		t.Errorf("%s: residual %.3g·‖A‖ > %.3g", what, residual, lim)
	}
	if lim := tol + r.inputOrth; !(orth <= lim) {
		t.Errorf("%s: orthogonality %.3g > %.3g", what, orth, lim)
	}
	if lim := tol + deflation + br + r.inputResidual; !(valueErr <= lim) {
		t.Errorf("%s: eigenvalues differ from batch by %.3g·‖A‖ > %.3g", what, valueErr, lim)
	}
	return residual, orth, valueErr
}

// removeChecked removes row i from s, which decomposes a, and checks the result; it
// returns the matrix left.
func removeChecked(t *testing.T, what string, s *Sym, a mat.Symmetric, i int, c float64) *mat.SymDense {
	t.Helper()
	r := before(s, a, i)
	if err := s.Remove(i); err != nil {
		t.Fatalf("%s: Remove(%d): %v", what, i, err)
	}
	b := without(a, i)
	checkRemoved(t, what, s, b, r, c)
	return b
}

// TestRemoveRandom removes the first, a middle and the last row of random symmetric
// matrices of several sizes.
func TestRemoveRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for _, n := range []int{1, 2, 3, 5, 20, 150, 400} {
		a := synth.RandomSym(n, rng)
		base := factorized(t, a)
		for _, i := range []int{0, n / 2, n - 1} {
			var s Sym
			s.CopyFrom(base)
			removeChecked(t, "random", &s, a, i, 4)
		}
	}
}

// householder returns the orthogonal, symmetric H = I − 2vvᵀ/vᵀv with v = u + s·eᵢ for
// the unit vector u = z/‖z‖ (z ≠ 0), s = ±1 the sign of uᵢ (no cancellation), which maps
// u to −s·eᵢ: its row i is −s·uᵀ.
func householder(z []float64, i int) *mat.Dense {
	n := len(z)
	var zz float64
	for _, x := range z {
		zz += x * x
	}
	v := make([]float64, n)
	for j, x := range z {
		v[j] = x / math.Sqrt(zz)
	}
	v[i] += math.Copysign(1, v[i])
	vv := 0.0
	for _, x := range v {
		vv += x * x
	}
	h := mat.NewDense(n, n, nil)
	for r := range n {
		for c := range n {
			e := 0.0
			if r == c {
				e = 1
			}
			if vv > 0 {
				e -= 2 * v[r] * v[c] / vv
			}
			h.Set(r, c, e)
		}
	}
	return h
}

// TestRemoveAdversarial poses the secular solver's hard cases as removals: the matrix
// H·diag(d)·H, H the reflection whose row i is z/‖z‖, so that removing row i is the
// restriction of diag(d) to z⊥ exactly as given (equal and clustered eigenvalues, tiny
// and zero weights, LAPACK issue #1166, the spectrum of a kernel matrix).
func TestRemoveAdversarial(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	type problem struct {
		name string
		d, z []float64
	}
	n := 40
	uniform := func() []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = 2*rng.Float64() - 1
		}
		slices.Sort(d)
		return d
	}
	normal := func() []float64 {
		z := make([]float64, n)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		return z
	}
	var problems []problem
	problems = append(problems, problem{"issue1166", oracle.Issue1166.D, oracle.Issue1166.Z})
	{
		d := uniform()
		for i := 1; i < n; i += 3 {
			d[i] = d[i-1]
		}
		problems = append(problems, problem{"equal", d, normal()})
	}
	{
		d := uniform()
		for i := 1; i < n; i++ {
			if i%5 != 0 {
				d[i] = d[i-1] * (1 + 1e-12)
			}
		}
		slices.Sort(d)
		problems = append(problems, problem{"cluster1e-12", d, normal()})
	}
	{
		z := normal()
		for i := range z {
			z[i] *= math.Pow(10, -float64(i%17))
		}
		problems = append(problems, problem{"graded", uniform(), z})
	}
	{
		z := normal()
		for i := 0; i < n; i += 2 {
			z[i] = 0
		}
		problems = append(problems, problem{"zeros", uniform(), z})
	}
	{
		d := make([]float64, n)
		for i := range d {
			d[n-1-i] = math.Exp(-float64(i) * 40 / float64(n))
		}
		problems = append(problems, problem{"kernel", d, normal()})
	}
	{
		z := make([]float64, n)
		z[7] = 1
		problems = append(problems, problem{"one-component", uniform(), z})
	}
	for _, p := range problems {
		m := len(p.d)
		for _, i := range []int{0, m / 3} {
			h := householder(p.z, i)
			var s Sym
			if err := s.SetEigen(p.d, h); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			a := synth.Reconstruct(p.d, h)
			r := removal{values: slices.Clone(p.d), aii: a.At(i, i), norm: spectralNorm(p.d)}
			if err := s.Remove(i); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			// Forming a = H·diag(d)·H costs O(nε‖A‖) of its own; the test allows it.
			res, orth, ve := checkRemoved(t, p.name, &s, without(a, i), r, 8)
			t.Logf("%-14s i=%2d: residual %.2e, orthogonality %.2e, eigenvalue error %.2e·‖A‖, deleted row %.2e, %d deflated (%d rotated)",
				p.name, i, res, orth, ve, s.Stats().Removed, s.Stats().Deflated, s.Stats().Rotated)
		}
	}
}

// TestRemoveStructured covers the cases with a known answer: a point that alone carries
// a component (block-diagonal A), a duplicated point, and n = 1, 2, 3.
func TestRemoveStructured(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	// Block-diagonal: point 4 is decoupled with A₄₄ = 100, the largest eigenvalue.
	// Removing it leaves the other block's eigenvalues, and its own disappears.
	n := 9
	a := mat.NewSymDense(n, nil)
	blk := synth.RandomSym(n-1, rng)
	for r := range n - 1 {
		for c := r; c < n-1; c++ {
			a.SetSym(r+btoi(r >= 4), c+btoi(c >= 4), blk.At(r, c))
		}
	}
	a.SetSym(4, 4, 100)
	s := factorized(t, a)
	removeChecked(t, "alone", s, a, 4, 4)
	want, err := native.EigenSym(nil, nil, blk)
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Secular != 0 || st.Deflated != n-1 {
		t.Errorf("alone: %d secular roots, %d deflated; want all deflated", st.Secular, st.Deflated)
	}
	// Nothing is solved: the values are the other block's as Factorize found them, up to
	// dsyevd's own accuracy.
	if d := testmat.MaxAbsDiff(s.Values(nil), want); d > 8*float64(n)*eps*100 {
		t.Errorf("alone: eigenvalues moved by %.3g", d)
	}

	// A duplicated point: the kernel matrix has two equal rows (one zero eigenvalue);
	// removing either copy leaves the kernel matrix of the distinct points.
	x := mat.DenseCopyOf(data.Yeast().X.Slice(0, 30, 0, 8))
	x.SetRow(17, x.RawRowView(5))
	k := rbf(x, 0.3)
	for _, i := range []int{5, 17} {
		s := factorized(t, k)
		left := removeChecked(t, "duplicate", s, k, i, 4)
		// Both removals leave the same matrix up to a permutation: the same spectrum.
		if i == 17 {
			x2 := mat.NewDense(29, 8, nil)
			for r, src := 0, 0; src < 30; src++ {
				if src != 17 {
					x2.SetRow(r, x.RawRowView(src))
					r++
				}
			}
			// kernel.Matrix is accurate to 1e-13 of each value (docs/design.md, "Kernel
			// blocks"), not bit for bit the same for another set of rows.
			if !mat.EqualApprox(left, rbf(x2, 0.3), 1e-13) {
				t.Error("duplicate: the matrix left is not the kernel matrix of the other points")
			}
		}
	}

	// n = 1 → empty; n = 2 → the other diagonal entry; n = 3.
	for _, m := range []int{1, 2, 3} {
		a := synth.RandomSym(m, rng)
		for i := range m {
			s := factorized(t, a)
			norm := spectralNorm(s.Values(nil))
			removeChecked(t, "small", s, a, i, 4)
			if m == 2 {
				if v := s.Values(nil)[0]; math.Abs(v-a.At(1-i, 1-i)) > 8*eps*norm {
					t.Errorf("2×2: removing %d leaves %.17g, want %.17g", i, v, a.At(1-i, 1-i))
				}
			}
		}
	}
}

// TestRemoveDownToEmpty removes random rows one at a time until nothing is left, from a
// random matrix and from a rank-deficient kernel matrix (Yeast, with duplicate rows),
// checking every step against a fresh batch decomposition.
func TestRemoveDownToEmpty(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 24))
	y := data.Yeast().X
	x := mat.NewDense(60, 8, nil)
	for i := range 60 {
		x.SetRow(i, y.RawRowView(rng.IntN(40))) // about 20 duplicates
	}
	for _, c := range []struct {
		name string
		a    *mat.SymDense
	}{{"random", synth.RandomSym(60, rng)}, {"kernel", rbf(x, medianDistance(t, y))}} {
		var s Sym
		if err := s.Factorize(c.a); err != nil {
			t.Fatal(err)
		}
		a := c.a
		var deflated, worst float64
		for s.Len() > 0 {
			// The errors of the earlier steps, of order 60·ε·‖A‖, stay as n shrinks: the
			// tolerance is that of the first step.
			a = removeChecked(t, c.name, &s, a, rng.IntN(s.Len()), 4*64/float64(s.Len()+3))
			deflated += float64(s.Stats().Deflated)
			worst = math.Max(worst, s.Stats().Removed)
		}
		if err := s.Remove(0); !errors.Is(err, ErrIndex) {
			t.Errorf("%s: Remove on an empty decomposition: %v", c.name, err)
		}
		t.Logf("%s: 60 removals, %.0f components deflated, largest deleted-row entry %.2e", c.name, deflated, worst)
	}
}

// TestBorderRemoveRoundTrip grows the RBF kernel matrices of Yeast and MAGIC points by
// Border and removes points again (the oldest, as a sliding window does, and random
// ones): the decomposition must equal a batch one of the points left at every check,
// and bordering a point then removing it must give back the spectrum.
func TestBorderRemoveRoundTrip(t *testing.T) {
	steps := 300
	if testing.Short() || raceEnabled {
		steps = 80
	}
	for _, ds := range []struct {
		name string
		x    *mat.Dense
	}{{"yeast", data.Yeast().X}, {"magic", data.Magic().X}} {
		rng := rand.New(rand.NewPCG(25, 25))
		sigma := medianDistance(t, ds.x)
		_, d := ds.x.Dims()
		const w = 60
		var s Sym
		var pts []int // the rows of x in the current matrix, in order
		kernelOf := func(pts []int) *mat.SymDense {
			sub := mat.NewDense(len(pts), d, nil)
			for r, p := range pts {
				sub.SetRow(r, ds.x.RawRowView(p))
			}
			return rbf(sub, sigma)
		}
		col := make([]float64, 0, w+1)
		var worst [3]float64
		for step := range steps {
			p := step
			// Border with point p.
			k := kernelOf(append(slices.Clone(pts), p))
			col = col[:0]
			for r := range pts {
				col = append(col, k.At(r, len(pts)))
			}
			if err := s.Border(vd(col), k.At(len(pts), len(pts))); err != nil {
				t.Fatalf("%s step %d: %v", ds.name, step, err)
			}
			pts = append(pts, p)
			if len(pts) <= w {
				continue
			}
			// Remove the oldest point, or now and then a random one.
			i := 0
			if step%5 == 4 {
				i = rng.IntN(len(pts))
			}
			r := before(&s, k, i)
			if err := s.Remove(i); err != nil {
				t.Fatalf("%s step %d: %v", ds.name, step, err)
			}
			pts = slices.Delete(pts, i, i+1)
			if step%20 == 0 || step == steps-1 {
				res, orth, ve := checkRemoved(t, ds.name, &s, kernelOf(pts), r, 8)
				worst = [3]float64{math.Max(worst[0], res), math.Max(worst[1], orth), math.Max(worst[2], ve)}
			}
		}
		t.Logf("%s: %d steps in a window of %d: worst residual %.2e·‖K‖, orthogonality %.2e, eigenvalue error %.2e·‖K‖",
			ds.name, steps, w, worst[0], worst[1], worst[2])

		// Add a point and remove it: the spectrum comes back.
		old := s.Values(nil)
		k := kernelOf(append(slices.Clone(pts), steps))
		col = col[:0]
		for r := range pts {
			col = append(col, k.At(r, len(pts)))
		}
		if err := s.Border(vd(col), k.At(len(pts), len(pts))); err != nil {
			t.Fatal(err)
		}
		if err := s.Remove(len(pts)); err != nil {
			t.Fatal(err)
		}
		if dv := testmat.MaxAbsDiff(old, s.Values(nil)); dv > 16*float64(len(pts))*eps*spectralNorm(old) {
			t.Errorf("%s: border then remove moved the eigenvalues by %.3g", ds.name, dv)
		}
	}
}

// TestProductFollowsRemove carries P = B·U, B the kernel columns of all points against
// the landmarks, through Borders and Removes of landmarks: P must equal B·U computed
// directly, with B losing the removed landmark's column.
func TestProductFollowsRemove(t *testing.T) {
	y := data.Yeast().X
	const n, m = 200, 80
	x := mat.NewDense(n, 8, nil)
	for i := range n {
		x.SetRow(i, y.RawRowView(i%67)) // duplicates: deflation and rotations
	}
	k := rbf(x, 4*medianDistance(t, y))
	var s Sym
	var p Product
	p.Reset(n)
	var landmarks []int
	b := make([]float64, n)
	rng := rand.New(rand.NewPCG(26, 26))
	var deflated int
	for j := range m {
		for i := range n {
			b[i] = k.At(i, j)
		}
		a := make([]float64, len(landmarks))
		for r, l := range landmarks {
			a[r] = k.At(l, j)
		}
		if err := s.BorderWith(vd(a), k.At(j, j), &p, vd(b)); err != nil {
			t.Fatal(err)
		}
		landmarks = append(landmarks, j)
		if j%3 != 2 {
			continue
		}
		i := rng.IntN(len(landmarks))
		if err := s.RemoveWith(i, &p); err != nil {
			t.Fatal(err)
		}
		deflated += s.Stats().Deflated
		landmarks = slices.Delete(landmarks, i, i+1)
		bm := mat.NewDense(n, len(landmarks), nil)
		for c, l := range landmarks {
			for r := range n {
				bm.Set(r, c, k.At(r, l))
			}
		}
		var want, got, diff mat.Dense
		want.Mul(bm, s.Vectors())
		p.To(&got)
		diff.Sub(&got, &want)
		if e := mat.Norm(&diff, 2) / mat.Norm(&want, 2); e > 1e-13 {
			t.Errorf("step %d: ‖P − B·U‖/‖B·U‖ = %.3g", j, e)
		}
	}
	if deflated == 0 {
		t.Error("no deflation exercised")
	}
}

// TestRemoveBadInput: rejected calls leave the decomposition and the product bit for bit
// as they were, and the next valid call works.
func TestRemoveBadInput(t *testing.T) {
	var empty Sym
	if err := empty.Remove(0); !errors.Is(err, ErrIndex) {
		t.Errorf("empty: %v", err)
	}
	rng := rand.New(rand.NewPCG(27, 27))
	n := 12
	a := synth.RandomSym(n, rng)
	s := factorized(t, a)
	var p Product
	if err := p.Mul(synth.RandomSym(n, rng), s); err != nil {
		t.Fatal(err)
	}
	var short Product
	if err := short.Mul(mat.NewDense(3, n, nil), s); err != nil {
		t.Fatal(err)
	}
	short.n-- // a product that no longer matches the decomposition
	pb := slices.Clone(p.p[:n*n])
	for _, c := range []struct {
		name string
		call func() error
		want error
	}{
		{"negative", func() error { return s.Remove(-1) }, ErrIndex},
		{"too large", func() error { return s.Remove(n) }, ErrIndex},
		{"product width", func() error { return s.RemoveWith(0, &short) }, ErrDimension},
		{"index with product", func() error { return s.RemoveWith(n+3, &p) }, ErrIndex},
	} {
		before := snap(s)
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if !snap(s).equal(before) || !slices.Equal(p.p[:n*n], pb) || p.n != n {
			t.Errorf("%s: state changed", c.name)
		}
	}
	removeChecked(t, "after errors", s, a, 3, 4)
}

// TestRemoveNonConvergence forces the root finder's iteration cap on the removal
// problem of LAPACK issue #1166 and checks that the failure is reported and the state
// untouched.
func TestRemoveNonConvergence(t *testing.T) {
	p := oracle.Issue1166
	m := len(p.D)
	h := householder(p.Z, 0)
	var s Sym
	if err := s.SetEigen(p.D, h); err != nil {
		t.Fatal(err)
	}
	var prod Product
	if err := prod.Mul(mat.NewDense(2, m, nil), &s); err != nil {
		t.Fatal(err)
	}
	s.SetOptions(Options{MaxIterations: 1})
	was := snap(&s)
	if err := s.RemoveWith(0, &prod); !errors.Is(err, secular.ErrNotConverged) {
		t.Errorf("got %v, want ErrNotConverged", err)
	}
	if !snap(&s).equal(was) || prod.n != m {
		t.Fatal("state changed")
	}
	s.SetOptions(Options{})
	a := synth.Reconstruct(p.D, h)
	r := removal{values: slices.Clone(p.D), aii: a.At(0, 0), norm: spectralNorm(p.D)}
	if err := s.RemoveWith(0, &prod); err != nil {
		t.Fatal(err)
	}
	checkRemoved(t, "issue 1166", &s, without(a, 0), r, 8)
}

// TestRemoveAllocations: once the capacity suffices, Remove allocates nothing of its
// own, alone and in a window step (Border then Remove). With OpenBLAS that means zero;
// gonum's pure-Go dgemm allocates for its goroutines, so there the bound is what one
// bare dgemm of the same size allocates.
func TestRemoveAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 28))
	n, steps := 300, 10
	a := synth.RandomSym(n+1, rng)
	var s Sym
	s.SetOptions(Options{Workers: 2, Serial: 64})
	s.Reserve(n + 1)
	if err := s.Factorize(synth.Leading(a, n)); err != nil {
		t.Fatal(err)
	}
	col := column(a, n, n)
	var h mat.VecDense // a header kept outside the step, as a library caller keeps it
	window := func() {
		if err := s.Border(header(&h, col[:s.Len()]), a.At(n, n)); err != nil {
			t.Fatal(err)
		}
		if err := s.Remove(s.Len() / 2); err != nil {
			t.Fatal(err)
		}
	}
	window() // warm the solver's workspace for both kinds of update
	step := testing.AllocsPerRun(steps, window)
	remove := testing.AllocsPerRun(steps, func() {
		if err := s.Remove(s.Len() / 3); err != nil {
			t.Fatal(err)
		}
	})
	g := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	c := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	gemm := testing.AllocsPerRun(steps, func() {
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, g, g, 0, c)
	})
	t.Logf("allocations: window step %v, Remove %v; one bare dgemm %v (%s)", step, remove, gemm, native.Active().Name)
	if step > 2*gemm || remove > gemm {
		t.Errorf("a window step allocates %v, Remove %v; a bare dgemm %v", step, remove, gemm)
	}
	if native.Active().Name == "openblas" && (step != 0 || remove != 0) {
		t.Errorf("with OpenBLAS: window step %v, Remove %v allocations", step, remove)
	}
}
