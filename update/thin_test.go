package update

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// thinDense returns the matrix a Thin represents, V·diag(λ)·Vᵀ (n×n).
func thinDense(th *Thin) *mat.SymDense {
	n, k := th.Dims()
	if k == 0 {
		return mat.NewSymDense(max(n, 1), nil) // n = 0 has no gonum matrix; callers check n
	}
	var v mat.Dense
	th.VectorsTo(&v)
	return synth.Reconstruct(th.Values(nil), &v)
}

// borderedDense returns [[A, a], [aᵀ, c]].
func borderedDense(a mat.Symmetric, col []float64, c float64) *mat.SymDense {
	n := len(col)
	b := mat.NewSymDense(n+1, nil)
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, a.At(i, j))
		}
		b.SetSym(i, n, col[i])
	}
	b.SetSym(n, n, c)
	return b
}

// pairResidual returns ‖B·V − V·Λ‖_F/norm for the eigenpairs (values, V) of b, and the
// orthonormality of V (testmat.Orthogonality).
func pairResidual(b mat.Symmetric, values []float64, v *mat.Dense, norm float64) (residual, orth float64) {
	var bv mat.Dense
	bv.Mul(b, v)
	for c, l := range values {
		col := bv.ColView(c).(*mat.VecDense)
		col.AddScaledVec(col, -l, v.ColView(c))
	}
	return mat.Norm(&bv, 2) / norm, testmat.Orthogonality(v)
}

// pairCheck compares the eigenpairs of th with the symmetric matrix b they should be
// the top eigenpairs of: the residual ‖B·V − V·Λ‖_F, the positive eigenvalues against
// the top of a batch decomposition of b (the others against the nearest eigenvalue) (absolute errors, divided by norm: the scale of the
// step, ‖A‖ or ‖B‖), and the orthonormality of V, each within tol. With centred the
// columns must also be orthogonal to 1 (‖Vᵀ1‖/√n within tol). It returns the three
// measures.
func pairCheck(t *testing.T, what string, th *Thin, b mat.Symmetric, norm, tol float64, centred bool) (residual, orth, valueErr float64) {
	t.Helper()
	return pairCheckOrth(t, what, th, b, norm, tol, tol, centred)
}

