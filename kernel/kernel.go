// Package kernel provides positive semi-definite kernels on ℝᵈ and the kernel
// columns and matrices built from them, for incremental kernel PCA, Nyström
// approximations and streaming methods.
//
// The built-in kernels are [RBF], [Laplacian], [Polynomial] and [Linear];
// [Func] wraps an arbitrary user function. Every built-in kernel and Func can
// be described by a [Spec] (for checkpoints and command lines) and, except
// Func, rebuilt from it with [New].
//
// Eval methods are the hot path and do not check their parameters; call
// [Validate] once when a kernel is constructed or received. [Column] evaluates
// the kernel values of one point against many, in parallel for large inputs, and
// produces bit for bit the values Eval returns, whatever GOMAXPROCS is. [Cross]
// (and [Block]) evaluates kernel blocks K(X, Y) of many points against many at
// the speed of a matrix product, and [Matrix] the symmetric K(X, X) the same
// way: for RBF, Polynomial and Linear kernels through native.Gemm and
// native.Syrk, within a stated accuracy of Eval rather than bit for bit
// (docs/design.md, "Kernel blocks"); their values do not depend on GOMAXPROCS
// either.
package kernel

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ikpca/ikpca/internal/vec"
)

// Kernel is a symmetric positive semi-definite kernel k(x, y) on ℝᵈ.
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
)

// Spec describes a built-in kernel so that it can be saved and rebuilt
// (checkpoints, CLIs). Fields that the named kernel does not use are ignored
// and are zero in the Spec a kernel reports.
type Spec struct {
	Name   string  // "rbf", "laplacian", "polynomial", "linear", or a user name for Func
	Sigma  float64 // bandwidth of rbf and laplacian
	Degree int     // polynomial degree d
	Scale  float64 // polynomial γ
	Offset float64 // polynomial c
}

// Specified is implemented by kernels that can be described by a Spec (all
// built-ins and Func).
type Specified interface{ Spec() Spec }

// Names returns the names of the built-in kernels, in the order of the
// package documentation: "rbf", "laplacian", "polynomial", "linear".
func Names() []string {
	return []string{nameRBF, nameLaplacian, namePolynomial, nameLinear}
}

// New builds the kernel a Spec describes and validates it (see [Validate]).
// Names are those of [Names], in any case ("RBF" is "rbf"); the kernel's own
// Spec reports the lower-case name. Any other name — in particular the name
// of a [Func], whose function cannot be rebuilt from a Spec — is an error
// that lists the built-in names, and callers supply such kernels
// themselves. The kernel returned has a value type ([RBF], not *RBF).
func New(s Spec) (Kernel, error) {
	var k Kernel
	switch strings.ToLower(s.Name) {
	case nameRBF:
		k = RBF{Sigma: s.Sigma}
	case nameLaplacian:
		k = Laplacian{Sigma: s.Sigma}
	case namePolynomial:
		k = Polynomial{Degree: s.Degree, Scale: s.Scale, Offset: s.Offset}
	case nameLinear:
		k = Linear{}
	case "":
		return nil, errors.New("kernel: empty kernel name; the built-in kernels are rbf, laplacian, polynomial and linear")
	default:
		return nil, fmt.Errorf("kernel: %q is not a built-in kernel; the built-in kernels are rbf, laplacian, polynomial and linear (a Func cannot be rebuilt from its Spec; supply it directly)", s.Name)
	}
	if err := Validate(k); err != nil {
		return nil, err
	}
	return k, nil
}

// IsBuiltin reports whether name names a built-in kernel, in any case: whether
// [New] recognises it.
func IsBuiltin(name string) bool {
	switch strings.ToLower(name) {
	case nameRBF, nameLaplacian, namePolynomial, nameLinear:
		return true
	}
	return false
}

// Validate checks the parameters of k: for [RBF] and [Laplacian] σ must be
// positive and finite; for [Polynomial] the degree must be at least 1 and γ
// and c finite and non-negative (with γ or c negative the kernel is not
// positive semi-definite in general); for [Func] F must be non-nil and Name
// must not be the name of a built-in kernel in any case (its Spec would be
// rebuilt as that kernel). Pointers to the built-in types are checked like
// the values they point to. A nil k or nil pointer is an error.
//
// For other kernel types Validate calls their Validate() error method if
// they have one, and returns nil otherwise.
//
// Eval never validates (it is the hot path); constructors and consumers of
// kernels call Validate once.
func Validate(k Kernel) error {
	switch k := deref(k).(type) {
	case nil:
		return errors.New("kernel: nil kernel")
	case RBF:
		return checkSigma(nameRBF, k.Sigma)
	case Laplacian:
		return checkSigma(nameLaplacian, k.Sigma)
	case Polynomial:
		if k.Degree < 1 {
			return fmt.Errorf("kernel: polynomial: degree must be at least 1, got %d", k.Degree)
		}
		if !(k.Scale >= 0) || math.IsInf(k.Scale, 0) {
			return fmt.Errorf("kernel: polynomial: scale γ must be finite and non-negative, got %v", k.Scale)
		}
		if !(k.Offset >= 0) || math.IsInf(k.Offset, 0) {
			return fmt.Errorf("kernel: polynomial: offset c must be finite and non-negative, got %v", k.Offset)
		}
		return nil
	case Linear:
		return nil
	case Func:
		if k.F == nil {
			return fmt.Errorf("kernel: func %q: nil function", k.Name)
		}
		if IsBuiltin(k.Name) {
			return fmt.Errorf("kernel: func: name %q is reserved for the built-in kernel", k.Name)
		}
		return nil
	case interface{ Validate() error }:
		return k.Validate()
	}
	return nil
}

