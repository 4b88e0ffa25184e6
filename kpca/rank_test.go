package kpca

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// shuffled returns n rows of a data set in a random order (seeded).
func shuffled(t testing.TB, set string, n int, seed uint64) *mat.Dense {
	t.Helper()
	ds := dataset(t, set)
	rows, _ := ds.X.Dims()
	return synth.SelectRows(ds.X, rand.New(rand.NewPCG(seed, seed)).Perm(rows)[:n])
}

// truncationError returns E = A − V·Λ·Vᵀ for the model's tracked pairs and A the matrix
// of its points (K′ or K), formed densely.
func truncationError(md *Model) *mat.SymDense {
	a := pointsTarget(md)
	var v mat.Dense
	md.VectorsTo(&v)
	vals := md.Values(nil)
	m := md.Len()
	e := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			var s float64
			for c, l := range vals {
				s += l * v.At(i, c) * v.At(j, c)
			}
			e.SetSym(i, j, a.At(i, j)-s)
		}
	}
	return e
}

// sine returns the sine of the largest principal angle between the column spaces of
// the orthonormal n×k matrices p and q: √(1 − σmin(pᵀq)²).
func sine(p, q mat.Matrix) float64 {
	var s mat.Dense
	s.Mul(p.T(), q)
	var svd mat.SVD
	if !svd.Factorize(&s, mat.SVDNone) {
		return math.NaN()
	}
	sv := svd.Values(nil)
	c := math.Min(sv[len(sv)-1], 1)
	return math.Sqrt(math.Max(1-c*c, 0))
}

// TestRankTracking streams the first points of a random order of MAGIC, centred, RBF with
// the median-distance bandwidth, into a rank-50 model started from 100 points, and
// compares it with a batch kernel PCA of all of them. The top-10 eigenvalues must be
// within 1e-6·λ₁ (issue 13's target) and the top-10 subspace within a sine of 1e-3.
// Measured: 1.1e-7·λ₁ (2.8e-6 of each eigenvalue) and a sine of 3.6e-4 on 3000 points;
// an independent numpy implementation of the same algorithm gives the same figures, and
// 1.1e-7–1.6e-7 and 2.6e-4–3.6e-4 on other random orders, so that the reference figures
// of docs/design.md (7e-8 and 3e-5) are not reproduced: even an idealised variant that
// forms the exact compression of K′ on the extended basis at every step (O(m²) a point)
// reaches a sine of only 1.3e-4 on 1000 points. The certificate must hold: ‖K′ − K̃‖₂
// (Lanczos) ≤ ErrorBound and every eigenvalue of K′ in its ValueBounds interval. 3000
// points with OpenBLAS, 1000 with pure-Go gonum (whose Dsyev reference costs a minute
// at 2000), 400 in -short mode.
func TestRankTracking(t *testing.T) {
	n, r, m0 := 3000, 50, 100
	if native.Compiled == "gonum" {
		n = 1000
	}
	short := testing.Short() || raceEnabled
	if short {
		n = 400
	}
	x := shuffled(t, "magic", n, 13)
	_, d := x.Dims()
	k := rbfMedian(t, x)
	md := fitModel(t, k, x.Slice(0, m0, 0, d), Options{Components: r, Rank: r})
	if _, err := md.AddRows(context.Background(), x.Slice(m0, n, 0, d), nil); err != nil {
		t.Fatal(err)
	}
	want, vecs := batchPairs(t, k, x)
	got := md.Values(nil)
	if len(got) != r {
		t.Fatalf("%d components tracked, want %d", len(got), r)
	}
	const top = 10
	var valueErr, eachErr float64
	for i := range top {
		w := want[n-1-i]
		valueErr = math.Max(valueErr, math.Abs(got[i]-w)/want[n-1])
		eachErr = math.Max(eachErr, math.Abs(got[i]-w)/w)
	}
	var v mat.Dense
	md.VectorsTo(&v)
	wantTop := vecs.Slice(0, n, n-top, n)
	s := sine(v.Slice(0, n, 0, top), wantTop)
	e := truncationError(md)
	trueErr := lanczos.SymNorm(e)
	bound := md.ErrorBound()
	below, above := md.errorRange()
	t.Logf("MAGIC, %d points, rank %d, centred: top-%d eigenvalues within %.2e·λ₁ (%.2e of each), subspace sine %.2e; ‖K′ − K̃‖₂ = %.3g, bound %.3g (%.0f×; sides −%.3g, +%.3g), λ₁ = %.4g",
		n, r, top, valueErr, eachErr, s, trueErr, bound, bound/trueErr, below, above, got[0])
	const lim, sLim = 1e-6, 1e-3
	if !(valueErr <= lim) || !(s <= sLim) {
		t.Errorf("top-%d eigenvalues off by %.3g·λ₁ (limit %.3g), subspace sine %.3g (limit %.3g)", top, valueErr, lim, s, sLim)
	}
	// The certificate, with the rounding of the dense reference (n·ε·λ₁).
	slack := float64(n) * vec.Roundoff * got[0]
	if !(trueErr <= bound+slack) {
		t.Errorf("‖K′ − K̃‖₂ = %.6g exceeds the bound %.6g", trueErr, bound)
	}
	lo, hi := md.ValueBounds(nil, nil)
	for i := range r {
		if w := want[n-1-i]; !(lo[i]-slack <= w && w <= hi[i]+slack) {
			t.Errorf("λ%d = %.10g outside its interval [%.10g, %.10g]", i, w, lo[i], hi[i])
		}
	}
}

