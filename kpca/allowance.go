package kpca

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// A certificate's rounding allowance (docs/design.md, "Certificates", "Rounding"). The
// certificate is of A = C·K·C (centred) or K, K the exact kernel values of the stored
// points; what a pass computes differs from A·Q by the kernel values' rounding, the
// products' and the centring's. Each is bounded here on the scale of the kernel
// values themselves — for an RBF of wide bandwidth they are near 1 while ‖A‖ is tiny —
// by worst-case bounds (γₙ = nε/(1 − nε), any order of summation), which hold on every
// input: the probabilistic √n of Higham and Mary assumes rounding errors that behave
// like independent random variables, and sums of nearly equal kernel values are where
// they do not.

// gammaN is γₙ = nε/(1 − nε), the worst-case relative error of a sum or dot product of
// n terms in any order (Higham 2002, Lemma 3.1).
func gammaN(n int) float64 {
	u := float64(n) * vec.Roundoff
	return u / (1 - u)
}

// kernelError returns (e, a) such that every computed kernel value of the model's
// points, k̂ᵢⱼ from kernel.Cross's blocks, satisfies |k̂ᵢⱼ − kᵢⱼ| ≤ e + a·√|kᵢⱼ|, kᵢⱼ the
// exact value of the kernel at the stored points (docs/design.md, "Certificates",
// from the bounds of "Kernel blocks"). Then ‖K̂ − K‖₂, at most its largest row sum,
// is at most m·e + a·√(m·S) with S the largest row sum of |K| (Cauchy–Schwarz on
// Σⱼ√kᵢⱼ). A kernel kpca does not know, kernel.Func among them, is its own Eval: its
// values are exact by definition, e = a = 0.
func (md *Model) kernelError() (e, a float64) {
	k := md.kern
	if s, ok := k.(kernel.Specified); ok && kernel.IsBuiltin(s.Spec().Name) {
		if c, err := kernel.New(s.Spec()); err == nil {
			k = c
		}
	}
	d := float64(md.d)
	eps := vec.Roundoff
	// tiny covers the products and sums that may underflow: 2⁻¹⁰⁷⁴ each, 4d of them a
	// value at most (Kernel blocks), far below anything else here.
	tiny := 4 * (d + 4) * 0x1p-1074
	switch k := k.(type) {
	case kernel.RBF:
		// A value from the identity ‖x̃‖² + ‖ỹ‖² − 2x̃ᵀỹ has an exponent off by at most
		// cᵈ·ε·S·γ, cᵈ = d + ⌈d/8⌉ + 12, S = ‖x̃‖² + ‖ỹ‖² (x̃ shifted by the points' mean),
		// and is taken from it only where that is at most τ·max(1, v), v the exponent;
		// the division or product adds ε·v and exp up to 4 ulp (8ε), a direct
		// evaluation (d + 3)·ε·max(1, v) in all. The value's error is its relative error
		// times k, and k·max(1, v) = max(k, −k·ln k) ≤ √k for k ≤ 1.
		gamma := k.Gamma
		if gamma == 0 {
			gamma = 1 / (2 * k.Sigma * k.Sigma)
		}
		cd := d + math.Ceil(d/8) + 12
		identity := math.Min(blockTau, cd*eps*gamma*2*md.maxShiftedNorm2())
		a = 1.01*identity + (d+12)*eps
		return tiny, a
	case kernel.Laplacian:
		// Eval's bits: the L1 distance's d rounded differences and sums, (d + 2)·ε
		// relative; the division or product ε·v; exp within 4 ulp (8ε) whichever routine
		// computes it: with k·max(1, v) ≤ √k as for the RBF, (d + 11)·ε, and one ε more
		// for the second-order terms.
		return tiny, (d + 12) * eps
	case kernel.Polynomial:
		// Kernel blocks: within 2·deg·(d + 4)·ε·Mᵈᵉᵍ of Eval, M = γ‖x‖‖y‖ + |c|; Eval
		// within as much of the exact value (the same operations in another order):
		// twice that.
		deg := float64(k.Degree)
		mm := k.Gamma*md.maxNorm2() + math.Abs(k.Coef0)
		return 4*deg*(d+4)*eps*math.Pow(mm, deg) + tiny, 0
	case kernel.Linear:
		return 4*(d+4)*eps*md.maxNorm2() + tiny, 0
	case kernel.Sigmoid:
		mm := k.Gamma*md.maxNorm2() + math.Abs(k.Coef0)
		return 4*(d+4)*eps*mm + 16*eps + tiny, 0
	case kernel.Cosine:
		// 2(d + 4)·ε of Eval, plus (4d + 4)·2⁻¹⁰⁷⁴/(‖x‖‖y‖) where products underflow;
		// the smallest norms bound the latter.
		n := md.minNorm2()
		under := 0.0
		if n > 0 {
			under = (4*d + 4) * 0x1p-1074 / n
		} else if md.d > 0 {
			under = 0 // a zero point's values are exactly 0
		}
		return 4*(d+4)*eps + 2*under + tiny, 0
	}
	return 0, 0
}