// checkSigma checks a bandwidth.
func checkSigma(name string, sigma float64) error {
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return fmt.Errorf("kernel: %s: σ must be positive and finite, got %v", name, sigma)
	}
	return nil
}

// deref replaces a pointer to a built-in kernel by the value it points to,
// and a nil pointer by nil, so that type switches need only list values.
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

// RBF is the Gaussian radial basis function kernel
//
//	k(x, y) = exp(−‖x−y‖² / (2σ²))
//
// with bandwidth σ > 0 (scikit-learn's gamma is 1/(2σ²)). k(x, x) = 1.
type RBF struct {
	Sigma float64 // bandwidth σ
}

// Eval returns exp(−‖x−y‖²/(2σ²)). It does not allocate and does not check
// σ or the lengths of x and y.
func (k RBF) Eval(x, y []float64) float64 {
	return rbf(x, y, 2*k.Sigma*k.Sigma)
}

// Spec returns {Name: "rbf", Sigma: σ}.
func (k RBF) Spec() Spec { return Spec{Name: nameRBF, Sigma: k.Sigma} }

// String returns e.g. "rbf(σ=0.341)".
func (k RBF) String() string { return "rbf(σ=" + fmtFloat(k.Sigma) + ")" }

// Laplacian is the Laplacian (exponential) kernel
//
//	k(x, y) = exp(−‖x−y‖₁ / σ)
//
// with bandwidth σ > 0. The distance is the L1 (Manhattan) norm, following
// scikit-learn's laplacian_kernel (whose gamma is 1/σ); some texts use the
// Euclidean norm instead. It is positive semi-definite for every σ > 0.
// k(x, x) = 1.
type Laplacian struct {
	Sigma float64 // bandwidth σ
}

// Eval returns exp(−‖x−y‖₁/σ). It does not allocate and does not check σ
// or the lengths of x and y.
func (k Laplacian) Eval(x, y []float64) float64 {
	return laplacian(x, y, k.Sigma)
}

// Spec returns {Name: "laplacian", Sigma: σ}.
func (k Laplacian) Spec() Spec { return Spec{Name: nameLaplacian, Sigma: k.Sigma} }

// String returns e.g. "laplacian(σ=2)".
func (k Laplacian) String() string { return "laplacian(σ=" + fmtFloat(k.Sigma) + ")" }

// Polynomial is the polynomial kernel
//
//	k(x, y) = (γ·xᵀy + c)^d
//
// with integer degree d ≥ 1, scale γ ≥ 0 and offset c ≥ 0. The power is
// computed by repeated squaring (about log₂ d multiplications), not math.Pow.
type Polynomial struct {
	Degree int     // degree d
	Scale  float64 // scale γ
	Offset float64 // offset c
}

// Eval returns (γ·xᵀy + c)^d. It does not allocate and does not check the
// parameters or the lengths of x and y; a degree below 1 gives 1.
func (k Polynomial) Eval(x, y []float64) float64 {
	return polynomial(x, y, k.Scale, k.Offset, k.Degree)
}

// Spec returns {Name: "polynomial", Degree: d, Scale: γ, Offset: c}.
func (k Polynomial) Spec() Spec {
	return Spec{Name: namePolynomial, Degree: k.Degree, Scale: k.Scale, Offset: k.Offset}
}

// String returns e.g. "polynomial(d=3, γ=0.5, c=1)".
func (k Polynomial) String() string {
	return "polynomial(d=" + strconv.Itoa(k.Degree) + ", γ=" + fmtFloat(k.Scale) + ", c=" + fmtFloat(k.Offset) + ")"
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

// Func is a kernel given by an arbitrary user function, which must be
// symmetric, positive semi-definite and safe for concurrent use. Its Spec
// records only the Name, so [New] cannot rebuild it: code that restores a
// saved Spec must map the name back to the function itself.
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

// laplacian returns exp(−‖x−y‖₁/σ).
func laplacian(x, y []float64, sigma float64) float64 {
	return math.Exp(-l1Dist(x, y) / sigma)
}

// polynomial returns (γ·xᵀy + c)^d.
func polynomial(x, y []float64, scale, offset float64, degree int) float64 {
	return powInt(scale*vec.Dot(x, y)+offset, degree)
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