// TestCertificate measures how loose the certificate is, and checks that it holds, on
// a few hundred points of Yeast and MAGIC, centred and uncentred, at ranks 5, 10 and 20,
// in three streams: growth from 50 to 300 points, a window of 150 over 300 points, and
// growth with a random point removed every third step. It compares the bounds with E =
// K′ − K̃ formed densely: λmax(E) ≤ the upper bound, −λmin(E) ≤ the lower one, ‖E‖₂
// (Lanczos, and the extreme eigenvalues of E) ≤ ErrorBound, and every tracked
// eigenvalue's interval holds the batch one; with the rounding of the dense reference
// (n·ε·λ₁) as the only slack. The logs give bound ÷ true error, and the sum of the
// per-step norms alone (the triangle inequality, before the trace tightens it).
func TestCertificate(t *testing.T) {
	const n, m0 = 300, 50
	ranks := []int{5, 10, 20}
	if testing.Short() {
		ranks = []int{10}
	}
	rng := rand.New(rand.NewPCG(14, 14))
	for _, set := range []string{"yeast", "magic"} {
		x := shuffled(t, set, n, 15)
		_, d := x.Dims()
		k := rbfMedian(t, x)
		for _, uncentred := range []bool{false, true} {
			for _, r := range ranks {
				for _, stream := range []string{"grow", "window", "remove"} {
					opts := Options{Uncentred: uncentred, Components: r, Rank: r}
					if stream == "window" {
						opts.Window = 150
					}
					md := fitModel(t, k, x.Slice(0, m0, 0, d), opts)
					for i := m0; i < n; i++ {
						if err := md.Add(x.RawRowView(i)); err != nil {
							t.Fatal(err)
						}
						if stream == "remove" && i%3 == 0 {
							if err := md.Remove(rng.IntN(md.Len())); err != nil {
								t.Fatal(err)
							}
						}
					}
					certify(t, set+" "+modeName(uncentred)+" "+stream, md)
				}
			}
		}
	}
}

// certify checks a rank-r model's certificate against its dense truncation error (see
// TestCertificate), and its row sums and total against sums formed afresh.
func certify(t *testing.T, what string, md *Model) {
	t.Helper()
	certifyAt(t, what, md, md.Values(nil)[0])
	checkSums(t, what, md)
}

