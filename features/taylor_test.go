package features

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestNewTaylorErrors(t *testing.T) {
	refuses(t, "NewTaylor", func(k kernel.RBF, d int, o TaylorOptions) error { _, err := NewTaylor(k, d, o); return err }, []badMap[TaylorOptions]{
		{kernel.RBF{Sigma: 1}, 0, TaylorOptions{Degree: 2}},
		{kernel.RBF{Sigma: 1}, 3, TaylorOptions{Degree: 0}},
		{kernel.RBF{Sigma: 1}, 3, TaylorOptions{Degree: -1}},
		{kernel.RBF{Sigma: 0}, 3, TaylorOptions{Degree: 2}},
		{kernel.RBF{Sigma: -1}, 3, TaylorOptions{Degree: 2}},
		{kernel.RBF{Sigma: math.NaN()}, 3, TaylorOptions{Degree: 2}},
		{kernel.RBF{Sigma: math.Inf(1)}, 3, TaylorOptions{Degree: 2}},
		{kernel.RBF{Sigma: 1}, 3, TaylorOptions{Degree: 2, Dim: -1}},
		{kernel.RBF{Sigma: 1}, 3, TaylorOptions{Degree: 2, Dim: 11}}, // C(5, 2) = 10 monomials
		{kernel.RBF{Sigma: 1}, 1000, TaylorOptions{Degree: 10}},      // ~2.6e23 monomials
		{kernel.RBF{Sigma: 1}, 1000, TaylorOptions{Degree: 10, Dim: maxTaylorDim + 1}},
		{kernel.RBF{Sigma: 1}, 2, TaylorOptions{Degree: math.MaxInt}},
	})
	// Too many monomials is fine when Dim truncates.
	tr, err := NewTaylor(kernel.RBF{Sigma: 1}, 1000, TaylorOptions{Degree: 10, Dim: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if tr.OutDim() != 5000 {
		t.Errorf("OutDim %d, want 5000", tr.OutDim())
	}
	if _, err := NewTaylor(kernel.RBF{Sigma: 1}, 3, TaylorOptions{Degree: 2, Dim: 10}); err != nil {
		t.Errorf("Dim = C(d+p, p): %v", err)
	}
}

func binomial(n, k int) int {
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
	}
	return c
}

// exponents rebuilds the multi-index α of every feature from the parent tables.
func (t *Taylor) exponents() [][]int {
	alpha := make([][]int, t.dim)
	alpha[0] = make([]int, t.d)
	for i := 1; i < t.dim; i++ {
		alpha[i] = append([]int(nil), alpha[t.parent[i]]...)
		alpha[i][t.coord[i]]++
	}
	return alpha
}

// TestTaylorMonomials checks that the features are the monomials of degree ≤ p, each
// once, in degree order: C(d+p, p) of them, and 330 for the d = 7, p = 4.
func TestTaylorMonomials(t *testing.T) {
	tr, err := NewTaylor(kernel.RBF{Sigma: 1}, 7, TaylorOptions{Degree: 4})
	if err != nil {
		t.Fatal(err)
	}
	if tr.OutDim() != 330 {
		t.Fatalf("d = 7, degree 4: %d features, want C(11, 4) = 330", tr.OutDim())
	}
	for _, c := range [][2]int{{1, 1}, {1, 6}, {2, 3}, {3, 5}, {7, 4}, {10, 3}, {4, 8}} {
		d, p := c[0], c[1]
		tr, err := NewTaylor(kernel.RBF{Sigma: 1}, d, TaylorOptions{Degree: p})
		if err != nil {
			t.Fatal(err)
		}
		if want := binomial(d+p, p); tr.OutDim() != want {
			t.Errorf("d = %d, p = %d: %d features, want %d", d, p, tr.OutDim(), want)
		}
		seen := map[string]bool{}
		perDegree := make([]int, p+1)
		prev := 0
		for i, a := range tr.exponents() {
			deg := 0
			for _, e := range a {
				deg += e
			}
			if deg < prev || deg > p {
				t.Fatalf("d = %d, p = %d: feature %d has degree %d after %d", d, p, i, deg, prev)
			}
			prev = deg
			perDegree[deg]++
			key := fmt.Sprint(a)
			if seen[key] {
				t.Fatalf("d = %d, p = %d: monomial %v twice", d, p, a)
			}
			seen[key] = true
		}
		for k, n := range perDegree {
			if want := binomial(d+k-1, k); n != want {
				t.Errorf("d = %d: %d monomials of degree %d, want %d", d, n, k, want)
			}
		}
	}
}

// taylorSeries is the truncated series exp(−‖u‖²/2)·exp(−‖v‖²/2)·Σ_{k≤p} (uᵀv)ᵏ/k!
// computed directly, with the same sum of absolute values of its terms.
func taylorSeries(x, y []float64, sigma float64, p int) (sum, abs float64) {
	var xx, yy, xy float64
	for i := range x {
		xx += x[i] * x[i]
		yy += y[i] * y[i]
		xy += x[i] * y[i]
	}
	s2 := sigma * sigma
	pre := math.Exp(-(xx + yy) / (2 * s2))
	term := 1.0
	for k := 0; k <= p; k++ {
		if k > 0 {
			term *= xy / s2 / float64(k)
		}
		sum += term
		abs += math.Abs(term)
	}
	return pre * sum, pre * abs
}

// TestTaylorExactSeries checks z(x)ᵀz(y) against the truncated series to 1e-13,
// relative to the sum of the series' absolute terms (for xᵀy < 0 the series alternates
// and its value may cancel to nothing, so that is the scale of the rounding errors).
func TestTaylorExactSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{1, 3, 7} {
		for p := 1; p <= 7; p++ {
			sigma := 0.7 + rng.Float64()
			tr, err := NewTaylor(kernel.RBF{Sigma: sigma}, d, TaylorOptions{Degree: p})
			if err != nil {
				t.Fatal(err)
			}
			X := randomPoints(rng, 20, d, sigma)
			Z := new(mat.Dense)
			if err := tr.Transform(Z, X); err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i := 0; i < 20; i += 2 {
				got := mat.Dot(Z.RowView(i), Z.RowView(i+1))
				want, scale := taylorSeries(X.RawRowView(i), X.RawRowView(i+1), sigma, p)
				worst = max(worst, math.Abs(got-want)/scale)
				// Also each point with itself: a positive series, plain relative error.
				self := mat.Dot(Z.RowView(i), Z.RowView(i))
				w, _ := taylorSeries(X.RawRowView(i), X.RawRowView(i), sigma, p)
				worst = max(worst, math.Abs(self-w)/w)
			}
			if worst > 1e-13 {
				t.Errorf("d = %d, p = %d: relative difference from the series %.3g", d, p, worst)
			}
		}
	}
}

