// Package kernel provides kernels on ℝᵈ and the kernel columns and matrices built
// from them, for incremental kernel PCA, Nyström approximations and streaming
// methods.
//
// The built-in kernels are [RBF], [Laplacian], [Polynomial], [Linear], [Sigmoid] and
// [Cosine], with scikit-learn's parameters: an RBF or Laplacian kernel is given by its
// bandwidth Sigma or by Gamma (RBF{Gamma: 0.5} is scikit-learn's rbf_kernel with
// gamma=0.5, RBF{Sigma: 1} the same kernel by its bandwidth), a Polynomial by Degree,
// Gamma and Coef0, a Sigmoid by Gamma and Coef0. All are positive semi-definite except
// the Sigmoid, which is not in general: its kernel matrices may have negative
// eigenvalues. [Func] wraps an arbitrary user function. Every built-in kernel and Func
// describes itself by a [Spec] (for checkpoints, encodings and command lines), and
// [New] rebuilds it from the Spec exactly — a Func once its function is registered
// under its name ([Register]).
//
// Eval methods are the hot path and do not check their parameters; call
// [Validate] once when a kernel is constructed or received (New does). Validate
// refuses kernels whose parameters make them identically constant, zero or not
// finite. [Column] evaluates the kernel values of one point against many, in
// parallel for large inputs, and produces bit for bit the values Eval returns,
// whatever GOMAXPROCS is. [Cross] (and [Block]) evaluates kernel blocks K(X, Y) of
// many points against many at the speed of a matrix product, and [Matrix] the
// symmetric K(X, X) the same way: for RBF, Polynomial, Linear, Sigmoid and Cosine
// kernels through
// native.Gemm and native.Syrk, within a stated accuracy of Eval rather than bit for
// bit (docs/design.md, "Kernel blocks"); their values do not depend on GOMAXPROCS
// either.
//
// Every error of the package wraps one of its sentinel errors ([ErrArgument],
// [ErrNonFinite], [ErrEmpty]), each of which wraps the ikpca kind of the same name.
package kernel

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ikpca/ikpca/internal/vec"
)

// Kernel is a symmetric kernel k(x, y) on ℝᵈ, positive semi-definite for kernel PCA
// to have its usual meaning (the built-in [Sigmoid] is not in general; the models
// accept it, and keep what its kernel matrices' eigendecompositions give).
//
// Implementations must be safe for concurrent use: [Column] and [Matrix]
// call Eval from several goroutines at once.
type Kernel interface {
	// Eval returns k(x, y); x and y have the same length.
	Eval(x, y []float64) float64
}

// Names of the built-in kernels, as used in [Spec.Name].
const (
	nameRBF        = "rbf"
	nameLaplacian  = "laplacian"
	namePolynomial = "polynomial"
	nameLinear     = "linear"
	nameSigmoid    = "sigmoid"
	nameCosine     = "cosine"
)

// Spec describes a kernel so that [New] can rebuild it exactly (checkpoints,
// encodings, command lines): its name and its parameters as they were given. Fields
// that the named kernel does not use are ignored by New and are zero in the Spec a
// kernel reports.
//
// An RBF or Laplacian kernel given by its bandwidth has Sigma set and Gamma zero; one
// given by scikit-learn's γ has Gamma set and Sigma zero. Which of the two was given
// is part of the kernel: the two compute the exponent differently (see [RBF]), and a
// kernel rebuilt from its Spec gives the same values, bit for bit.
type Spec struct {
	Name   string  // "rbf", "laplacian", "polynomial", "linear", "sigmoid", "cosine" (any case), or a registered Func's name
	Sigma  float64 // bandwidth σ of rbf and laplacian, when given by σ
	Gamma  float64 // γ of rbf and laplacian when given by γ; the polynomial's and the sigmoid's γ
	Degree int     // polynomial degree d
	Coef0  float64 // polynomial and sigmoid offset c (scikit-learn's coef0)
}

// Specified is implemented by kernels that can be described by a Spec (all
// built-ins and Func).
type Specified interface{ Spec() Spec }