// certifyAt checks md's certificate as certify does, up to the rounding of a matrix of
// norm scale: λ₁, or m·max|kᵢⱼ| where centring leaves K′ far smaller than the kernel
// values (FuzzModel).
func certifyAt(t *testing.T, what string, md *Model, scale float64) {
	t.Helper()
	e := truncationError(md)
	ev, err := native.EigenSym(nil, nil, e)
	if err != nil {
		t.Fatal(err)
	}
	lmin, lmax := ev[0], ev[len(ev)-1]
	norm := lanczos.SymNorm(e)
	below, above := md.errorRange()
	bound := md.ErrorBound()
	vals := md.Values(nil)
	// The certificate bounds the truncations and their rounding, not the rounding of
	// the batch decomposition it starts from (ErrorBound), whose backward error LAPACK
	// bounds by p(m)·u·‖K′‖, p a modestly growing function of m: m, but not below 32
	// (a fuzzed model of 4 points measured 6·u·λ₁).
	slack := certifySlack(md.Len(), scale)
	if !(lmax <= above+slack && -lmin <= below+slack && norm <= bound+slack && math.Max(-lmin, lmax) <= bound+slack) {
		t.Errorf("%s, rank %d: E has eigenvalues in [%.6g, %.6g] and norm %.6g; bounds −%.6g, +%.6g, ‖E‖ ≤ %.6g",
			what, md.opts.Rank, lmin, lmax, norm, below, above, bound)
	}
	want := batchValues(t, pointsTarget(md), md.opts.Uncentred)
	lo, hi := md.ValueBounds(nil, nil)
	for i := range lo {
		if !(lo[i]-slack <= want[i] && want[i] <= hi[i]+slack) {
			t.Errorf("%s, rank %d: λ%d = %.10g outside [%.10g, %.10g]", what, md.opts.Rank, i, want[i], lo[i], hi[i])
			break
		}
	}
	t.Logf("%-22s r = %2d, m = %d: E in [%9.3g, %9.3g], ‖E‖ %9.3g; bounds −%9.3g, +%9.3g (%5.1f× and %5.1f×); Σ step norms +%9.3g, −%9.3g; λ₁ %.4g",
		what, md.opts.Rank, md.Len(), lmin, lmax, norm, below, above, above/math.Max(lmax, 1e-300), below/math.Max(-lmin, 1e-300),
		md.cert.PosNorm, md.cert.NegNorm, vals[0])
}

// certifySlack is the rounding of a batch decomposition of m points at the scale of
// their matrix, which a certificate leaves out (certifyAt): LAPACK bounds its backward
// error by p(m)·u·‖K′‖, p a modestly growing function of m, taken as m but not below 32.
func certifySlack(m int, scale float64) float64 {
	return float64(max(m, 32)) * vec.Roundoff * scale
}

// TestRankDrift: at rank r the drift probe's residual is rounding after New and after
// Refresh (the top r pairs of a batch decomposition are exact eigenpairs), grows with
// the tracking error but stays within ErrorBound/λ₁ (A·V − V·Λ = (A − K̃)·V), and
// Refresh restarts the certificate from what the batch truncation leaves out.
func TestRankDrift(t *testing.T) {
	x := shuffled(t, "magic", 400, 16)
	k := rbfMedian(t, x)
	for _, uncentred := range []bool{false, true} {
		md := fitModel(t, k, x.Slice(0, 100, 0, 10), Options{Uncentred: uncentred, Components: 15, Rank: 15})
		if dr := md.Drift(); dr.Max() > 1e-13 {
			t.Errorf("%v: drift of a fresh rank-r model %+v", modeName(uncentred), dr)
		}
		start := md.ErrorBound()
		if _, err := md.AddRows(context.Background(), x.Slice(100, 400, 0, 10), nil); err != nil {
			t.Fatal(err)
		}
		dr := md.Drift()
		l1 := md.Values(nil)[0]
		if dr.Orthogonality > 1e-10 || dr.Residual > md.ErrorBound()/l1+1e-13 {
			t.Errorf("%v: drift %+v, bound %.3g", modeName(uncentred), dr, md.ErrorBound()/l1)
		}
		if dr.Residual < 1e-12 {
			t.Errorf("%v: the residual %.3g does not see the tracking error", modeName(uncentred), dr.Residual)
		}
		bound := md.ErrorBound()
		if err := md.Refresh(); err != nil {
			t.Fatal(err)
		}
		after := md.Drift()
		t.Logf("%v: residual %.2e after 300 points (bound %.2e), %.2e after Refresh; ErrorBound %.3g at New, %.3g after the stream, %.3g after Refresh",
			modeName(uncentred), dr.Residual, bound/l1, after.Residual, start, bound, md.ErrorBound())
		if after.Max() > 1e-13 || md.ErrorBound() >= bound {
			t.Errorf("%v: after Refresh drift %+v, bound %.3g (was %.3g)", modeName(uncentred), after, md.ErrorBound(), bound)
		}
		certify(t, modeName(uncentred)+" refreshed", md)
	}
}

