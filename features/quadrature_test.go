package features

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestNewQuadratureErrors(t *testing.T) {
	refuses(t, "NewQuadrature", func(k kernel.RBF, d int, o QuadratureOptions) error { _, err := NewQuadrature(k, d, o); return err }, []badMap[QuadratureOptions]{
		{kernel.RBF{Sigma: 1}, 0, QuadratureOptions{Dim: 10}},
		{kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: -2}},
		{kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: 11}},
		{kernel.RBF{Sigma: 0}, 3, QuadratureOptions{Dim: 10}},
		{kernel.RBF{Sigma: math.NaN()}, 3, QuadratureOptions{Dim: 10}},
		{kernel.RBF{Sigma: math.Inf(1)}, 3, QuadratureOptions{Dim: 10}},
		{kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: 10, Points: -1}},
		{kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: 10, Points: maxGQPoints + 1}},
		{kernel.RBF{Sigma: 1}, 10, QuadratureOptions{}},               // full rule of 5¹⁰ nodes
		{kernel.RBF{Sigma: 1}, math.MaxInt, QuadratureOptions{}},      // overflows nᵈ
		{kernel.RBF{Sigma: 1}, 64, QuadratureOptions{Points: 1 << 7}}, // overflows nᵈ
	})
	q, err := NewQuadrature(kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: 10})
	if err != nil {
		t.Fatal(err)
	}
	if q.Options().Points != 5 {
		t.Errorf("default points %d, want 5", q.Options().Points)
	}
	// A subsampled rule works in any dimension; the grid is never built.
	if _, err := NewQuadrature(kernel.RBF{Sigma: 1}, 50, QuadratureOptions{Dim: 100}); err != nil {
		t.Error(err)
	}
}

// TestGaussHermite checks the one-dimensional rules against the moments of the weight:
// Σⱼ wⱼ·tⱼᵏ·√π = ∫ tᵏ·exp(−t²) dt = Γ((k+1)/2) for even k and 0 for odd k, exactly for
// k ≤ 2n−1; at k = 2n the rule must fall short by exactly n!/2ⁿ (the integral of the
// squared monic Hermite polynomial, which vanishes at the nodes), where that is
// resolvable; and the five-point rule against tabulated values. The sums run in
// logarithms, as tᵏ and Γ overflow for the large rules.
func TestGaussHermite(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 6, 8, 10, 16, 20, 32, 50, 100, 200} {
		nodes, weights, err := gaussHermite(n)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for k := 0; k <= 2*n; k++ {
			// Everything divided by Γ((k+1)/2)/√π, the even moment (or its odd neighbour's scale).
			lg, _ := math.Lgamma(float64(k+1) / 2)
			lscale := lg - math.Log(math.SqrtPi)
			var s, abs float64
			for j, tj := range nodes {
				if tj == 0 {
					if k == 0 {
						s += weights[j] / math.Exp(lscale)
						abs += weights[j] / math.Exp(lscale)
					}
					continue
				}
				v := math.Exp(math.Log(weights[j]) + float64(k)*math.Log(math.Abs(tj)) - lscale)
				if tj < 0 && k%2 == 1 {
					v = -v
				}
				s += v
				abs += math.Abs(v)
			}
			want := 0.0
			if k%2 == 0 {
				want = 1
			}
			if k < 2*n {
				worst = max(worst, math.Abs(s-want)/max(abs, 1))
				continue
			}
			// k = 2n: the deficit n!/2ⁿ relative to the moment Γ(n+½)/√π.
			lf, _ := math.Lgamma(float64(n + 1))
			deficit := math.Exp(lf - float64(n)*math.Ln2 - lscale)
			if deficit > 1e-8 && math.Abs((want-s)/deficit-1) > 1e-6 {
				t.Errorf("n = %d: moment %d short by %.6g, want %.6g", n, k, want-s, deficit)
			}
		}
		// A moment of degree k raises every node to the power k, so a node accurate to a
		// few ε relative (symmetric tridiagonal QR) gives terms accurate to a few k·ε:
		// the bound is 16·(2n)·ε (measured: 1.8e-13 = 2·(2n)·ε at n = 200, far below
		// elsewhere). A fixed 2e-13 held on one machine with a margin of 10 % only.
		if tol := 16 * float64(2*n) * 0x1p-52; worst > tol {
			t.Errorf("n = %d: moments of degree ≤ %d off by %.3g (relative), bound %.3g", n, 2*n-1, worst, tol)
		}
		for j := range n {
			if nodes[j] != -nodes[n-1-j] || weights[j] != weights[n-1-j] {
				t.Errorf("n = %d: rule not symmetric at %d", n, j)
			}
			if j > 0 && !(nodes[j] > nodes[j-1]) {
				t.Errorf("n = %d: nodes not ascending at %d", n, j)
			}
			if !(weights[j] > 0) {
				t.Errorf("n = %d: weight %d = %g", n, j, weights[j])
			}
		}
		t.Logf("n = %3d: moments ≤ %3d exact to %.2g relative", n, 2*n-1, worst)
	}
	// Abramowitz & Stegun table 25.10 (weights for exp(−t²), divided by √π here).
	nodes, weights, _ := gaussHermite(5)
	wantT := []float64{-2.020182870456086, -0.958572464613819, 0, 0.958572464613819, 2.020182870456086}
	wantW := []float64{0.01995324205904591, 0.3936193231522412, 0.9453087204829419, 0.3936193231522412, 0.01995324205904591}
	for j := range 5 {
		if math.Abs(nodes[j]-wantT[j]) > 1e-14 || math.Abs(weights[j]*math.SqrtPi-wantW[j]) > 1e-14 {
			t.Errorf("5-point node %d: %.16g, %.16g; want %.16g, %.16g", j, nodes[j], weights[j]*math.SqrtPi, wantT[j], wantW[j])
		}
	}
}

