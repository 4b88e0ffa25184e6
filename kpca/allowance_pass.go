package kpca

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// The rounding of a certificate's passes and products (docs/design.md, "Certificates",
// "Rounding"): what a pass adds to A·Q beyond the kernel values' own error
// (allowance.go), the compensated sums and norms that measure it, and the allowance it
// makes for the Ritz values and residuals.

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
	gm := vec.Gamma(m)
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
	gh := vec.Gamma(tile + (m+tile-1)/tile + 1)
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
	r := (pe.dK + pe.g*pe.n) * mat.Norm(z, 2) * (1 + vec.Gamma(pe.m))
	if pe.centred {
		var s, abs float64
		for i := range z.Len() {
			s += z.AtVec(i)
			abs += math.Abs(z.AtVec(i))
		}
		r += pe.n * (math.Abs(s) + vec.Gamma(pe.m)*abs) / math.Sqrt(float64(pe.m))
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
	v := truncation.BlockNorm(g, 0, c)
	return v * math.Sqrt((1+vec.Gamma(r))*(1+2*float64(c)*vec.Roundoff))
}

// sumNorm returns a bound on ‖1ᵀA‖₂: the column sums by Sum2 (compensated, Ogita, Rump
// and Oishi 2005), each within ε·|s| + γ²ₘ·Σ|aᵢⱼ| of the exact one. The plain sums'
// bound, γₘ·Σ|aᵢⱼ|, was the largest term of a centred certificate's allowance: the
// columns of A are centred, their exact sums nearly zero.
func sumNorm(A *mat.Dense) float64 {
	r, c := A.Dims()
	col := make([]float64, r)
	g := vec.Gamma(r + 1)
	var t float64
	for j := range c {
		mat.Col(col, j, A)
		s, abs := vec.Dot2(col, nil, 0)
		s = math.Abs(s)*(1+2*vec.Roundoff) + g*g*abs
		t += s * s
	}
	return math.Sqrt(t) * (1 + vec.Gamma(c+1))
}

// gramError returns a bound on ‖VᵀV − I‖₂ for the m×k V, whose columns should be
// orthonormal: VᵀV − I computed by vec.Dot2, each entry within ε·|its value| +
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
			v, _ := vec.Dot2(cols[i], cols[j], extra)
			g.SetSym(i, j, v)
		}
	}
	vals, err := native.EigenSym(nil, nil, g)
	if err != nil {
		return math.Inf(1)
	}
	s := math.Max(math.Abs(vals[0]), math.Abs(vals[k-1]))
	gm := vec.Gamma(m + 1)
	return s*(1+2*float64(k)*vec.Roundoff) + vec.Roundoff*mat.Norm(g, 2) + gm*gm*(nu*nu+1)
}

// rounding is the allowance for rounding in a certificate (docs/design.md,
// "Certificates", "Rounding"): a bound on how far the computed Ritz values θ and the
// residual norms ρ may be from those of the exact A on the tracked vectors V. With F
// the error of the first pass's K′V (‖F‖₂ ≤ pe.block(V, √(1 + δ))), ν = ‖|V|‖₂ and
// δ ≥ ‖VᵀV − I‖₂:
//
//	θ: ‖V‖·‖F‖ + γₘ·ν·‖K̂′V‖_F (the product VᵀW) + (δ/(1 − δ) + 2kε)·max|θ|
//
// — the last the eigenvalues of VᵀAV against those of A compressed to span(V)
// (Ostrowski: a congruence by (VᵀV)^½ scales them by at most 1 ± δ) and LAPACK's backward
// error — and
//
//	ρ: ‖F‖·(1 + 2kε) + γₖ·√k·(‖K̂′V‖_F + max|θ|·ν) + k·γₘ·‖R‖_F
//
// (the products by the k×k S and Θ, and the norm of R from RᵀR). The larger of the two
// widens every bound.
func rounding(pe passError, V, WV, R *mat.Dense, theta []float64, nu, delta float64) float64 {
	if !(delta < 1) {
		return math.Inf(1)
	}
	_, k := V.Dims()
	m := pe.m
	var top float64
	for _, v := range theta {
		top = math.Max(top, math.Abs(v))
	}
	f := pe.block(V, math.Sqrt(1+delta))
	wf := mat.Norm(WV, 2) // Frobenius
	kk := float64(k)
	onTheta := math.Sqrt(1+delta)*f + vec.Gamma(m)*nu*wf + (delta/(1-delta)+2*kk*vec.Roundoff)*top
	onRho := f*(1+2*kk*vec.Roundoff) + vec.Gamma(k)*math.Sqrt(kk)*(wf+top*nu) + kk*vec.Gamma(m)*mat.Norm(R, 2)
	return math.Max(onTheta, onRho) * (1 + 4*vec.Roundoff)
}
