package kernel

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/check"
)

// The range of an exponent's scale and of its unit (see Validate): the normal
// floating-point numbers whose reciprocal is normal too.
const (
	minScale = 0x1p-1022 // the smallest normal float64, ≈ 2.2e-308
	maxScale = 0x1p1022  // its reciprocal, ≈ 4.5e307
)

// Validate checks the parameters of k and returns an error wrapping [ErrArgument] if
// they are invalid, or if they make the kernel identically constant, zero or not
// finite:
//
//   - [RBF] and [Laplacian]: exactly one of Sigma and Gamma must be set (the other
//     zero), positive and finite. The kernel is exp(−δ/u) = exp(−γ·δ), with δ the
//     squared Euclidean distance and u = 2σ² for the RBF, δ the L1 distance and u = σ
//     for the Laplacian, γ = 1/u; the scale γ and the unit u — 2σ² as computed, 2·σ·σ —
//     must both be normal floating-point numbers: 2⁻¹⁰²² ≤ u ≤ 2¹⁰²², that is
//     1.0547686614863e-154 ≤ σ ≤ 4.740375954054588e153 for the RBF, 2⁻¹⁰²² ≤ σ ≤ 2¹⁰²²
//     (2.2e-308 to 4.5e307) for the Laplacian and 2⁻¹⁰²² ≤ γ ≤ 2¹⁰²² for both.
//   - [Polynomial]: Degree ≥ 1, Gamma positive, finite and normal (γ ≥ 2⁻¹⁰²²), Coef0
//     finite and non-negative. With γ or c negative the kernel is not positive
//     semi-definite in general; with γ = 0 it ignores the points, the constant c^d (0
//     when c = 0).
//   - [Sigmoid]: Gamma positive, finite and normal (γ ≥ 2⁻¹⁰²²), as the polynomial's;
//     Coef0 finite, of either sign (scikit-learn's default is 1; a negative c is common).
//     With γ = 0 the kernel is the constant tanh(c); a negative γ, which scikit-learn
//     accepts, is refused as for the polynomial. The kernel is not positive
//     semi-definite in general, whatever γ and c (see [Sigmoid]).
//   - [Cosine] and [Linear] have no parameters.
//   - [Func]: F must be non-nil and Name must not be the name of a built-in kernel in
//     any case (its Spec would be rebuilt as that kernel).
//
// The range is where the kernel and its blocks are what the parameter says. Eval
// divides δ by u, or multiplies it by γ; the blocks ([Cross], [Matrix]) multiply their
// squared distances by 1/(2σ²) or γ and measure their error against u (docs/design.md,
// "Kernel blocks"). Towards the ends of the range the kernel degenerates: an RBF's 2σ²
// underflows to 0 below σ ≈ 1.1e-162, and k(x, x) = exp(−0/0) is NaN on every point;
// below 2⁻¹⁰²⁴ a block's 1/u overflows and its diagonal exp(−0·∞) is NaN where Eval
// gives 1; a u that overflows (an RBF's σ above 9.5e153), or a γ that underflows to 0,
// makes the kernel identically 1. In between, a subnormal γ or u carries fewer than 53
// significant bits, so that the kernel is not the one the parameter names to within
// rounding, and the blocks lose the accuracy they promise. Requiring both γ and u to be
// normal excludes all of these, and keeps the two parametrisations interchangeable:
// every valid kernel can be written with the other parameter, which is normal too.
//
// [Precomputed], which has no values, is an error wrapping ErrArgument: only kpca takes
// it, without Validate. Pointers to the built-in types are checked like the values they
// point to. A nil k,
// or a nil pointer (or other nil value) in k, is an error wrapping ErrArgument. For
// other kernel types Validate calls their Validate() error method if they have one,
// and returns its error wrapped in the package's sentinel of the ikpca kind it wraps,
// ErrArgument if it wraps none; and returns nil if they have none.
//
// Eval never validates (it is the hot path); constructors and consumers of kernels
// call Validate once.
func Validate(k Kernel) error {
	if IsPrecomputed(k) { // not in deref, whose inlining keeps Cross.Reset free of garbage
		return errPrecomputed()
	}
	switch k := deref(k).(type) {
	case nil:
		return fmt.Errorf("%w: nil kernel", ErrArgument)
	case RBF:
		return checkBandwidth(nameRBF, k.Sigma, k.Gamma)
	case Laplacian:
		return checkBandwidth(nameLaplacian, k.Sigma, k.Gamma)
	case Polynomial:
		if k.Degree < 1 {
			return fmt.Errorf("%w: polynomial: Degree must be at least 1, got %d", ErrArgument, k.Degree)
		}
		if !(k.Gamma > 0) || math.IsInf(k.Gamma, 1) {
			return fmt.Errorf("%w: polynomial: Gamma must be positive and finite, got %v (with γ = 0 the kernel is the constant c^d whatever the points)", ErrArgument, k.Gamma)
		}
		if k.Gamma < minScale {
			return fmt.Errorf("%w: polynomial: γ = %v is subnormal (below 2⁻¹⁰²² ≈ 2.2e-308): set Gamma to a normal number", ErrArgument, k.Gamma)
		}
		if !(k.Coef0 >= 0) || math.IsInf(k.Coef0, 1) {
			return fmt.Errorf("%w: polynomial: Coef0 must be finite and non-negative, got %v", ErrArgument, k.Coef0)
		}
		return nil
	case Sigmoid:
		if !(k.Gamma > 0) || math.IsInf(k.Gamma, 1) {
			return fmt.Errorf("%w: sigmoid: Gamma must be positive and finite, got %v (with γ = 0 the kernel is the constant tanh(c) whatever the points)", ErrArgument, k.Gamma)
		}
		if k.Gamma < minScale {
			return fmt.Errorf("%w: sigmoid: γ = %v is subnormal (below 2⁻¹⁰²² ≈ 2.2e-308): set Gamma to a normal number", ErrArgument, k.Gamma)
		}
		if math.IsNaN(k.Coef0) || math.IsInf(k.Coef0, 0) {
			return fmt.Errorf("%w: sigmoid: Coef0 must be finite, got %v", ErrArgument, k.Coef0)
		}
		return nil
	case Linear, Cosine:
		return nil
	case Func:
		if k.F == nil {
			return fmt.Errorf("%w: func %q: nil function F", ErrArgument, k.Name)
		}
		if IsBuiltin(k.Name) {
			return fmt.Errorf("%w: func: name %q is reserved for the built-in kernel", ErrArgument, k.Name)
		}
		return nil
	default:
		if check.IsNil(k) {
			return fmt.Errorf("%w: nil %T kernel", ErrArgument, k)
		}
		if v, ok := k.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				return kinds.WrapOr(ErrArgument, err, "")
			}
		}
	}
	return nil
}