// TestRankAccessors: at rank r, Components is r, ExplainedVariance divides by the trace
// of K′ (exact from the running sums), so that the shares are λⱼ/trace and sum to less
// than one, and Bytes is O(m·(r+d)): at most 8·m·(4(r+3) + d + 16) bytes for the
// vectors (two buffers and a window's backup, r+3 columns each at capacity), the
// points and the O(m) vectors, with m the capacity (a quarter above the points).
func TestRankAccessors(t *testing.T) {
	const r = 20
	x := shuffled(t, "magic", 1500, 17)
	k := rbfMedian(t, x)
	for _, opts := range []Options{{Components: r, Rank: r}, {Uncentred: true, Components: r, Rank: r}, {Components: r, Rank: r, Window: 1000}} {
		md := fitModel(t, k, x.Slice(0, 200, 0, 10), opts)
		if _, err := md.AddRows(context.Background(), x.Slice(200, 1500, 0, 10), nil); err != nil {
			t.Fatal(err)
		}
		if md.Components() != r || len(md.Values(nil)) != r {
			t.Errorf("%s: %d components", name(opts), md.Components())
		}
		a := pointsTarget(md)
		var trace float64
		for i := range md.Len() {
			trace += a.At(i, i)
		}
		ev := md.ExplainedVariance(nil)
		vals := md.Values(nil)
		var sum float64
		for j, s := range ev {
			sum += s
			if math.Abs(s-vals[j]/trace) > 1e-12 {
				t.Errorf("%s: share %d is %.15g, want λ/trace = %.15g", name(opts), j, s, vals[j]/trace)
				break
			}
		}
		if !(sum < 1) {
			t.Errorf("%s: the top %d shares sum to %v", name(opts), r, sum)
		}
		m := md.capacity()
		if limit := 8 * m * (4*(r+3) + 10 + 16); md.Bytes() > limit {
			t.Errorf("%s: %d bytes for %d points (capacity %d), more than %d", name(opts), md.Bytes(), md.Len(), m, limit)
		}
		t.Logf("%s: %d points, %d bytes (%.1f floats a point), variance captured %.4f", name(opts), md.Len(), md.Bytes(), float64(md.Bytes())/8/float64(md.Len()), sum)
	}
}

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
		// Copies: the solvers work in a's storage.
		pv, pw, pd, err := topPairs(mat.NewSymDense(n, append([]float64(nil), a.RawSymmetric().Data...)), r, true)
		if err != nil {
			t.Fatal(err)
		}
		fv, fw, fd, err := topPairs(mat.NewSymDense(n, append([]float64(nil), a.RawSymmetric().Data...)), r, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(pv) != len(fv) || pd.Count != fd.Count {
			t.Fatalf("r = %d: %d kept (%d dropped), full %d (%d)", r, len(pv), pd.Count, len(fv), fd.Count)
		}
		// Backward-stable solvers: eigenvalues within c·n·ε·‖A‖ of each other.
		tol := 64 * float64(n) * vec.Roundoff * fv[len(fv)-1]
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