// Names returns the names of the built-in kernels, in the order of the
// package documentation: "rbf", "laplacian", "polynomial", "linear", "sigmoid",
// "cosine".
func Names() []string {
	return []string{nameRBF, nameLaplacian, namePolynomial, nameLinear, nameSigmoid, nameCosine}
}

// New builds the kernel a Spec describes and validates it (see [Validate]; an invalid
// kernel is an error wrapping [ErrArgument]). The built-in names are those of [Names],
// in any case ("RBF" is "rbf"); the kernel's own Spec reports the lower-case name, and
// the kernel returned has a value type ([RBF], not *RBF). Any other name must be that
// of a [Func] registered with [Register], exactly (names of Funcs are case-sensitive):
// New returns the registered Func, whatever the Spec's other fields. An empty or
// unknown name is an error wrapping ErrArgument that lists the built-in names. The
// fields a built-in kernel does not have are ignored, whatever their values (a Degree
// or Coef0 for rbf, as scikit-learn's KernelPCA ignores degree and coef0 for its RBF
// kernel): only the named kernel's parameters are checked. "precomputed" (any case)
// returns [Precomputed], which stands for values the caller computes and which
// Validate refuses: only kpca takes it.
//
// The round trip is exact: for every valid built-in kernel k, New(k.Spec()) returns a
// kernel equal to k (==), which computes the same values bit for bit; for a Func, the
// Func registered under its name.
func New(s Spec) (Kernel, error) {
	var k Kernel
	switch strings.ToLower(s.Name) {
	case nameRBF:
		k = RBF{Sigma: s.Sigma, Gamma: s.Gamma}
	case nameLaplacian:
		k = Laplacian{Sigma: s.Sigma, Gamma: s.Gamma}
	case namePolynomial:
		k = Polynomial{Degree: s.Degree, Gamma: s.Gamma, Coef0: s.Coef0}
	case nameLinear:
		k = Linear{}
	case nameSigmoid:
		k = Sigmoid{Gamma: s.Gamma, Coef0: s.Coef0}
	case nameCosine:
		k = Cosine{}
	case namePrecomputed:
		return Precomputed{}, nil // not validated: Validate refuses it (see Precomputed)
	case "":
		return nil, fmt.Errorf("%w: empty kernel name; the built-in kernels are rbf, laplacian, polynomial, linear, sigmoid and cosine", ErrArgument)
	default:
		if f, ok := registered(s.Name); ok {
			return f, nil
		}
		return nil, fmt.Errorf("%w: %q is neither a built-in kernel (rbf, laplacian, polynomial, linear, sigmoid, cosine, in any case) nor a Func registered with kernel.Register", ErrArgument, s.Name)
	}
	if err := Validate(k); err != nil {
		return nil, err
	}
	return k, nil
}

// IsBuiltin reports whether name names a built-in kernel, in any case: one of Names,
// or "precomputed" ([Precomputed]), a name no Func may take either.
func IsBuiltin(name string) bool {
	switch strings.ToLower(name) {
	case nameRBF, nameLaplacian, namePolynomial, nameLinear, nameSigmoid, nameCosine, namePrecomputed:
		return true
	}
	return false
}

// deref replaces a pointer to a built-in kernel by the value it points to,
// and a nil pointer by nil, so that type switches need only list values. (Written out
// type by type: with a generic helper for the cases, Cross.Reset allocated once a call,
// TestBlockNoAlloc.)
func deref(k Kernel) Kernel {
	switch p := k.(type) {
	case *RBF:
		if p != nil {
			return *p
		}
	case *Laplacian:
		if p != nil {
			return *p
		}
	case *Polynomial:
		if p != nil {
			return *p
		}
	case *Linear:
		if p != nil {
			return *p
		}
	case *Sigmoid:
		if p != nil {
			return *p
		}
	case *Cosine:
		if p != nil {
			return *p
		}
	case *Func:
		if p != nil {
			return *p
		}
	default:
		return k
	}
	return nil
}