// blockTau is kernel.Cross's tolerance τ for the RBF identity (kernel/block.go,
// blockTolerance): an entry is taken from it only where its exponent's error is at
// most τ·max(1, v).
const blockTau = 1e-13

// maxNorm2 returns the largest squared norm ‖xᵢ‖² of the stored points, with a margin
// for its own rounding.
func (md *Model) maxNorm2() float64 {
	var best float64
	for i := range md.m {
		var s float64
		for _, v := range md.x[i*md.d : (i+1)*md.d] {
			s += v * v
		}
		best = math.Max(best, s)
	}
	return best * (1 + gammaN(md.d+1))
}

// minNorm2 returns the smallest nonzero norm ‖xᵢ‖ of the stored points, with a margin for
// its rounding (0 if every point is zero).
func (md *Model) minNorm2() float64 {
	best := math.Inf(1)
	for i := range md.m {
		var s float64
		for _, v := range md.x[i*md.d : (i+1)*md.d] {
			s += v * v
		}
		if s > 0 {
			best = math.Min(best, s)
		}
	}
	if math.IsInf(best, 1) {
		return 0
	}
	return math.Sqrt(best * (1 - gammaN(md.d+1)))
}

// maxShiftedNorm2 bounds the largest ‖x̃ᵢ‖², x̃ = x − μ the points shifted by their mean
// as kernel.Cross shifts them: the mean computed here may differ from the Cross's by
// the rounding of a sum of m terms, at most γₘ·max|xᵢₗ| a coordinate, which is added to
// each norm.
func (md *Model) maxShiftedNorm2() float64 {
	m, d := md.m, md.d
	mu := make([]float64, d)
	var big float64
	for i := range m {
		for l, v := range md.x[i*d : (i+1)*d] {
			mu[l] += v
			big = math.Max(big, math.Abs(v))
		}
	}
	for l := range mu {
		mu[l] /= float64(m)
	}
	var best float64
	for i := range m {
		var s float64
		for l, v := range md.x[i*d : (i+1)*d] {
			s += (v - mu[l]) * (v - mu[l])
		}
		best = math.Max(best, s)
	}
	r := math.Sqrt(best*(1+gammaN(d+2))) + math.Sqrt(float64(d))*(gammaN(m+1)+2*vec.Roundoff)*big
	return r * r
}

// passError bounds what a pass adds to A·Q (docs/design.md, "Certificates",
// "Rounding"): with N ≥ ‖|K̂|‖₂ and dK ≥ ‖K̂ − K‖₂,
//
//	‖pass(Q) − A·Q‖₂ ≤ dK·‖Q‖₂ + g·N·‖|Q|‖₂ + N·‖1ᵀQ‖₂/√m   (the last term centred only)
//
// g = γ_h for the products alone, h the depth of their sums (newPassError), plus the
// centring's mean and subtraction; the last term is C·K·(I − C)·Q, what assuming
// C·Q = Q neglects.
type passError struct {
	dK, g, n float64
	m        int
	centred  bool
}

