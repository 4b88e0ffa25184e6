package kpca

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// restartCertificate returns the certificate of E = K′ − U·Θ·Uᵀ for the Ritz pairs
// (values Θ, vectors U = Q·S) a polish keeps, from the polish alone, for a positive
// semi-definite K′ (docs/design.md, "Polishing"). In the basis [U, U⊥],
//
//	E = [[UᵀK′U − Θ, Rᵀ], [R, B]],   R = K′U − U·Θ,   B = U⊥ᵀK′U⊥ ⪰ 0,
//
// and the block Krylov relation gives R without another pass: K′Q = Q·T + F with F zero
// but in the last block, F_last = (I − QQᵀ)·K′Q_last, so R = F_last·S_last (S_last the
// rows of S of the last block) but for the directions orthonormalise dropped, each below
// its tolerance (rnd includes their sum). B's trace is tr K′ − Σθ, from the running
// sums, and the other Ritz values φ₁ ≥ … ≥ φₛ of the Krylov space interlace B's top
// eigenvalues (Cauchy: φⱼ ≤ λⱼ(B)), so that, B being positive semi-definite,
//
//	λmax(B) ≤ b = tr B − Σⱼ₌₂…ₛ φⱼ⁺.
//
// With σ ≥ ‖R‖₂ and g ≥ ‖UᵀK′U − Θ‖₂ (rounding), λmax(E) ≤ g + (b + √(b² + 4σ²))/2 and
// −λmin(E) ≤ g + σ; and E = P − N with P = G⁺ + S⁺ + B, N = G⁻ + S⁻ (S = [[0, Rᵀ], [R, 0]],
// whose eigenvalues are ±σᵢ(R)), both positive semi-definite, of traces at most
// k·g + Σσᵢ + tr B and k·g + Σσᵢ: the certificate's invariants (certificate). Every
// quantity computed from K′ is off by at most η = (τ + 2mε)·m·max k(xᵢ, xᵢ), τ the
// kernel values' accuracy (kernelAccuracy) — the norm of the error of the kernel values
// and of the products' sums, the entries of a positive semi-definite K bounded by its
// diagonal — which every term includes, with rnd, the rounding of the Rayleigh–Ritz step.
func (md *Model) restartCertificate(Q, last *mat.Dense, tq, sLast mat.Matrix, rest, values []float64, rnd float64) *certificate {
	m := md.m
	var kmax float64
	for i := range m {
		x := md.point(i)
		kmax = math.Max(kmax, math.Abs(md.kern.Eval(x, x)))
	}
	eta := (kernelAccuracy + 2*float64(m)*vec.Roundoff) * float64(m) * kmax
	rnd += eta

	// R = (K′Q_last − Q·(QᵀK′Q_last))·S_last and its singular values, from RᵀR.
	var f, r mat.Dense
	native.Mul(&f, Q, tq)
	f.Sub(last, &f)
	native.Mul(&r, &f, sLast)
	_, k := r.Dims()
	g := mat.NewSymDense(k, nil)
	native.Syrk(blas.Trans, 1, r.RawMatrix(), 0, g.RawSymmetric())
	sv, err := native.EigenSym(nil, nil, g)
	if err != nil {
		return nil // a non-finite R: keep the old certificate
	}
	var sigma, nuclear float64
	for _, v := range sv {
		s := math.Sqrt(math.Max(v, 0))
		sigma = math.Max(sigma, s)
		nuclear += s
	}
	sigma += rnd
	nuclear += float64(k) * rnd
	gap := rnd // g: ‖UᵀK′U − Θ‖₂

	// tr B = tr K′ − Σ uⱼᵀK′uⱼ, and the interlacing of the other Ritz values (ascending in
	// rest: the largest is the last, which is not subtracted).
	var sum, abs float64
	for _, v := range values {
		sum += v
		abs += math.Abs(v)
	}
	trB := math.Max(md.traceK()+md.traceTol(len(values), abs)-sum+float64(k)*gap, 0)
	b := trB
	for i := 0; i+1 < len(rest); i++ {
		b -= math.Max(rest[i]-rnd, 0)
	}
	b = math.Max(b, 0)
	c := md.cert
	c.PosNorm = gap + (b+math.Sqrt(b*b+4*sigma*sigma))/2
	c.NegNorm = gap + sigma
	c.PosTrace = float64(k)*gap + nuclear + trB
	c.NegTrace = float64(k)*gap + nuclear
	c.Slack = 0
	return &c
}