// fmtFloat formats a parameter in the shortest form that parses back to it.
func fmtFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// bandwidthString formats the parameter of an RBF or Laplacian kernel that was given:
// "(σ=1)" or "(γ=0.5)", both when both or neither are (an invalid kernel).
func bandwidthString(sigma, gamma float64) string {
	switch {
	case gamma == 0:
		return "(σ=" + fmtFloat(sigma) + ")"
	case sigma == 0:
		return "(γ=" + fmtFloat(gamma) + ")"
	}
	return "(σ=" + fmtFloat(sigma) + ", γ=" + fmtFloat(gamma) + ")"
}

// RBF is the Gaussian radial basis function kernel
//
//	k(x, y) = exp(−‖x−y‖² / (2σ²)) = exp(−γ·‖x−y‖²),
//
// given by its bandwidth σ > 0 or by scikit-learn's gamma, γ = 1/(2σ²) > 0: set
// exactly one of Sigma and Gamma and leave the other zero ([Validate] states the
// range of each). k(x, x) = 1.
//
// The kernel keeps the parameter as given, and computes the exponent as that
// parameter defines it: ‖x−y‖² divided by 2σ², or multiplied by γ as scikit-learn's
// rbf_kernel does. RBF{Sigma: 1} and RBF{Gamma: 0.5} are the same kernel, but their
// values may differ in the last bit; each is reproduced exactly by its Spec.
type RBF struct {
	Sigma float64 // bandwidth σ, or zero when Gamma is given
	Gamma float64 // γ = 1/(2σ²), or zero when Sigma is given
}

// Eval returns exp(−‖x−y‖²/(2σ²)), or exp(−γ·‖x−y‖²) if Gamma is not zero. It does
// not allocate and does not check the parameters or the lengths of x and y.
func (k RBF) Eval(x, y []float64) float64 {
	if k.Gamma != 0 {
		return rbfGamma(x, y, k.Gamma)
	}
	return rbf(x, y, 2*k.Sigma*k.Sigma)
}

// Spec returns {Name: "rbf", Sigma: σ, Gamma: γ}, one of the two zero.
func (k RBF) Spec() Spec { return Spec{Name: nameRBF, Sigma: k.Sigma, Gamma: k.Gamma} }

// String returns the parameter given, e.g. "rbf(σ=0.341)" or "rbf(γ=0.5)".
func (k RBF) String() string { return nameRBF + bandwidthString(k.Sigma, k.Gamma) }

// Laplacian is the Laplacian (exponential) kernel
//
//	k(x, y) = exp(−‖x−y‖₁ / σ) = exp(−γ·‖x−y‖₁),
//
// given by its bandwidth σ > 0 or by γ = 1/σ > 0, scikit-learn's laplacian_kernel
// gamma: set exactly one of Sigma and Gamma and leave the other zero ([Validate]
// states the range of each). The distance is the L1 (Manhattan) norm, following
// scikit-learn; some texts use the Euclidean norm instead. It is positive
// semi-definite for every σ > 0. k(x, x) = 1. As for [RBF], the exponent is a
// division by σ or a product with γ, as given.
type Laplacian struct {
	Sigma float64 // bandwidth σ, or zero when Gamma is given
	Gamma float64 // γ = 1/σ, or zero when Sigma is given
}

// Eval returns exp(−‖x−y‖₁/σ), or exp(−γ·‖x−y‖₁) if Gamma is not zero. It does not
// allocate and does not check the parameters or the lengths of x and y.
func (k Laplacian) Eval(x, y []float64) float64 {
	if k.Gamma != 0 {
		return laplacianGamma(x, y, k.Gamma)
	}
	return laplacian(x, y, k.Sigma)
}

// Spec returns {Name: "laplacian", Sigma: σ, Gamma: γ}, one of the two zero.
func (k Laplacian) Spec() Spec { return Spec{Name: nameLaplacian, Sigma: k.Sigma, Gamma: k.Gamma} }

// String returns the parameter given, e.g. "laplacian(σ=2)" or "laplacian(γ=0.5)".
func (k Laplacian) String() string { return nameLaplacian + bandwidthString(k.Sigma, k.Gamma) }

