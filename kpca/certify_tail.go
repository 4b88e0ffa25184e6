package kpca

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// The tail of a certificate (docs/design.md, "Certificates", "The tail"): μ, the largest
// eigenvalue of K′ on the complement of the tracked span, bounds every eigenvalue the
// model does not track, and no finite computation bounds it deterministically; a
// randomised estimator from Gaussian test vectors does, with a failure probability
// chosen by their number.

// testAlpha is α of the tail estimator: each test vector divides the failure
// probability by α, and the estimate overestimates ‖B^q‖ by up to α·√(2/π). Halko et
// al. take α = 10, which needs 9 vectors for a failure probability of 1e-9 but
// overestimates by up to 8; α = 2 needs 30, whose products cost little next to the
// kernel values a pass computes anyway, and overestimates by up to 1.6 (1.26 after two
// passes).
const testAlpha = 2

// testVectors is the number p of test vectors for a failure probability f: the least p
// with α^(−p) ≤ f.
func testVectors(f float64) int {
	return max(1, int(math.Ceil(-math.Log(f)/math.Log(testAlpha)-1e-9)))
}

// project removes from the columns of A their parts along the orthonormal columns of V,
// twice, and, centred, along 1.
func project(A, V *mat.Dense, centred bool) {
	for range 2 {
		if centred {
			centreColumns(A)
		}
		var c, vc mat.Dense
		native.Mul(&c, V.T(), A)
		native.Mul(&vc, V, &c)
		A.Sub(A, &vc)
	}
}

// tail returns the bound on the tail, μ = λmax of K′ compressed to the complement of
// the tracked span, from the test vectors of the first pass and passes − 1 more passes
// with ps (docs/design.md, "Certificates", "The tail"): B = P·K′·P, P the projector on
// the complement of the span, applied to the test vectors passes times;
// ‖B‖ ≤ (α·√(2/π)·maxᵢ‖B^q·ωᵢ‖)^(1/q) with probability at least 1 − α^(−p) (Halko,
// Martinsson and Tropp 2011, Lemma 4.1, applied to B^q, whose norm is ‖B‖^q for a
// symmetric B), α = testAlpha. Each pass adds its rounding to B^q·ω (passError) and
// each projection its own, at most pi of what it projects; the first pass's input is
// P̂ω, within pi·‖ω‖ of P·ω, which B (‖B‖ ≤ N) carries on (tailBound).
func (s *certification) tail(ctx context.Context, ps *passer, passes int) (float64, error) {
	m, k, p := s.m, s.k, s.p
	pi := projectionError(s.delta, s.nu, vec.Gamma(m), k)
	Z := cloneDense(s.W.Slice(0, m, k, k+p))
	errs := make([]float64, 0, passes)
	errs = append(errs, passColumns(s.pe, s.Om, Z, pi)+s.pe.n*pi*s.omegaNorm)
	project(Z, s.V, s.centred)
	for range passes - 1 {
		var next mat.Dense
		if err := ps.pass(ctx, &next, Z); err != nil {
			return 0, err
		}
		errs = append(errs, passColumns(s.pe, Z, &next, pi))
		project(&next, s.V, s.centred)
		Z = &next
	}
	return tailBound(testAlpha*math.Sqrt(2/math.Pi), maxColumnNorm(Z), errs), nil
}

// projectionError bounds ‖P̂y − P·y‖/‖y‖ for project's two rounds of removing the parts
// along V (and 1): to first order the loss of orthogonality δ, the products' γₘ·(ν² + 1)
// and the k + 4 roundings of each entry, doubled for the second round and doubled
// again as margin for the terms of second order.
func projectionError(delta, nu, gm float64, k int) float64 {
	return 4 * (delta + gm*(nu*nu+1) + float64(k+4)*vec.Roundoff)
}

// passColumns returns the largest error a pass and the projection after it add to a
// column: pe.column of the pass's input Z plus pi times the output's norm.
func passColumns(pe passError, Z, out *mat.Dense, pi float64) float64 {
	_, c := Z.Dims()
	var worst float64
	for j := range c {
		worst = math.Max(worst, pe.column(Z, j)+pi*mat.Norm(out.ColView(j), 2))
	}
	return worst
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
