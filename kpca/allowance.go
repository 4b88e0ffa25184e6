package kpca

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// A certificate's rounding allowance (docs/design.md, "Certificates", "Rounding"). The
// certificate is of A = C·K·C (centred) or K, K the exact kernel values of the stored
// points; what a pass computes differs from A·Q by the kernel values' rounding, the
// products' and the centring's. Each is bounded here on the scale of the kernel
// values themselves — for an RBF of wide bandwidth they are near 1 while ‖A‖ is tiny —
// by worst-case bounds (γₙ = nε/(1 − nε), any order of summation), which hold on every
// input: the probabilistic √n of Higham and Mary assumes rounding errors that behave
// like independent random variables, and sums of nearly equal kernel values are where
// they do not. This file bounds the kernel values' error; allowance_pass.go, the
// products' and the centring's.

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
	return best * (1 + vec.Gamma(md.d+1))
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
	return math.Sqrt(best * (1 - vec.Gamma(md.d+1)))
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
	r := math.Sqrt(best*(1+vec.Gamma(d+2))) + math.Sqrt(float64(d))*(vec.Gamma(m+1)+2*vec.Roundoff)*big
	return r * r
}
