package kernel

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
)

// errorCases are zero-valued and hostile arguments for every exported function of the
// package that returns an error.
func errorCases() errtest.Cases {
	nan, inf := math.NaN(), math.Inf(1)
	validate := func(k Kernel) func() error { return func() error { return Validate(k) } }
	newSpec := func(s Spec) func() error { return func() error { _, err := New(s); return err } }
	bandwidth := func(X mat.Matrix) func() error {
		return func() error { _, err := DefaultBandwidth(X); return err }
	}
	median := func(X *mat.Dense, limit int) func() error {
		return func() error { _, err := MedianDistance(X, limit); return err }
	}
	register := func(f Func) func() error { return func() error { return Register(f) } }
	arg, empty, nonFinite := ikpca.ErrArgument, ikpca.ErrEmpty, ikpca.ErrNonFinite
	var c errtest.Cases
	c.Add("Validate: nil", arg, validate(nil))
	c.Add("Validate: nil *RBF", arg, validate((*RBF)(nil)))
	c.Add("Validate: nil *Func", arg, validate((*Func)(nil)))
	c.Add("Validate: nil user pointer", arg, validate((*checked)(nil)))
	c.Add("Validate: nil user func", arg, validate(funcKernel(nil)))
	c.Add("Validate: zero RBF", arg, validate(RBF{}))
	c.Add("Validate: zero Laplacian", arg, validate(Laplacian{}))
	c.Add("Validate: zero Polynomial", arg, validate(Polynomial{}))
	c.Add("Validate: zero Func", arg, validate(Func{}))
	c.Add("Validate: RBF σ and γ", arg, validate(RBF{Sigma: 1, Gamma: 1}))
	c.Add("Validate: RBF σ NaN", arg, validate(RBF{Sigma: nan}))
	c.Add("Validate: RBF γ Inf", arg, validate(RBF{Gamma: inf}))
	c.Add("Validate: RBF γ −1", arg, validate(RBF{Gamma: -1}))
	c.Add("Validate: RBF σ underflows", arg, validate(RBF{Sigma: 1e-300}))
	c.Add("Validate: RBF σ overflows", arg, validate(RBF{Sigma: 1e300}))
	c.Add("Validate: RBF γ subnormal", arg, validate(RBF{Gamma: 5e-324}))
	c.Add("Validate: Laplacian σ subnormal", arg, validate(Laplacian{Sigma: 5e-324}))
	c.Add("Validate: Laplacian γ max", arg, validate(Laplacian{Gamma: math.MaxFloat64}))
	c.Add("Validate: Polynomial γ 0", arg, validate(Polynomial{Degree: 2, Coef0: 1}))
	c.Add("Validate: Polynomial c NaN", arg, validate(Polynomial{Degree: 2, Gamma: 1, Coef0: nan}))
	c.Add("Validate: Polynomial degree −1", arg, validate(Polynomial{Degree: -1, Gamma: 1}))
	c.Add("Validate: Func named rbf", arg, validate(Func{Name: "Rbf", F: minKernel}))
	c.Add("Validate: user error", arg, validate(checked{}))
	c.Add("Validate: user error with a kind", nonFinite, validate(kinded{}))
	c.Add("New: zero Spec", arg, newSpec(Spec{}))
	c.Add("New: unknown name", arg, newSpec(Spec{Name: "gaussian", Sigma: 1}))
	c.Add("New: unregistered Func", arg, newSpec(Spec{Name: "test-errors-unregistered"}))
	c.Add("New: rbf without σ or γ", arg, newSpec(Spec{Name: "rbf"}))
	c.Add("New: rbf σ −0", arg, newSpec(Spec{Name: "rbf", Sigma: math.Copysign(0, -1)}))
	c.Add("New: laplacian NaN", arg, newSpec(Spec{Name: "laplacian", Gamma: nan}))
	c.Add("New: polynomial zero", arg, newSpec(Spec{Name: "polynomial"}))
	c.Add("New: polynomial huge degree, γ 0", arg, newSpec(Spec{Name: "polynomial", Degree: math.MaxInt}))
	c.Add("DefaultBandwidth: nil", arg, bandwidth(nil))
	c.Add("DefaultBandwidth: nil *Dense", arg, bandwidth((*mat.Dense)(nil)))
	c.Add("DefaultBandwidth: empty Dense", empty, bandwidth(&mat.Dense{}))
	c.Add("DefaultBandwidth: one row", empty, bandwidth(line(3)))
	c.Add("DefaultBandwidth: no columns", empty, bandwidth(emptyCols{}))
	c.Add("DefaultBandwidth: NaN", nonFinite, bandwidth(line(1, nan)))
	c.Add("DefaultBandwidth: −Inf", nonFinite, bandwidth(line(1, -inf, 2)))
	c.Add("DefaultBandwidth: coincident", arg, bandwidth(line(4, 4)))
	c.Add("DefaultBandwidth: overflow", arg, bandwidth(line(-math.MaxFloat64, math.MaxFloat64)))
	for _, h := range errtest.Matrices(2) {
		if h.Name == "MaxInt rows" || h.Name == "2⁴⁰ rows" {
			continue // a lazy matrix whose sample can be read: TestDefaultBandwidthLazy
		}
		c.Add("DefaultBandwidth: "+h.Name, h.Kind, func() error { _, err := DefaultBandwidth(h.New()); return err })
	}
	c.Add("MedianDistance: nil", arg, median(nil, 10))
	c.Add("MedianDistance: empty", empty, median(&mat.Dense{}, 10))
	c.Add("MedianDistance: zero limit", arg, median(line(1, 2), 0))
	c.Add("MedianDistance: limit min int", arg, median(line(1, 2), math.MinInt))
	c.Add("MedianDistance: one row", empty, median(line(1), 10))
	c.Add("MedianDistance: Inf", nonFinite, median(line(1, inf), 10))
	c.Add("MedianDistance: overflow", arg, median(line(-1e300, 1e300), 2))
	c.Add("Register: zero Func", arg, register(Func{}))
	c.Add("Register: nil F", arg, register(Func{Name: "test-errors-nil"}))
	c.Add("Register: built-in name", arg, register(Func{Name: "LINEAR", F: minKernel}))
	c.Add("Register: invalid UTF-8", arg, register(Func{Name: "\xc3", F: minKernel}))
	return c
}

// sentinels are the package's.
var sentinels = errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument)

// TestErrorKinds runs every exported function of the package that returns an error
// with zero-valued and hostile arguments: each call returns an error — it does not
// panic — that wraps the expected ikpca kind and the package's sentinel for it, first,
// and no other kind.
func TestErrorKinds(t *testing.T) { sentinels.Run(t, errorCases()) }

// TestErrorsCoverEveryFunction reads the package's source and checks that
// errorCases calls every exported function that returns an error, so that a new one
// cannot be added without its hostile arguments.
func TestErrorsCoverEveryFunction(t *testing.T) { errorCases().Cover(t, 1) }