// ruleValue is the full tensor rule's value Σ wᵢ·cos(ωᵢᵀδ) computed as the product over
// coordinates of the one-dimensional rules, Πₖ Σⱼ wⱼ·cos(√2·tⱼ·δₖ/σ): the imaginary
// parts of Πₖ Σⱼ wⱼ·exp(i√2·tⱼ·δₖ/σ) vanish by the symmetry of the rule.
func ruleValue(x, y []float64, sigma float64, n int) float64 {
	nodes, weights, _ := gaussHermite(n)
	v := 1.0
	for k := range x {
		var s float64
		for j, tj := range nodes {
			s += weights[j] * math.Cos(math.Sqrt2*tj*(x[k]-y[k])/sigma)
		}
		v *= s
	}
	return v
}

// TestQuadratureFullRule checks the full, folded tensor rule at small d: its size, that
// z(x)ᵀz(y) is the rule's value (so the folding of ±ω pairs is right), and that the
// rule reproduces the Gaussian kernel to high accuracy for nearby points.
func TestQuadratureFullRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		d, n     int
		tol      float64 // on |z(x)ᵀz(y) − k(x, y)| for ‖x−y‖ ≤ σ
		wantSize int
	}{
		{1, 5, 1e-4, 6},
		{2, 5, 1e-4, 26},
		{3, 5, 1e-4, 126},
		{3, 4, 1e-3, 64},
		{3, 8, 1e-9, 512},
		{4, 10, 1e-12, 10000},
	} {
		sigma := 0.8
		q, err := NewQuadrature(kernel.RBF{Sigma: sigma}, c.d, QuadratureOptions{Points: c.n})
		if err != nil {
			t.Fatal(err)
		}
		if q.OutDim() != c.wantSize {
			t.Errorf("d = %d, n = %d: D = %d, want %d", c.d, c.n, q.OutDim(), c.wantSize)
		}
		const pairs = 40
		X := randomPoints(rng, 2*pairs, c.d, 1)
		// y = x + δ with ‖δ‖ uniform in [0, σ].
		for i := range pairs {
			x, y := X.RawRowView(2*i), X.RawRowView(2*i+1)
			nrm := mat.Norm(mat.NewVecDense(c.d, y), 2)
			s := sigma * float64(i+1) / pairs / nrm
			for j := range y {
				y[j] = x[j] + s*y[j]
			}
		}
		var Z mat.Dense
		if err := q.Transform(&Z, X); err != nil {
			t.Fatal(err)
		}
		var worst, worstRule float64
		for i := range pairs {
			x, y := X.RawRowView(2*i), X.RawRowView(2*i+1)
			got := mat.Dot(Z.RowView(2*i), Z.RowView(2*i+1))
			worst = max(worst, math.Abs(got-q.Kernel().Eval(x, y)))
			worstRule = max(worstRule, math.Abs(got-ruleValue(x, y, sigma, c.n)))
			if self := mat.Dot(Z.RowView(2*i), Z.RowView(2*i)); math.Abs(self-1) > 1e-13 {
				t.Errorf("‖z(x)‖² = %.17g, want 1", self)
			}
		}
		t.Logf("d = %d, n = %2d, D = %5d: max |error| %.3g for ‖x−y‖ ≤ σ", c.d, c.n, q.OutDim(), worst)
		if worstRule > 1e-13 {
			t.Errorf("d = %d, n = %d: features differ from the rule by %.3g", c.d, c.n, worstRule)
		}
		if worst > c.tol {
			t.Errorf("d = %d, n = %d: max error %.3g against the kernel, want ≤ %.3g", c.d, c.n, worst, c.tol)
		}
	}
}