// Polynomial is the polynomial kernel
//
//	k(x, y) = (γ·xᵀy + c)^d
//
// with integer degree d ≥ 1, γ > 0 and c ≥ 0: scikit-learn's polynomial_kernel with
// degree, gamma and coef0 ([Validate] states the ranges). The power is computed by
// repeated squaring (about log₂ d multiplications), not math.Pow.
type Polynomial struct {
	Degree int     // degree d
	Gamma  float64 // scale γ of the inner product
	Coef0  float64 // offset c
}

// Eval returns (γ·xᵀy + c)^d. It does not allocate and does not check the
// parameters or the lengths of x and y; a degree below 1 gives 1.
func (k Polynomial) Eval(x, y []float64) float64 {
	return polynomial(x, y, k.Gamma, k.Coef0, k.Degree)
}

// Spec returns {Name: "polynomial", Degree: d, Gamma: γ, Coef0: c}.
func (k Polynomial) Spec() Spec {
	return Spec{Name: namePolynomial, Degree: k.Degree, Gamma: k.Gamma, Coef0: k.Coef0}
}

// String returns e.g. "polynomial(d=3, γ=0.5, c=1)".
func (k Polynomial) String() string {
	return "polynomial(d=" + strconv.Itoa(k.Degree) + ", γ=" + fmtFloat(k.Gamma) + ", c=" + fmtFloat(k.Coef0) + ")"
}

// Linear is the linear kernel k(x, y) = xᵀy.
type Linear struct{}

// Eval returns xᵀy. It does not allocate and does not check the lengths of
// x and y.
func (Linear) Eval(x, y []float64) float64 { return vec.Dot(x, y) }

// Spec returns {Name: "linear"}.
func (Linear) Spec() Spec { return Spec{Name: nameLinear} }

// String returns "linear".
func (Linear) String() string { return nameLinear }

// Sigmoid is the sigmoid (hyperbolic tangent) kernel
//
//	k(x, y) = tanh(γ·xᵀy + c)
//
// with γ > 0 and c finite: scikit-learn's sigmoid_kernel with gamma and coef0
// ([Validate] states the ranges). scikit-learn's defaults, γ = 1/d for points of d
// coordinates and c = 1, are not implied: both are given, as for [Polynomial].
//
// The sigmoid kernel is not positive semi-definite in general: its kernel matrices may
// have negative eigenvalues (with c < 0, already its diagonal k(x, x) = tanh(γ‖x‖² + c)
// for points near the origin), and kernel PCA with it is then PCA in no feature space. The models accept it — they decompose the
// symmetric (centred) kernel matrix whatever its signs — but a component of negative
// eigenvalue has no variance to explain, and a model that keeps only positive
// eigenvalues (every truncated model here) drops it. |k| ≤ 1.
type Sigmoid struct {
	Gamma float64 // scale γ of the inner product
	Coef0 float64 // offset c
}

// Eval returns tanh(γ·xᵀy + c). It does not allocate and does not check the
// parameters or the lengths of x and y.
func (k Sigmoid) Eval(x, y []float64) float64 {
	return sigmoid(x, y, k.Gamma, k.Coef0)
}

// Spec returns {Name: "sigmoid", Gamma: γ, Coef0: c}.
func (k Sigmoid) Spec() Spec { return Spec{Name: nameSigmoid, Gamma: k.Gamma, Coef0: k.Coef0} }

// String returns e.g. "sigmoid(γ=0.5, c=-1)".
func (k Sigmoid) String() string {
	return nameSigmoid + "(γ=" + fmtFloat(k.Gamma) + ", c=" + fmtFloat(k.Coef0) + ")"
}

// Cosine is the cosine-similarity kernel
//
//	k(x, y) = xᵀy / (‖x‖·‖y‖),
//
// scikit-learn's cosine_similarity: the linear kernel of the points scaled to unit
// length, positive semi-definite, |k| ≤ 1 up to rounding, k(x, x) = 1 up to rounding
// for x ≠ 0. A zero point has k = 0 with every point, itself included, as
// scikit-learn's normalize leaves a zero row zero. The norms are computed without
// overflow or harmful underflow (vec.Norm scales the coordinates first), the product
// xᵀy by a plain sum:
// the value is accurate to a few units of d·ε where ‖x‖·‖y‖ and xᵀy are normal
// numbers (points of norms between about 1e-150 and 1e150); a product ‖x‖·‖y‖ that
// underflows to 0 gives 0, one that overflows gives 0 or NaN.
type Cosine struct{}