// newPassError returns the pass error of a model of m points whose computed kernel
// matrix, less the offset c the pass subtracted (passer.offset), has absolute row sums
// at most rows (from the pass), the kernel values' error being e + a·√|k|
// (kernelError), and tile the order of the pass's tiles.
func newPassError(m, tile int, rows, c, e, a float64, centred bool) passError {
	gm := gammaN(m)
	// Row sums of |K̂ − c| summed in floating point: the true ones are at most
	// rows/(1 − γₘ). A diagonal tile's lower half is computed apart from its upper half,
	// so its column sums may exceed its row sums by twice the values' error a column:
	// ‖|K̂ − c|‖₂ ≤ √(‖·‖₁·‖·‖∞).
	n := rows/(1-gm) + 2*float64(tile)*(e+a)
	s := n + float64(m)*(math.Abs(c)+e+a) // row sums of |K|
	// The kernel values' error, and the subtraction of c's, ε·|k̂ − c| a value.
	dK := float64(m)*e + a*math.Sqrt(float64(m)*s) + vec.Roundoff*n
	// An entry of a product is a dgemm's sum of at most T terms, then the sum of
	// ⌈m/T⌉ + 1 such (passer.own): γ_h, h = T + ⌈m/T⌉ + 1. Centred, the compensated
	// column mean is within 2ε·|μ| + γ²ₘ·Σ|wᵢ|/m of the exact one and the subtraction
	// rounds once more: (4ε + γ²ₘ)·‖ŵ‖ in all, ‖ŵ‖ ≤ (1 + γ_h)·N·‖|q|‖.
	gh := gammaN(tile + (m+tile-1)/tile + 1)
	pe := passError{dK: dK, g: gh, n: n, m: m, centred: centred}
	if centred {
		pe.g = gh + (4*vec.Roundoff+gm*gm)*(1+gh)
	}
	return pe
}

// block returns the bound on ‖pass(Q) − A·Q‖₂ for the block Q, given norm ≥ ‖Q‖₂: the
// kernel values' error is a matrix, ‖ΔK·Q‖₂ ≤ dK·‖Q‖₂, the products' is componentwise,
// |ΔW| ≤ g·|K̂ − c|·|Q|, which takes ‖|Q|‖₂ (up to √c·‖Q‖₂ for c columns of mixed signs).
func (pe passError) block(Q *mat.Dense, norm float64) float64 {
	r := pe.dK*norm + pe.g*pe.n*absNorm(Q)
	if pe.centred {
		r += pe.n * sumNorm(Q) / math.Sqrt(float64(pe.m))
	}
	return r
}

// column returns the bound on ‖pass(z) − A·z‖ for the j-th column z of Z.
func (pe passError) column(Z *mat.Dense, j int) float64 {
	z := Z.ColView(j)
	r := (pe.dK + pe.g*pe.n) * mat.Norm(z, 2) * (1 + gammaN(pe.m))
	if pe.centred {
		var s, abs float64
		for i := range z.Len() {
			s += z.AtVec(i)
			abs += math.Abs(z.AtVec(i))
		}
		r += pe.n * (math.Abs(s) + gammaN(pe.m)*abs) / math.Sqrt(float64(pe.m))
	}
	return r
}

// absNorm returns a bound on ‖|A|‖₂, the norm of A's absolute values (which bounds
// ‖A‖₂): the square root of the largest eigenvalue of |A|ᵀ|A|, whose computed entries,
// sums of positive terms, are within γₘ of theirs, and whose eigenvalue is within 2cε
// of its norm (LAPACK's backward error).
func absNorm(A *mat.Dense) float64 {
	r, c := A.Dims()
	abs := mat.NewDense(r, c, nil)
	abs.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, A)
	g := mat.NewSymDense(c, nil)
	g.SymOuterK(1, abs.T())
	v := blockNorm(g, 0, c)
	return v * math.Sqrt((1+gammaN(r))*(1+2*float64(c)*vec.Roundoff))
}