// checkBandwidth checks the parameters of an RBF or Laplacian kernel given by σ or by
// γ (see Validate): the scale γ — given, or 1/u — and the unit u — 2σ² for the RBF, σ
// for the Laplacian, or 1/γ — must both be normal numbers, in [2⁻¹⁰²², 2¹⁰²²].
func checkBandwidth(name string, sigma, gamma float64) error {
	relation := map[string]string{nameRBF: "1/(2σ²)", nameLaplacian: "1/σ"}[name]
	switch {
	case sigma == 0 && gamma == 0:
		return fmt.Errorf("%w: %s: set Sigma, the bandwidth σ, or Gamma, scikit-learn's γ = %s; both are zero", ErrArgument, name, relation)
	case sigma != 0 && gamma != 0:
		return fmt.Errorf("%w: %s: set Sigma (σ = %v) or Gamma (γ = %v), not both: γ = %s", ErrArgument, name, sigma, gamma, relation)
	case gamma != 0:
		switch {
		case !(gamma > 0) || math.IsInf(gamma, 1):
			return fmt.Errorf("%w: %s: Gamma must be positive and finite, got %v", ErrArgument, name, gamma)
		case gamma < minScale:
			return fmt.Errorf("%w: %s: γ = %v is too small: below 2⁻¹⁰²² ≈ 2.2e-308 it is subnormal, and 1/γ %s; set γ in [2⁻¹⁰²², 2¹⁰²²]", ErrArgument, name, gamma, tooLarge(1/gamma))
		case gamma > maxScale:
			return fmt.Errorf("%w: %s: γ = %v is too large: above 2¹⁰²² ≈ 4.5e307, 1/γ is subnormal; set γ in [2⁻¹⁰²², 2¹⁰²²]", ErrArgument, name, gamma)
		}
		return nil
	case !(sigma > 0) || math.IsInf(sigma, 1):
		return fmt.Errorf("%w: %s: Sigma must be positive and finite, got %v", ErrArgument, name, sigma)
	case name == nameLaplacian && sigma < minScale:
		return fmt.Errorf("%w: laplacian: σ = %v is too small: below 2⁻¹⁰²² ≈ 2.2e-308 it is subnormal, and γ = 1/σ %s; set σ in [2⁻¹⁰²², 2¹⁰²²]", ErrArgument, sigma, tooLarge(1/sigma))
	case name == nameLaplacian && sigma > maxScale:
		return fmt.Errorf("%w: laplacian: σ = %v is too large: above 2¹⁰²² ≈ 4.5e307, γ = 1/σ is subnormal; set σ in [2⁻¹⁰²², 2¹⁰²²]", ErrArgument, sigma)
	case name == nameLaplacian:
		return nil
	}
	switch u := 2 * sigma * sigma; {
	case u == 0:
		return fmt.Errorf("%w: rbf: σ = %v is too small: 2σ² underflows to 0, and k(x, x) = exp(−0/0) would be NaN; set σ ≥ 1.0547686614863e-154, where 2σ² ≥ 2⁻¹⁰²²", ErrArgument, sigma)
	case u < minScale:
		return fmt.Errorf("%w: rbf: σ = %v is too small: 2σ² underflows below 2⁻¹⁰²² ≈ 2.2e-308 to a subnormal number, and 1/(2σ²) %s; set σ ≥ 1.0547686614863e-154", ErrArgument, sigma, tooLarge(1/u))
	case math.IsInf(u, 1):
		return fmt.Errorf("%w: rbf: σ = %v is too large: 2σ² overflows, and the kernel would be 1 for every pair of points; set σ ≤ 4.740375954054588e153, where 2σ² ≤ 2¹⁰²²", ErrArgument, sigma)
	case u > maxScale:
		return fmt.Errorf("%w: rbf: σ = %v is too large: 2σ² exceeds 2¹⁰²² ≈ 4.5e307, and γ = 1/(2σ²) underflows to a subnormal number; set σ ≤ 4.740375954054588e153", ErrArgument, sigma)
	}
	return nil
}

// tooLarge says how the reciprocal v of a subnormal scale or unit leaves the range.
func tooLarge(v float64) string {
	if math.IsInf(v, 1) {
		return "overflows"
	}
	return "exceeds 2¹⁰²²"
}

// PositiveSemiDefinite reports whether k is one of the built-in kernels whose kernel
// matrices are positive semi-definite for any points once Validate accepts it: RBF,
// Laplacian, Linear, Cosine (the linear kernel of the normalised points) and Polynomial
// (an integer degree, a positive scale and a non-negative offset). The Sigmoid is not,
// in general, and a Func may not be. The certificates that bound what a Krylov space
// leaves out by the trace need it (docs/design.md, "Polishing").
func PositiveSemiDefinite(k Kernel) bool {
	switch k.(type) {
	case RBF, *RBF, Laplacian, *Laplacian, Linear, *Linear, Polynomial, *Polynomial, Cosine, *Cosine:
		return true
	}
	return false
}