// TestQuadratureVersusRFF compares, at the d = 7 and D = 330, the error of
// subsampled quadrature features and of random Fourier features (cos-sin) on the same
// pairs over several seeds; GQ must not be worse than 1.5 times RFF in rms error. It
// also checks that the subsampled rule is an unbiased estimate of the full rule's
// value, and logs the full rule's own bias and the error of Taylor features of the
// same D (degree 4) on the same pairs for comparison.
func TestQuadratureVersusRFF(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const d, D, pairs, seeds = 7, 330, 100, 20
	sigma := math.Sqrt(d) // the median heuristic for standard normal points: k ≈ e⁻¹
	X := randomPoints(rng, 2*pairs, d, 1)
	var seGQ, seRFF, ruleBias, dup float64
	devRule := make([]float64, seeds) // per seed, the mean deviation from the full rule
	for seed := range uint64(seeds) {
		gq, err := NewQuadrature(kernel.RBF{Sigma: sigma}, d, QuadratureOptions{Dim: D, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		rff, err := NewRFF(kernel.RBF{Sigma: sigma}, d, RFFOptions{Dim: D, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var ZG, ZR mat.Dense
		if err := gq.Transform(&ZG, X); err != nil {
			t.Fatal(err)
		}
		if err := rff.Transform(&ZR, X); err != nil {
			t.Fatal(err)
		}
		var seGQs, seRFFs float64
		for p := range pairs {
			x, y := X.RawRowView(2*p), X.RawRowView(2*p+1)
			k := gq.Kernel().Eval(x, y)
			eg := mat.Dot(ZG.RowView(2*p), ZG.RowView(2*p+1)) - k
			er := mat.Dot(ZR.RowView(2*p), ZR.RowView(2*p+1)) - k
			seGQs += eg * eg
			seRFFs += er * er
			rule := ruleValue(x, y, sigma, 5)
			devRule[seed] += (eg + k - rule) / pairs
			if seed == 0 {
				ruleBias = max(ruleBias, math.Abs(rule-k))
			}
		}
		seGQ += seGQs
		seRFF += seRFFs
		// Repeated frequencies (draws of the same node, or of ±ω).
		f := D / 2
		om := gq.omega.RawMatrix()
		seen := map[[d]float64]bool{}
		for c := range f {
			var w, m [d]float64
			for i := range d {
				w[i] = om.Data[i*om.Stride+c]
				m[i] = -w[i] + 0 // +0 turns −0 into 0
			}
			if seen[w] || seen[m] {
				dup++
			}
			seen[w] = true
		}
		t.Logf("seed %2d: rms error GQ %.4f, RFF %.4f", seed, math.Sqrt(seGQs/pairs), math.Sqrt(seRFFs/pairs))
	}
	rmsGQ, rmsRFF := math.Sqrt(seGQ/(pairs*seeds)), math.Sqrt(seRFF/(pairs*seeds))
	t.Logf("d = %d, D = %d, σ = √d, %d pairs × %d seeds: rms error GQ %.4f, RFF %.4f (ratio %.3f)",
		d, D, pairs, seeds, rmsGQ, rmsRFF, rmsGQ/rmsRFF)
	t.Logf("full 5-point rule's own max |bias| on these pairs %.2g; repeated frequencies per map %.1f of %d",
		ruleBias, dup/seeds, D/2)
	if rmsGQ > 1.5*rmsRFF {
		t.Errorf("GQ rms error %.4f exceeds 1.5 × RFF's %.4f", rmsGQ, rmsRFF)
	}
	// Unbiased for the full rule: the mean deviation is within 4 standard errors. The
	// seeds are the independent samples; the pairs of one seed share its frequencies.
	var mean, ss float64
	for _, m := range devRule {
		mean += m / seeds
	}
	for _, m := range devRule {
		ss += (m - mean) * (m - mean)
	}
	se := math.Sqrt(ss/(seeds-1)) / math.Sqrt(seeds)
	t.Logf("mean deviation from the full rule %.2g, standard error %.2g", mean, se)
	if math.Abs(mean) > 4*se {
		t.Errorf("mean deviation from the full rule %.3g exceeds 4 standard errors %.3g", mean, 4*se)
	}

	// Taylor features of the same dimension on the same pairs, for the record.
	tr, err := NewTaylor(kernel.RBF{Sigma: sigma}, d, TaylorOptions{Degree: 4})
	if err != nil {
		t.Fatal(err)
	}
	var ZT mat.Dense
	if err := tr.Transform(&ZT, X); err != nil {
		t.Fatal(err)
	}
	var seT float64
	for p := range pairs {
		e := mat.Dot(ZT.RowView(2*p), ZT.RowView(2*p+1)) - tr.Kernel().Eval(X.RawRowView(2*p), X.RawRowView(2*p+1))
		seT += e * e
	}
	t.Logf("Taylor degree 4 (D = %d) on the same pairs: rms error %.4f", tr.OutDim(), math.Sqrt(seT/pairs))
}

func TestQuadratureSeedReproducible(t *testing.T) {
	x := []float64{0.3, -1.2, 2}
	za := checkSeeds(t, x, func(seed uint64) (featureMap, error) {
		return NewQuadrature(kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: 16, Seed: seed})
	})
	big, _ := NewQuadrature(kernel.RBF{Sigma: 1}, 3, QuadratureOptions{Dim: 64, Seed: 5})
	zbig := make([]float64, 64)
	_ = big.Map(zbig, x)
	// Nested: the frequencies of D = 16 are the first 8 of D = 64 (weights differ).
	for i := range 8 {
		r := math.Sqrt(64.0 / 16)
		if math.Abs(za[i]-r*zbig[i]) > 1e-15 || math.Abs(za[8+i]-r*zbig[32+i]) > 1e-15 {
			t.Fatalf("frequency %d: D = 16 and D = 64 maps not nested", i)
		}
	}
}

// TestQuadratureMapMatchesTransform checks one point at a time against a batch, the
// unit norm, that Map does not allocate, and that bad input is an error that leaves dst
// alone; for a subsampled and a full rule.
func TestQuadratureMapMatchesTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		k    kernel.RBF
		d    int
		opts QuadratureOptions
	}{
		{kernel.RBF{Sigma: 2}, 7, QuadratureOptions{Dim: 330, Seed: 3}},
		{kernel.RBF{Sigma: 1.1}, 3, QuadratureOptions{Points: 6}},
	} {
		q, err := NewQuadrature(c.k, c.d, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		X := randomPoints(rng, 30, c.d, 1)
		checkMap(t, "quadrature", q, X, 1e-14, 1e-13)
		if err := q.Transform(nil, X); err == nil {
			t.Error("nil destination: no error")
		}
	}
}