// TestTaylorDegreeConvergence measures the error against the exact kernel for degrees
// 1 … 8 on d = 7 pairs with ‖x‖, ‖y‖ ≤ σ: it must fall with every degree, faster than
// the bound exp(−(‖u‖²+‖v‖²)/2)·|uᵀv|^(p+1)·e/(p+1)!.
func TestTaylorDegreeConvergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const d, pairs = 7, 200
	sigma := 1.3
	X := randomPoints(rng, 2*pairs, d, 1)
	// Scale each point to a norm uniform in [0, σ].
	for i := range 2 * pairs {
		row := X.RawRowView(i)
		nrm := mat.Norm(mat.NewVecDense(d, row), 2)
		s := sigma * rng.Float64() / nrm
		for j := range row {
			row[j] *= s
		}
	}
	prevRMS := math.Inf(1)
	for p := 1; p <= 8; p++ {
		tr, err := NewTaylor(kernel.RBF{Sigma: sigma}, d, TaylorOptions{Degree: p})
		if err != nil {
			t.Fatal(err)
		}
		var Z mat.Dense
		if err := tr.Transform(&Z, X); err != nil {
			t.Fatal(err)
		}
		var se, worst float64
		for i := range pairs {
			x, y := X.RawRowView(2*i), X.RawRowView(2*i+1)
			e := mat.Dot(Z.RowView(2*i), Z.RowView(2*i+1)) - tr.Kernel().Eval(x, y)
			se += e * e
			worst = max(worst, math.Abs(e))
			// Remainder bound: |Σ_{k>p} aᵏ/k!| ≤ |a|^(p+1)/(p+1)!·e^|a| with |a| ≤ 1.
			var xy float64
			for j := range x {
				xy += x[j] * y[j]
			}
			a := math.Abs(xy) / (sigma * sigma)
			_, pre := taylorSeries(x, y, sigma, 0)
			bound := pre * math.Pow(a, float64(p+1)) / math.Gamma(float64(p+2)) * math.E
			if math.Abs(e) > bound+1e-14 { // plus rounding in a sum of D terms
				t.Errorf("p = %d, pair %d: error %.3g exceeds the remainder bound %.3g", p, i, e, bound)
			}
		}
		rms := math.Sqrt(se / pairs)
		t.Logf("degree %d, D = %4d: rms error %.3g, max %.3g", p, tr.OutDim(), rms, worst)
		if !(rms < prevRMS) {
			t.Errorf("degree %d: rms error %.3g does not fall below %.3g", p, rms, prevRMS)
		}
		prevRMS = rms
	}
}

// TestTaylorTruncatedDim checks that Dim keeps a prefix of the full map's features.
func TestTaylorTruncatedDim(t *testing.T) {
	full, _ := NewTaylor(kernel.RBF{Sigma: 1.5}, 4, TaylorOptions{Degree: 3})
	part, err := NewTaylor(kernel.RBF{Sigma: 1.5}, 4, TaylorOptions{Degree: 3, Dim: 20})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, -0.8, 1.1, 0.2}
	zf, zp := make([]float64, full.OutDim()), make([]float64, 20)
	if err := full.Map(zf, x); err != nil {
		t.Fatal(err)
	}
	if err := part.Map(zp, x); err != nil {
		t.Fatal(err)
	}
	for i := range zp {
		if zp[i] != zf[i] {
			t.Fatalf("feature %d: truncated %g, full %g", i, zp[i], zf[i])
		}
	}
}

// TestTaylorMapMatchesTransform checks one point at a time against a batch, that Map
// does not allocate, and that bad input is an error that leaves dst alone.
func TestTaylorMapMatchesTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	X := randomPoints(rng, 30, 7, 1)
	tr, err := NewTaylor(kernel.RBF{Sigma: 2}, 7, TaylorOptions{Degree: 4})
	if err != nil {
		t.Fatal(err)
	}
	checkMap(t, "Taylor", tr, X, 0, 0) // Map and Transform compute the same monomials in the same order
	// A matrix that is not a *mat.Dense takes the same path.
	var Z, ZT mat.Dense
	if err := tr.Transform(&Z, X); err != nil {
		t.Fatal(err)
	}
	if err := tr.Transform(&ZT, mat.DenseCopyOf(X.T()).T()); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(&Z, &ZT) {
		t.Error("Transform of a transposed view differs")
	}
	if err := tr.Transform(&Z, nil); err == nil {
		t.Error("nil points: no error")
	}
	if err := tr.Transform(&Z, &mat.Dense{}); err == nil {
		t.Error("no points: no error")
	}
	if tr.Options().Degree != 4 {
		t.Error("Options")
	}
}