// Eval returns xᵀy/(‖x‖·‖y‖), or 0 if x or y is zero. It does not allocate and does
// not check the lengths of x and y.
func (Cosine) Eval(x, y []float64) float64 {
	return cosineOf(vec.Dot(x, y), vec.Norm(x), vec.Norm(y))
}

// Spec returns {Name: "cosine"}.
func (Cosine) Spec() Spec { return Spec{Name: nameCosine} }

// String returns "cosine".
func (Cosine) String() string { return nameCosine }

// Func is a kernel given by an arbitrary user function, which must be
// symmetric, positive semi-definite and safe for concurrent use. Its Spec
// records only the Name: [New] rebuilds it from the Spec once it is registered
// under that name ([Register]), which is how a model whose kernel is a Func is
// restored from its encoding.
type Func struct {
	Name string                       // identifies F in a Spec; not a built-in name
	F    func(x, y []float64) float64 // the kernel function
}

// Eval returns F(x, y).
func (k Func) Eval(x, y []float64) float64 { return k.F(x, y) }

// Spec returns {Name: Name}.
func (k Func) Spec() Spec { return Spec{Name: k.Name} }

// String returns Name, or "func" if Name is empty.
func (k Func) String() string {
	if k.Name == "" {
		return "func"
	}
	return k.Name
}

// The evaluation helpers below are shared by the Eval methods and by the
// specialised loops of Column and Matrix, so that all of them produce the
// same bits.

// l1Dist returns ‖x−y‖₁, summed with four interleaved accumulators.
func l1Dist(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += math.Abs(x[i] - y[i])
		s1 += math.Abs(x[i+1] - y[i+1])
		s2 += math.Abs(x[i+2] - y[i+2])
		s3 += math.Abs(x[i+3] - y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += math.Abs(x[i] - y[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// rbf returns exp(−‖x−y‖²/g) with g = 2σ².
func rbf(x, y []float64, g float64) float64 {
	return math.Exp(-vec.SqDist(x, y) / g)
}

// rbfGamma returns exp(−γ·‖x−y‖²).
func rbfGamma(x, y []float64, gamma float64) float64 {
	return math.Exp(-gamma * vec.SqDist(x, y))
}

// laplacian returns exp(−‖x−y‖₁/σ).
func laplacian(x, y []float64, sigma float64) float64 {
	return math.Exp(-l1Dist(x, y) / sigma)
}

// laplacianGamma returns exp(−γ·‖x−y‖₁).
func laplacianGamma(x, y []float64, gamma float64) float64 {
	return math.Exp(-gamma * l1Dist(x, y))
}

// polynomial returns (γ·xᵀy + c)^d.
func polynomial(x, y []float64, gamma, coef0 float64, degree int) float64 {
	return powInt(gamma*vec.Dot(x, y)+coef0, degree)
}

// sigmoid returns tanh(γ·xᵀy + c).
func sigmoid(x, y []float64, gamma, coef0 float64) float64 {
	return math.Tanh(gamma*vec.Dot(x, y) + coef0)
}

// cosineOf returns the cosine kernel's value g/(nx·ny) from the inner product g = xᵀy
// and the norms nx = ‖x‖ and ny = ‖y‖ (vec.Norm), and 0 when the product of the norms
// is 0 — a zero point, as scikit-learn's normalize leaves it — or underflows to 0.
// nx·ny is commutative, so k(x, y) = k(y, x) bit for bit. A NaN or infinite norm (a
// point that is not finite) gives NaN, also against a zero point (0·∞ is NaN): the
// value of a point that is not finite is not finite, as for the other kernels.
func cosineOf(g, nx, ny float64) float64 {
	p := nx * ny
	if p == 0 {
		return 0
	}
	return g / p
}

// powInt returns b^n for n ≥ 0 by repeated squaring (1 for n ≤ 0).
func powInt(b float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 != 0 {
			r *= b
		}
		n >>= 1
		if n > 0 {
			b *= b
		}
	}
	return r
}