// sumNorm returns a bound on ‖1ᵀA‖₂: the column sums by Sum2 (compensated, Ogita, Rump
// and Oishi 2005), each within ε·|s| + γ²ₘ·Σ|aᵢⱼ| of the exact one. The plain sums'
// bound, γₘ·Σ|aᵢⱼ|, was the largest term of a centred certificate's allowance: the
// columns of A are centred, their exact sums nearly zero.
func sumNorm(A *mat.Dense) float64 {
	r, c := A.Dims()
	col := make([]float64, r)
	g := gammaN(r + 1)
	var t float64
	for j := range c {
		mat.Col(col, j, A)
		s, abs := dot2(col, nil, 0)
		s = math.Abs(s)*(1+2*vec.Roundoff) + g*g*abs
		t += s * s
	}
	return math.Sqrt(t) * (1 + gammaN(c+1))
}

// dot2 returns xᵀy + extra (Σx + extra when y is nil) by Dot2 (Ogita, Rump and Oishi
// 2005, Algorithm 5.3: TwoProduct by FMA and TwoSum, the errors summed apart), which is
// within ε·|result| + γ²ₙ₊₁·abs of the exact value, and abs = Σ|xᵢyᵢ| + |extra|.
func dot2(x, y []float64, extra float64) (float64, float64) {
	s, c, abs := extra, 0.0, math.Abs(extra)
	for i, v := range x {
		p, pe := v, 0.0
		if y != nil {
			p = v * y[i]
			pe = math.FMA(v, y[i], -p)
		}
		t := s + p
		z := t - s
		c += ((s - (t - z)) + (p - z)) + pe
		s = t
		abs += math.Abs(p)
	}
	return s + c, abs
}

// gramError returns a bound on ‖VᵀV − I‖₂ for the m×k V, whose columns should be
// orthonormal: VᵀV − I computed by dot2, each entry within ε·|its value| +
// γ²ₘ₊₁·(|vᵢ|ᵀ|vⱼ| + δᵢⱼ), so that the matrix is within ε·‖·‖_F + γ²ₘ₊₁·(ν² + 1) of the
// exact one, ν = ‖|V|‖₂; and its norm, by its eigenvalues, within LAPACK's backward
// error 2kε of its own. The plain product's rounding, γₘ·ν², made δ·max|θ| the largest
// term of the allowance of an uncentred certificate.
func gramError(V *mat.Dense, nu float64) float64 {
	m, k := V.Dims()
	cols := make([][]float64, k)
	for j := range k {
		cols[j] = mat.Col(nil, j, V)
	}
	g := mat.NewSymDense(k, nil)
	for i := range k {
		for j := i; j < k; j++ {
			extra := 0.0
			if i == j {
				extra = -1
			}
			v, _ := dot2(cols[i], cols[j], extra)
			g.SetSym(i, j, v)
		}
	}
	vals, err := native.EigenSym(nil, nil, g)
	if err != nil {
		return math.Inf(1)
	}
	s := math.Max(math.Abs(vals[0]), math.Abs(vals[k-1]))
	gm := gammaN(m + 1)
	return s*(1+2*float64(k)*vec.Roundoff) + vec.Roundoff*mat.Norm(g, 2) + gm*gm*(nu*nu+1)
}

// tailBound returns the tail estimate with the passes' rounding: the largest x with
//
//	x^q ≤ c·(M + Σᵢ x^(q−i)·eᵢ),   c = α·√(2/π),
//
// M the largest column norm of the computed B^q·ω and eᵢ the error the i-th pass (its
// product and projection) adds to it, carried to the end by B^(q−i), whose norm is x:
// the estimator's bound ‖B‖^q ≤ c·maxᵢ‖B^q·ωᵢ‖ applied to the exact products.
func tailBound(c, M float64, e []float64) float64 {
	q := len(e)
	f := func(x float64) float64 {
		s := M
		for i, ei := range e {
			s += math.Pow(x, float64(q-1-i)) * ei
		}
		return math.Pow(x, float64(q)) - c*s
	}
	lo, hi := 0.0, math.Max(math.Pow(c*M, 1/float64(q)), 1e-300)
	for f(hi) <= 0 {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return hi
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if f(mid) <= 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
