package kernel

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sklearnKernels is testdata/sklearn_kernels.json, written by
// testdata/sklearn_kernels.py: scikit-learn 1.2.1's sigmoid_kernel and
// cosine_similarity of six points of dimension 5, one of them zero.
type sklearnKernels struct {
	Sklearn string      `json:"sklearn"`
	X       [][]float64 `json:"x"`
	Sigmoid []struct {
		Gamma float64     `json:"gamma"`
		Coef0 float64     `json:"coef0"`
		K     [][]float64 `json:"k"`
	} `json:"sigmoid"`
	Cosine [][]float64 `json:"cosine"`
}

// exactDot returns xᵀy rounded once to float64 (math/big, exact products and sums).
func exactDot(x, y []float64) float64 {
	s := new(big.Float).SetPrec(4096)
	p := new(big.Float).SetPrec(4096)
	for i := range x {
		p.Mul(big.NewFloat(x[i]).SetPrec(4096), big.NewFloat(y[i]))
		s.Add(s, p)
	}
	v, _ := s.Float64()
	return v
}

// TestScikitLearnKernels: Eval, Matrix and blocks of the sigmoid and cosine kernels give
// scikit-learn's values, the cosine exactly 0 with the zero point. scikit-learn forms
// X·Xᵀ by a BLAS product and numpy's tanh, or the product of the rows scaled to unit
// length, so each of its values and ours is within the rounding of a sum of d products
// of the exact one, d·ε·M (M = γ‖x‖‖y‖ + |c| for the sigmoid, 1 for the cosine, whose
// scaling adds a few ε), plus the few ulp of tanh and of the quotient: the two within
// 2(d+4)·ε·M + 8ε, the bound of blockBound.
func TestScikitLearnKernels(t *testing.T) {
	raw, err := os.ReadFile("testdata/sklearn_kernels.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref sklearnKernels
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	n, d := len(ref.X), len(ref.X[0])
	X := mat.NewDense(n, d, nil)
	for i, row := range ref.X {
		X.SetRow(i, row)
	}
	check := func(k Kernel, want [][]float64, size func(x, y []float64) float64) {
		t.Helper()
		K := Matrix(k, X)
		var B mat.Dense
		Block(&B, k, X, X)
		checked := 0
		for i := range n {
			for j := range n {
				x, y := X.RawRowView(i), X.RawRowView(j)
				bound := 2*float64(d+4)*eps*size(x, y) + 8*eps
				for what, got := range map[string]float64{"Eval": k.Eval(x, y), "Matrix": K.At(i, j), "Block": B.At(i, j)} {
					if !(math.Abs(got-want[i][j]) <= bound) {
						t.Errorf("%v (%d,%d) %s: %v, scikit-learn %v (|Δ| = %.3g, bound %.3g)", k, i, j, what, got, want[i][j], math.Abs(got-want[i][j]), bound)
					}
					checked++
				}
			}
		}
		if checked != 3*n*n {
			t.Fatalf("%v: %d values checked", k, checked)
		}
	}
	if len(ref.Sigmoid) != 3 {
		t.Fatalf("%d sigmoid kernels in the reference, want 3", len(ref.Sigmoid))
	}
	for _, s := range ref.Sigmoid {
		k := Sigmoid{Gamma: s.Gamma, Coef0: s.Coef0}
		check(k, s.K, func(x, y []float64) float64 { return k.Gamma*norm2(x)*norm2(y) + math.Abs(k.Coef0) })
	}
	check(Cosine{}, ref.Cosine, func(x, y []float64) float64 { return 1 })
	// The zero point (row 1): scikit-learn's 0, ours exactly.
	for j := range n {
		if ref.Cosine[1][j] != 0 || (Cosine{}).Eval(X.RawRowView(1), X.RawRowView(j)) != 0 {
			t.Errorf("cosine with the zero point: scikit-learn %v, Eval %v", ref.Cosine[1][j], (Cosine{}).Eval(X.RawRowView(1), X.RawRowView(j)))
		}
	}
}

// TestSigmoidCosineFormula compares Eval with the definitions evaluated from the exactly
// rounded inner product (exactDot) on random points of dimensions 1 to 123 and scales
// 1e-3 to 1e3: Eval's vec.Dot is within d·ε·‖x‖‖y‖ of it, so the sigmoid's argument
// within (d+2)·ε·M, M = γ‖x‖‖y‖ + |c|, and its value within (d+2)·ε·M + 8ε (two tanh
// of at most 4ε each); the cosine's norms (vec.Norm, the test's sqrt of a float64
// sum) each within (d+3)·ε, relative, so its value within (3d+10)·ε.
func TestSigmoidCosineFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(111, 112))
	for _, d := range []int{1, 2, 5, 8, 123} {
		for _, scale := range []float64{1e-3, 1, 1e3} {
			for range 30 {
				x, y := randVec(rng, d), randVec(rng, d)
				for i := range x {
					x[i] *= scale
					y[i] *= scale
				}
				g := exactDot(x, y)
				for _, k := range []Sigmoid{{Gamma: 0.3, Coef0: -0.5}, {Gamma: 1 / (scale * scale), Coef0: 1}, {Gamma: 2, Coef0: 0}} {
					m := k.Gamma*norm2(x)*norm2(y) + math.Abs(k.Coef0)
					want := math.Tanh(k.Gamma*g + k.Coef0)
					if got := k.Eval(x, y); !(math.Abs(got-want) <= float64(d+2)*eps*m+8*eps) {
						t.Errorf("%v d=%d scale %g: %v, tanh(γ·xᵀy + c) %v", k, d, scale, got, want)
					}
				}
				want := g / (math.Sqrt(exactDot(x, x)) * math.Sqrt(exactDot(y, y)))
				if got := (Cosine{}).Eval(x, y); !(math.Abs(got-want) <= float64(3*d+10)*eps) {
					t.Errorf("cosine d=%d scale %g: %v, xᵀy/(‖x‖‖y‖) %v (|Δ| = %.3g)", d, scale, got, want, math.Abs(got-want))
				}
				if v := (Cosine{}).Eval(x, x); !(math.Abs(v-1) <= float64(3*d+10)*eps) {
					t.Errorf("cosine d=%d: k(x, x) = %v", d, v)
				}
			}
		}
	}
	// Points whose squared norms underflow or overflow: vec.Norm scales them, so the
	// cosine of a point with a negative multiple of itself is −1 (up to the rounding of
	// a few operations) wherever ‖x‖·‖y‖ and xᵀy are normal.
	for _, s := range []float64{1e-200, 1e-160, 1e160} {
		x := []float64{3 * s, -4 * s}
		if v := (Cosine{}).Eval(x, []float64{-3, 4}); math.Abs(v+1) > 8*eps {
			t.Errorf("cosine at scale %g: k(x, −x/s) = %v, want −1", s, v)
		}
	}
}