// pairCheckOrth is pairCheck with its own tolerance for the orthogonality of the
// vectors, for a step that inherits the orthogonality lost by earlier ones: a product
// with vectors orthonormal to working precision keeps that loss and adds its own.
func pairCheckOrth(t *testing.T, what string, th *Thin, b mat.Symmetric, norm, tol, orthTol float64, centred bool) (residual, orth, valueErr float64) {
	t.Helper()
	n, k := th.Dims()
	if b.SymmetricDim() != n && n > 0 {
		t.Fatalf("%s: %d rows, want %d", what, n, b.SymmetricDim())
	}
	values := th.Values(nil)
	if !slices.IsSorted(values) {
		t.Errorf("%s: values not ascending: %v", what, values)
	}
	if n == 0 || k == 0 {
		if n > 0 {
			// Nothing kept: the matrix must have nothing above the tolerance.
			want, err := native.EigenSym(nil, nil, b)
			if err != nil {
				t.Fatal(err)
			}
			if big := want[len(want)-1]; big > tol*norm {
				t.Errorf("%s: no eigenpair kept, the matrix has λ = %.3g", what, big)
			}
		}
		return 0, 0, 0
	}
	var v mat.Dense
	th.VectorsTo(&v)
	residual, orth = pairResidual(b, values, &v, norm)
	want, err := native.EigenSym(nil, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	// The positive values are the top of the spectrum; a negative value kept (a
	// truncation floor of −∞) must be an eigenvalue, the nearest one.
	pos := 0
	for pos < k && values[pos] <= 0 {
		pos++
	}
	valueErr = testmat.MaxAbsDiff(values[pos:], want[len(want)-(k-pos):]) / norm
	for _, l := range values[:pos] {
		near := math.Inf(1)
		for _, w := range want {
			near = math.Min(near, math.Abs(w-l))
		}
		valueErr = math.Max(valueErr, near/norm)
	}
	if !(residual <= tol) {
		t.Errorf("%s: residual %.3g > %.3g", what, residual, tol)
	}
	if !(orth <= orthTol) {
		t.Errorf("%s: orthogonality %.3g > %.3g", what, orth, orthTol)
	}
	if !(valueErr <= tol) {
		t.Errorf("%s: eigenvalues differ from the batch top %d by %.3g > %.3g", what, k, valueErr, tol)
	}
	if centred {
		ones := mat.NewVecDense(n, nil)
		for i := range n {
			ones.SetVec(i, 1)
		}
		var s mat.VecDense
		s.MulVec(v.T(), ones)
		if d := mat.Norm(&s, 2) / math.Sqrt(float64(n)); !(d <= tol) {
			t.Errorf("%s: ‖Vᵀ1‖/√n = %.3g > %.3g", what, d, tol)
		}
	}
	return residual, orth, valueErr
}

// helmertDir returns the new direction of a centred matrix gaining its (n+1)-th row:
// e = α·1ₙ, f = −α·n, α = 1/√(n(n+1)).
func helmertDir(n int) (e []float64, f float64) {
	alpha := 1 / math.Sqrt(float64(n)*float64(n+1))
	e = make([]float64, n)
	for i := range e {
		e[i] = alpha
	}
	return e, -alpha * float64(n)
}

// centredBorder returns the border and corner of a centred matrix gaining a point, in
// the basis of Border: with K the uncentred kernel matrix of the n old points (row sums
// s, total T), a the new kernel column and c its self-kernel,
// b = α(s − n·a), γ = α²(T − 2n·Σa + n²c) (docs/design.md, "Helmert coordinates").
func centredBorder(k mat.Symmetric, n int, a []float64, c float64) (b []float64, gamma float64) {
	alpha := 1 / math.Sqrt(float64(n)*float64(n+1))
	b = make([]float64, n)
	var total, sa float64
	for i := range n {
		var s float64
		for j := range n {
			s += k.At(i, j)
		}
		total += s
		sa += a[i]
		b[i] = alpha * (s - float64(n)*a[i])
	}
	fn := float64(n)
	return b, alpha * alpha * (total - 2*fn*sa + fn*fn*c)
}

// growExact builds the exact Thin of the leading m rows of the kernel matrix k, from
// empty, one Border a row; centred, of C·K·C. It checks every step against a batch
// decomposition at the steps in at.
func growExact(t *testing.T, k *mat.SymDense, m int, centred bool, at func(int) bool) *Thin {
	t.Helper()
	var th Thin
	for n := range m {
		a := column(k, n, n)
		c := k.At(n, n)
		var err error
		switch {
		case !centred:
			err = th.Border(vd(a), nil, 1, c)
		case n == 0:
			th.Grow()
		default:
			b, gamma := centredBorder(k, n, a, c)
			e, f := helmertDir(n)
			err = th.Border(vd(b), vd(e), f, gamma)
		}
		if err != nil {
			t.Fatalf("step %d: %v", n, err)
		}
		if at(n + 1) {
			want := synth.Leading(k, n+1)
			if centred {
				want = kernel.Centre(want)
			}
			vals, err := native.EigenSym(nil, nil, want)
			if err != nil {
				t.Fatal(err)
			}
			norm := math.Max(math.Abs(vals[0]), vals[len(vals)-1])
			pairCheck(t, "grow", &th, want, norm, 16*float64(n+5)*eps, centred)
		}
	}
	return &th
}

// TestThinExact grows an exact Thin of a Yeast kernel matrix, uncentred and centred,
// checking it against batch decompositions, then removes rows (Remove: the first,
// a middle one, the last) and checks again; with the trace, the interlacing and the
// deleted row of each removal. Tolerances are 16·(n+5)·ε relative to ‖A‖: the
// residual, orthogonality and eigenvalue errors of a backward-stable update grow like
// n·ε per step (Gu and Eisenstat), measured here at a few n·ε over hundreds of steps.
func TestThinExact(t *testing.T) {
	m := 160
	if testing.Short() {
		m = 60
	}
	x := data.Yeast().X
	k := rbf(x.Slice(0, m, 0, 8), medianDistance(t, x))
	for _, centred := range []bool{false, true} {
		th := growExact(t, k, m, centred, func(n int) bool { return n <= 4 || n%40 == 0 || n == m })
		cur := synth.Leading(k, m)
		for _, j := range []int{0, m / 2, m - 3, 5} {
			n, _ := th.Dims()
			old := th.Values(nil)
			var v mat.Dense
			th.VectorsTo(&v)
			row := mat.Row(nil, j, &v)
			// The trace falls by zᵀΛz/‖z‖² for z the row: A_jj uncentred (‖z‖ = 1), and
			// A_jj·n/(n−1) centred (‖z‖² = 1 − 1/n).
			var ajj, zz float64
			for c, l := range old {
				ajj += l * row[c] * row[c]
				zz += row[c] * row[c]
			}
			ajj /= zz
			if err := th.Remove(j); err != nil {
				t.Fatalf("centred %v: Remove(%d): %v", centred, j, err)
			}
			cur = without(cur, j)
			want := cur
			if centred {
				want = kernel.Centre(cur)
			}
			norm := spectralNorm(old)
			tol := 16 * float64(n+5) * eps
			pairCheck(t, "remove", th, want, norm, tol, centred)
			got := th.Values(nil)
			var sumOld, sumNew float64
			for _, l := range old {
				sumOld += l
			}
			for c, l := range got {
				sumNew += l
				if l < old[c]-tol*norm || l > old[c+1]+tol*norm {
					t.Errorf("centred %v, Remove(%d): interlacing fails at %d", centred, j, c)
				}
			}
			if d := math.Abs(sumNew - (sumOld - ajj)); d > tol*norm*float64(n) {
				t.Errorf("centred %v, Remove(%d): Σμ = %.17g, Σλ − A_jj = %.17g", centred, j, sumNew, sumOld-ajj)
			}
			if st := th.Stats(); st.Op != "remove" || !(st.Removed <= tol) {
				t.Errorf("centred %v, Remove(%d): stats %+v", centred, j, st)
			}
		}
	}
}

// rankThin returns a Thin of rank r, truncation floor 0, started from the top r
// eigenpairs of the leading m0 rows of k (centred: of C·K·C).
func rankThin(t *testing.T, k *mat.SymDense, m0, r int, centred bool) *Thin {
	t.Helper()
	a := synth.Leading(k, m0)
	if centred {
		a = kernel.Centre(a)
	}
	var vecs mat.Dense
	vals, err := native.EigenSym(nil, &vecs, a)
	if err != nil {
		t.Fatal(err)
	}
	var th Thin
	if err := th.SetTruncation(Truncation{Rank: r}); err != nil {
		t.Fatal(err)
	}
	if err := th.SetEigen(vals[m0-r:], mat.DenseCopyOf(vecs.Slice(0, m0, m0-r, m0))); err != nil {
		t.Fatal(err)
	}
	return &th
}

// TestThinRank tracks the top r eigenpairs of MAGIC kernel matrices, uncentred and
// centred, and checks every Border and RemoveKeepRank against its definition on dense
// matrices: after Border, the pairs are the top r eigenpairs of the bordered matrix
// [[V·Λ·Vᵀ, a], [aᵀ, c]] (centred: C·[[V·Λ·Vᵀ, a], [aᵀ, c]]·C, V·Λ·Vᵀ being centred
// already), and what they drop is the rest of its spectrum; after RemoveKeepRank, the
// eigenpairs of V·Λ·Vᵀ without row and column j (centred: re-centred). The tolerance is
// 16·(r+5)·ε relative to the step's norm for Border — the secular problem has order
// r+2 — and for RemoveKeepRank that times λmax/M_min, the amplification of dividing by √M
// (Thin.RemoveKeepRank). The orthogonality after Border may also keep what the step before
// lost: a RemoveKeepRank's amplified loss survives the next Border (a 236ε spike after
// one, in the pure-Go build, until the direction is truncated). It also checks the trace of each step with what was dropped, and that bordering
// a truncated matrix has a negative eigenvalue whenever the border leaves the tracked
// span (the reason for the truncation floor).
func TestThinRank(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 40
	}
	const m0, r = 30, 8
	x := data.Magic().X
	k := rbf(x.Slice(0, m0+steps, 0, 10), medianDistance(t, x))
	rng := rand.New(rand.NewPCG(3, 4))
	for _, centred := range []bool{false, true} {
		th := rankThin(t, k, m0, r, centred)
		idx := make([]int, m0) // the rows of k in th, in order
		for i := range idx {
			idx[i] = i
		}
		negatives := 0
		for p := m0; p < m0+steps; p++ {
			n := len(idx)
			a := make([]float64, n)
			for i, q := range idx {
				a[i] = k.At(q, p)
			}
			c := k.At(p, p)
			A := thinDense(th)
			before := th.Values(nil)
			var e []float64 // the new direction, centred
			f := 1.0
			if centred {
				e, f = helmertDir(n)
			}
			lost := inherited(th, e)
			var err error
			var want *mat.SymDense
			var trace float64
			if centred {
				// V·Λ·Vᵀ is centred: the border of the new point is that of an uncentred
				// matrix with V·Λ·Vᵀ's (zero) row sums.
				b, gamma := centredBorder(A, n, a, c)
				err = th.Border(vd(b), vd(e), f, gamma)
				want = kernel.Centre(borderedDense(A, a, c))
				trace = gamma
			} else {
				err = th.Border(vd(a), nil, 1, c)
				want = borderedDense(A, a, c)
				trace = c
			}
			if err != nil {
				t.Fatalf("centred %v, point %d: %v", centred, p, err)
			}
			idx = append(idx, p)
			vals, _ := native.EigenSym(nil, nil, want)
			norm := math.Max(-vals[0], vals[len(vals)-1])
			tol := 16 * float64(r+5) * eps
			pairCheckOrth(t, "border", th, want, norm, tol, lost+tol, centred)
			st := th.Stats()
			for _, l := range before {
				trace += l
			}
			var kept float64
			for _, l := range th.Values(nil) {
				kept += l
			}
			if d := kept + st.Dropped.Positive - st.Dropped.Negative - trace; math.Abs(d) > tol*norm*float64(r+2) {
				t.Errorf("centred %v, point %d: kept %.17g + dropped %.17g − %.17g ≠ trace %.17g", centred, p, kept, st.Dropped.Positive, st.Dropped.Negative, trace)
			}
			if st.Dropped.Min < 0 {
				negatives++
			}
			// Every few points, remove one: the oldest, the newest or one at random.
			if p%5 != 0 {
				continue
			}
			rows, _ := th.Dims()
			j := []int{0, rows - 1, rng.IntN(rows)}[p%3]
			A = thinDense(th)
			lam := th.Values(nil)
			if err := th.RemoveKeepRank(j, centred); err != nil {
				t.Fatalf("centred %v, point %d: RemoveKeepRank(%d): %v", centred, p, j, err)
			}
			idx = slices.Delete(idx, j, j+1)
			want = without(A, j)
			if centred {
				want = kernel.Centre(want)
			}
			amp := 1.0
			if got := th.Values(nil); len(got) > 0 {
				amp = lam[len(lam)-1] / got[0]
			}
			pairCheck(t, "remove-keep-rank", th, want, lam[len(lam)-1], tol*amp, centred)
		}
		if negatives == 0 {
			t.Errorf("centred %v: no step dropped a negative eigenvalue", centred)
		}
		t.Logf("centred %v: %d of %d steps dropped a negative eigenvalue", centred, negatives, steps)
	}
}