// TestSigmoidIndefinite: the sigmoid kernel is not positive semi-definite (docs on
// Sigmoid): the kernel matrix of 60 random points in [0, 1)⁵ with γ = 0.3 and c = −0.5
// has an eigenvalue below −1e-3 times the largest, far beyond rounding (1e-13·n), and
// its diagonal has negative entries near the origin. Every value still lies in [−1, 1].
func TestSigmoidIndefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	X := randDense(rng, 60, 5)
	k := Sigmoid{Gamma: 0.3, Coef0: -0.5}
	K := Matrix(k, X)
	var eig mat.EigenSym
	if !eig.Factorize(K, false) {
		t.Fatal("EigenSym failed")
	}
	vals := eig.Values(nil)
	lo, hi := vals[0], vals[len(vals)-1]
	if !(hi > 0) || !(lo < -1e-3*hi) {
		t.Errorf("%v: eigenvalues in [%g, %g], want one below −1e-3·largest", k, lo, hi)
	}
	if v := k.Eval([]float64{0.1, 0, 0, 0, 0}, []float64{0.1, 0, 0, 0, 0}); !(v < 0) {
		t.Errorf("%v: k(x, x) = %v near the origin, want negative", k, v)
	}
	for i := range 60 {
		for j := range 60 {
			if v := K.At(i, j); !(v >= -1 && v <= 1) {
				t.Fatalf("%v: K[%d][%d] = %v", k, i, j, v)
			}
		}
	}
}

// TestCosineZero: a zero point has cosine 0 with every point, itself included, exactly,
// in Eval, Column, blocks, Matrix, MatrixTo and ProjectTo (scikit-learn's normalize
// leaves a zero row zero); its products in ProjectTo are 0 and it is not reported as
// a point with a value that is not finite.
func TestCosineZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(113, 114))
	X, Y := randDense(rng, 5, 4), randDense(rng, 7, 4)
	for l := range 4 {
		X.Set(1, l, 0)
		Y.Set(3, l, 0)
		Y.Set(5, l, math.Copysign(0, -1))
	}
	k := Cosine{}
	zero := []float64{0, 0, 0, 0}
	if v := k.Eval(zero, zero); v != 0 {
		t.Errorf("k(0, 0) = %v", v)
	}
	col := make([]float64, 7)
	Column(col, k, Y, zero)
	for j, v := range col {
		if v != 0 {
			t.Errorf("Column against 0: entry %d is %v", j, v)
		}
	}
	B := checkBlock(t, k, X, Y)
	K := checkMatrix(t, k, Y)
	var KT mat.SymDense
	NewCross(k, Y).MatrixTo(&KT)
	for j := range 7 {
		if B.At(1, j) != 0 {
			t.Errorf("block: k(0, y_%d) = %v", j, B.At(1, j))
		}
		for _, z := range []int{3, 5} {
			if K.At(z, j) != 0 || KT.At(z, j) != 0 {
				t.Errorf("Matrix/MatrixTo: k(0, y_%d) = %v, %v", j, K.At(z, j), KT.At(z, j))
			}
		}
	}
	for i := range 5 {
		if B.At(i, 3) != 0 || B.At(i, 5) != 0 {
			t.Errorf("block: k(x_%d, 0) = %v, %v", i, B.At(i, 3), B.At(i, 5))
		}
	}
	P := randVectors(rng, 3, 7)
	proj := checkProject(t, k, X, Y, P, nil)
	for q := range 3 {
		if proj.At(1, q) != 0 {
			t.Errorf("ProjectTo: the zero point's product %d is %v", q, proj.At(1, q))
		}
	}
}
