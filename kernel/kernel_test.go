package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// builtins returns one validated instance of every built-in kernel, RBF and Laplacian
// given by σ and by γ, with parameters suited to points with coordinates of order 1.
func builtins() []Kernel {
	return []Kernel{
		RBF{Sigma: 0.7},
		RBF{Gamma: 1.1},
		Laplacian{Sigma: 1.3},
		Laplacian{Gamma: 0.6},
		Polynomial{Degree: 3, Gamma: 0.5, Coef0: 1},
		Linear{},
		Sigmoid{Gamma: 0.3, Coef0: -0.5},
		Cosine{},
	}
}

// minKernel is the histogram-intersection kernel Σ min(x_i, y_i), positive
// semi-definite on non-negative vectors; it stands in for a user function.
func minKernel(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += math.Min(x[i], y[i])
	}
	return s
}

// custom is a user-defined Kernel type that is neither a built-in nor a Func.
type custom struct{ scale float64 }

func (c custom) Eval(x, y []float64) float64 { return c.scale * minKernel(x, y) }

// checked is a user-defined Kernel type with its own Validate method.
type checked struct{ ok bool }

func (checked) Eval(x, y []float64) float64 { return 0 }

func (c checked) Validate() error {
	if !c.ok {
		return errTest
	}
	return nil
}

var errTest = errors.New("checked: not ok")

// allKernels returns the built-ins, pointers to some of them, a Func and a
// custom kernel type, for tests of Column and Matrix.
func allKernels() []Kernel {
	ks := builtins()
	ks = append(ks,
		&RBF{Sigma: 2},
		&RBF{Gamma: 0.125},
		&Laplacian{Gamma: 2},
		&Polynomial{Degree: 2, Gamma: 1, Coef0: 0},
		&Sigmoid{Gamma: 2, Coef0: 1},
		&Cosine{},
		Func{Name: "min", F: minKernel},
		&Func{Name: "min", F: minKernel},
		custom{scale: 0.5},
	)
	return ks
}

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func TestHandValues(t *testing.T) {
	// Three coordinates: x − y = (−3, 2, 0), ‖·‖² = 13, ‖·‖₁ = 5, xᵀy = 13.
	x3 := []float64{1, 2, 3}
	y3 := []float64{4, 0, 3}
	// Seven coordinates exercise the unrolled loop and its tail:
	// ‖x−y‖² = 36+9+0+9+36+81+42.25 = 213.25, ‖x−y‖₁ = 33.5, xᵀy = 10.5.
	x7 := []float64{1, 2, 3, 4, 5, 6, 7}
	y7 := []float64{7, 5, 3, 1, -1, -3, 0.5}
	cases := []struct {
		k    Kernel
		x, y []float64
		want float64
		rel  float64 // 0: exact
	}{
		{RBF{Sigma: 2}, x3, y3, 0.19691167520419406, 1e-15},                         // exp(−13/8)
		{RBF{Sigma: 3}, x7, y7, 7.158413196009873e-06, 1e-14},                       // exp(−213.25/18)
		{RBF{Sigma: 1}, x7, x7, 1, 0},                                               // exp(0)
		{RBF{Gamma: 0.125}, x3, y3, 0.19691167520419406, 1e-15},                     // exp(−13/8)
		{RBF{Gamma: 1.0 / 18}, x7, y7, 7.158413196009873e-06, 1e-14},                // exp(−213.25/18)
		{RBF{Gamma: 3}, x7, x7, 1, 0},                                               // exp(0)
		{Laplacian{Sigma: 2}, x3, y3, 0.0820849986238988, 1e-15},                    // exp(−5/2)
		{Laplacian{Sigma: 3}, x7, y7, 1.4137684493534087e-05, 1e-14},                // exp(−33.5/3)
		{Laplacian{Sigma: 0.1}, y7, y7, 1, 0},                                       // exp(0)
		{Laplacian{Gamma: 0.5}, x3, y3, 0.0820849986238988, 1e-15},                  // exp(−5/2)
		{Laplacian{Gamma: 1.0 / 3}, x7, y7, 1.4137684493534087e-05, 1e-14},          // exp(−33.5/3)
		{Polynomial{Degree: 3, Gamma: 0.5, Coef0: 1}, x3, y3, 421.875, 0},           // 7.5³
		{Polynomial{Degree: 4, Gamma: 0.25, Coef0: 2}, x7, y7, 457.558837890625, 0}, // 4.625⁴
		{Polynomial{Degree: 1, Gamma: 1, Coef0: 0}, x3, y3, 13, 0},
		{Polynomial{Degree: 2, Gamma: 2, Coef0: 0}, x3, y3, 676, 0}, // 26²
		{Linear{}, x3, y3, 13, 0},
		{Linear{}, x7, y7, 10.5, 0},
		{Func{Name: "min", F: minKernel}, x3, y3, 1 + 0 + 3, 0},
		{&RBF{Sigma: 2}, x3, y3, 0.19691167520419406, 1e-15},
		{&Laplacian{Gamma: 0.5}, x3, y3, 0.0820849986238988, 1e-15},
	}
	for _, c := range cases {
		got := c.k.Eval(c.x, c.y)
		if !near(got, c.want, c.rel) {
			t.Errorf("%v.Eval(%v, %v) = %v, want %v", c.k, c.x, c.y, got, c.want)
		}
	}
}

// TestEvalOperations pins the operations of Eval, on which Column's bit-for-bit promise
// and the blocks' direct evaluations rest: a kernel given by σ divides the distance by
// 2σ² (or σ), one given by γ multiplies it by γ, as scikit-learn does; the two agree to
// within the rounding of γ = 1/(2σ²) and of the exponent, and exactly where γ and 2σ²
// are powers of two.
func TestEvalOperations(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, d := range []int{1, 7, 123} {
		for range 50 {
			x, y := randVec(rng, d), randVec(rng, d)
			sq, l1 := 0.0, 0.0
			for i := range x {
				sq += (x[i] - y[i]) * (x[i] - y[i])
				l1 += math.Abs(x[i] - y[i])
			}
			sigma := 0.1 + 3*rng.Float64()
			gamma := 1 / (2 * sigma * sigma)
			cases := []struct {
				k    Kernel
				want float64
			}{
				{RBF{Sigma: sigma}, math.Exp(-sqDistRef(x, y) / (2 * sigma * sigma))},
				{RBF{Gamma: gamma}, math.Exp(-gamma * sqDistRef(x, y))},
				{Laplacian{Sigma: sigma}, math.Exp(-l1DistRef(x, y) / sigma)},
				{Laplacian{Gamma: gamma}, math.Exp(-gamma * l1DistRef(x, y))},
			}
			for _, c := range cases {
				if got := c.k.Eval(x, y); got != c.want {
					t.Fatalf("%v: Eval = %v, want %v bit for bit", c.k, got, c.want)
				}
			}
			// σ and γ = 1/(2σ²): γ's rounding, the division's and the product's, and exp's
			// condition number v: a relative 4ε·max(1, v) covers them.
			a, b := RBF{Sigma: sigma}.Eval(x, y), RBF{Gamma: gamma}.Eval(x, y)
			if v := sq * gamma; !(math.Abs(a-b) <= 4*0x1p-53*max(1, v)*a+0x1p-1022) {
				t.Fatalf("σ=%v and γ=%v differ: %v and %v", sigma, gamma, a, b)
			}
			if a, b := (RBF{Sigma: 1}).Eval(x, y), (RBF{Gamma: 0.5}).Eval(x, y); a != b {
				t.Fatalf("σ = 1 and γ = ½ differ: %v and %v", a, b)
			}
		}
	}
}

// sqDistRef and l1DistRef are vec.SqDist and l1Dist as Eval sums them: four interleaved
// accumulators, (s0 + s1) + (s2 + s3).
func sqDistRef(x, y []float64) float64 {
	var s [4]float64
	n := len(x) &^ 3
	for i := 0; i < n; i += 4 {
		for l := range 4 {
			d := x[i+l] - y[i+l]
			s[l] += d * d
		}
	}
	for i := n; i < len(x); i++ {
		d := x[i] - y[i]
		s[0] += d * d
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

func l1DistRef(x, y []float64) float64 {
	var s [4]float64
	n := len(x) &^ 3
	for i := 0; i < n; i += 4 {
		for l := range 4 {
			s[l] += math.Abs(x[i+l] - y[i+l])
		}
	}
	for i := n; i < len(x); i++ {
		s[0] += math.Abs(x[i] - y[i])
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

func TestPowInt(t *testing.T) {
	for _, b := range []float64{-1.5, -1, 0, 0.5, 1, 1.1, 2, 3} {
		for n := 0; n <= 40; n++ {
			got, want := powInt(b, n), math.Pow(b, float64(n))
			if !near(got, want, 1e-14) && got != want {
				t.Errorf("powInt(%v, %d) = %v, want %v", b, n, got, want)
			}
		}
	}
	if powInt(3, 5) != 243 || powInt(2, 10) != 1024 || powInt(-2, 3) != -8 {
		t.Error("powInt is not exact on small integers")
	}
	if powInt(7, -1) != 1 {
		t.Error("powInt(b, n ≤ 0) should be 1")
	}
}

func TestSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 3, 4, 7, 16, 123} {
		for range 20 {
			x, y := randVec(rng, d), randVec(rng, d)
			for _, k := range builtins() {
				if a, b := k.Eval(x, y), k.Eval(y, x); a != b {
					t.Errorf("%v, d=%d: k(x,y)=%v ≠ k(y,x)=%v", k, d, a, b)
				}
			}
		}
	}
}

// TestPSD checks that the kernel matrix of 60 random points has no
// eigenvalue below −1e-12 times the largest.
func TestPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	X := randDense(rng, 60, 5)
	for _, k := range append(builtins(), Polynomial{Degree: 2, Gamma: 1, Coef0: 0}, Polynomial{Degree: 6, Gamma: 0.2, Coef0: 0.5}) {
		if _, ok := k.(Sigmoid); ok {
			continue // not positive semi-definite: TestSigmoidIndefinite
		}
		K := Matrix(k, X)
		var eig mat.EigenSym
		if !eig.Factorize(K, false) {
			t.Fatalf("%v: EigenSym failed", k)
		}
		vals := eig.Values(nil) // ascending
		lo, hi := vals[0], vals[len(vals)-1]
		if !(hi > 0) || lo < -1e-12*hi {
			t.Errorf("%v: eigenvalues in [%g, %g], want ≥ −1e-12·largest", k, lo, hi)
		}
	}
}

// TestSpecRoundTrip: New(k.Spec()) is k for every valid built-in kernel — σ or γ as
// given, the polynomial's γ and c — bit for bit, through a Spec and through its JSON
// (the checkpoint header's encoding), for hand-picked kernels and kernels with random
// parameters over the whole valid range.
func TestSpecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	ks := append(builtins(), RBF{Sigma: 0.341}, RBF{Gamma: 0x1p-1022}, RBF{Gamma: 0x1p1022},
		RBF{Sigma: 1.0547686614863e-154}, RBF{Sigma: 4.740375954054588e153},
		Laplacian{Sigma: 0x1p-1022}, Laplacian{Gamma: 0x1p1022}, Laplacian{Sigma: 0x1p1022},
		Polynomial{Degree: 1, Gamma: 0x1p-1022, Coef0: 0}, Polynomial{Degree: 50, Gamma: math.MaxFloat64, Coef0: math.MaxFloat64},
		Sigmoid{Gamma: 0x1p-1022, Coef0: -math.MaxFloat64}, Sigmoid{Gamma: math.MaxFloat64, Coef0: 0}, Sigmoid{Gamma: 1, Coef0: math.Copysign(0, -1)},
		Cosine{})
	for range 200 {
		// Random bits in the valid range: exponents from −1022 to 1021.
		v := func() float64 {
			return math.Ldexp(1+rng.Float64(), rng.IntN(2044)-1022)
		}
		ks = append(ks, RBF{Sigma: math.Sqrt(v() / 2)}, RBF{Gamma: v()}, Laplacian{Sigma: v()}, Laplacian{Gamma: v()},
			Polynomial{Degree: 1 + rng.IntN(9), Gamma: v(), Coef0: v()}, Sigmoid{Gamma: v(), Coef0: v()}, Sigmoid{Gamma: v(), Coef0: -v()})
	}
	x, y := []float64{0.1, -0.7, 2}, []float64{0.3, 0.4, -1}
	for _, k := range ks {
		if err := Validate(k); err != nil {
			t.Fatalf("Validate(%v): %v", k, err)
		}
		s := k.(Specified).Spec()
		k2, err := New(s)
		if err != nil {
			t.Fatalf("New(%+v): %v", s, err)
		}
		if k2 != k {
			t.Errorf("New(%+v) = %#v, want %#v", s, k2, k)
		}
		if a, b := k.Eval(x, y), k2.Eval(x, y); math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("%v: Eval %v after the round trip, %v before", k, b, a)
		}
		if s2 := k2.(Specified).Spec(); !sameSpecBits(s2, s) {
			t.Errorf("Spec changed in round trip: %+v → %+v", s, s2)
		}
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("json.Marshal(%+v): %v", s, err)
		}
		var back Spec
		if err := json.Unmarshal(js, &back); err != nil || !sameSpecBits(back, s) {
			t.Errorf("JSON round trip of %+v: %s gives %+v, %v", s, js, back, err)
		}
	}
	// Pointers report the Spec of their value; New returns a value.
	k, err := New((&Laplacian{Sigma: 4}).Spec())
	if err != nil || k != (Laplacian{Sigma: 4}) {
		t.Errorf("New(laplacian spec) = %#v, %v", k, err)
	}
	k, err = New((&RBF{Gamma: 4}).Spec())
	if err != nil || k != (RBF{Gamma: 4}) {
		t.Errorf("New(rbf γ spec) = %#v, %v", k, err)
	}
	// Fields not used by the named kernel are ignored.
	for _, c := range []struct {
		spec Spec
		want Kernel
	}{
		{Spec{Name: "linear", Sigma: 3, Gamma: 2, Degree: 2, Coef0: 1}, Linear{}},
		{Spec{Name: "rbf", Sigma: 1, Degree: 2, Coef0: 3}, RBF{Sigma: 1}},
		{Spec{Name: "laplacian", Gamma: 1, Degree: 2, Coef0: 3}, Laplacian{Gamma: 1}},
		{Spec{Name: "polynomial", Sigma: 5, Degree: 2, Gamma: 1}, Polynomial{Degree: 2, Gamma: 1}},
		{Spec{Name: "sigmoid", Sigma: 5, Degree: 2, Gamma: 1, Coef0: -2}, Sigmoid{Gamma: 1, Coef0: -2}},
		{Spec{Name: "cosine", Sigma: 5, Degree: 2, Gamma: 1, Coef0: -2}, Cosine{}},
	} {
		if k, err := New(c.spec); err != nil || k != c.want {
			t.Errorf("New(%+v) = %#v, %v; want %#v", c.spec, k, err, c.want)
		}
	}
}

// sameSpecBits reports whether two Specs are equal bit for bit (== holds for −0 and +0).
func sameSpecBits(a, b Spec) bool {
	return a.Name == b.Name && a.Degree == b.Degree &&
		math.Float64bits(a.Sigma) == math.Float64bits(b.Sigma) &&
		math.Float64bits(a.Gamma) == math.Float64bits(b.Gamma) &&
		math.Float64bits(a.Coef0) == math.Float64bits(b.Coef0)
}

func TestSpecFields(t *testing.T) {
	cases := []struct {
		k    Specified
		want Spec
		str  string
	}{
		{RBF{Sigma: 0.341}, Spec{Name: "rbf", Sigma: 0.341}, "rbf(σ=0.341)"},
		{RBF{Gamma: 0.5}, Spec{Name: "rbf", Gamma: 0.5}, "rbf(γ=0.5)"},
		{Laplacian{Sigma: 2}, Spec{Name: "laplacian", Sigma: 2}, "laplacian(σ=2)"},
		{Laplacian{Gamma: 1e-3}, Spec{Name: "laplacian", Gamma: 1e-3}, "laplacian(γ=0.001)"},
		{Polynomial{Degree: 3, Gamma: 0.5, Coef0: 1}, Spec{Name: "polynomial", Degree: 3, Gamma: 0.5, Coef0: 1}, "polynomial(d=3, γ=0.5, c=1)"},
		{Linear{}, Spec{Name: "linear"}, "linear"},
		{Sigmoid{Gamma: 0.5, Coef0: -1}, Spec{Name: "sigmoid", Gamma: 0.5, Coef0: -1}, "sigmoid(γ=0.5, c=-1)"},
		{&Sigmoid{Gamma: 2, Coef0: 1}, Spec{Name: "sigmoid", Gamma: 2, Coef0: 1}, "sigmoid(γ=2, c=1)"},
		{Cosine{}, Spec{Name: "cosine"}, "cosine"},
		{&Cosine{}, Spec{Name: "cosine"}, "cosine"},
		{Func{Name: "min", F: minKernel}, Spec{Name: "min"}, "min"},
		{Func{F: minKernel}, Spec{}, "func"},
		{&RBF{Sigma: 1e-3}, Spec{Name: "rbf", Sigma: 1e-3}, "rbf(σ=0.001)"},
		{&Laplacian{Gamma: 3}, Spec{Name: "laplacian", Gamma: 3}, "laplacian(γ=3)"},
		// Invalid kernels show what they hold.
		{RBF{}, Spec{Name: "rbf"}, "rbf(σ=0)"},
		{RBF{Sigma: 1, Gamma: 2}, Spec{Name: "rbf", Sigma: 1, Gamma: 2}, "rbf(σ=1, γ=2)"},
	}
	for _, c := range cases {
		if got := c.k.Spec(); got != c.want {
			t.Errorf("%v.Spec() = %+v, want %+v", c.k, got, c.want)
		}
		if got := c.k.(interface{ String() string }).String(); got != c.str {
			t.Errorf("String() = %q, want %q", got, c.str)
		}
	}
}

func TestNewErrors(t *testing.T) {
	bad := []Spec{
		{},
		{Name: "min"}, // a Func name that is not registered
		{Name: "gaussian", Sigma: 1},
		{Name: " rbf", Sigma: 1},
		{Name: "rbf"},
		{Name: "rbf", Sigma: -1},
		{Name: "rbf", Sigma: 1, Gamma: 0.5},
		{Name: "rbf", Gamma: -0.5},
		{Name: "laplacian", Sigma: math.Inf(1)},
		{Name: "laplacian", Gamma: math.NaN()},
		{Name: "polynomial", Degree: 0, Gamma: 1, Coef0: 1},
		{Name: "polynomial", Degree: 2, Gamma: math.NaN(), Coef0: 1},
		{Name: "polynomial", Degree: 2, Coef0: 1}, // γ = 0: the constant c^d
		{Name: "polynomial", Degree: 2, Sigma: 1}, // σ is not the polynomial's γ
		{Name: "sigmoid", Coef0: 1},               // γ = 0: the constant tanh(c)
		{Name: "sigmoid", Gamma: -1, Coef0: 1},
		{Name: "sigmoid", Gamma: 1, Coef0: math.NaN()},
		{Name: "sigmoid", Sigma: 1, Coef0: 1}, // σ is not the sigmoid's γ
	}
	for _, s := range bad {
		if k, err := New(s); err == nil || !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("New(%+v) = %v, %v; want an error wrapping ErrArgument", s, k, err)
		}
	}
	_, err := New(Spec{Name: "min"})
	if err == nil || !strings.Contains(err.Error(), "Func") || !strings.Contains(err.Error(), "Register") {
		t.Errorf("New(func spec) error %v should mention Func and Register", err)
	}
	// An unknown name lists the valid ones.
	for _, s := range []Spec{{Name: "gauss"}, {}} {
		_, err := New(s)
		for _, name := range Names() {
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("New(%+v) error %v does not list %q", s, err, name)
			}
		}
	}
	// Neither or both of σ and γ: the error says what to set.
	for _, s := range []Spec{{Name: "rbf"}, {Name: "laplacian", Sigma: 1, Gamma: 1}} {
		_, err := New(s)
		if err == nil || !strings.Contains(err.Error(), "Sigma") || !strings.Contains(err.Error(), "Gamma") {
			t.Errorf("New(%+v) error %v should name Sigma and Gamma", s, err)
		}
	}
}

// TestNewAnyCase: names are recognised in any case, and the kernel reports the
// lower-case name.
func TestNewAnyCase(t *testing.T) {
	cases := []struct {
		spec Spec
		want Kernel
	}{
		{Spec{Name: "RBF", Sigma: 2}, RBF{Sigma: 2}},
		{Spec{Name: "Rbf", Gamma: 2}, RBF{Gamma: 2}},
		{Spec{Name: "Laplacian", Sigma: 3}, Laplacian{Sigma: 3}},
		{Spec{Name: "POLYNOMIAL", Degree: 2, Gamma: 1, Coef0: 1}, Polynomial{Degree: 2, Gamma: 1, Coef0: 1}},
		{Spec{Name: "Linear"}, Linear{}},
		{Spec{Name: "SIGMOID", Gamma: 1, Coef0: -1}, Sigmoid{Gamma: 1, Coef0: -1}},
		{Spec{Name: "Cosine"}, Cosine{}},
	}
	for _, c := range cases {
		k, err := New(c.spec)
		if err != nil || k != c.want {
			t.Errorf("New(%+v) = %#v, %v; want %#v", c.spec, k, err, c.want)
			continue
		}
		if got := k.(Specified).Spec().Name; got != strings.ToLower(c.spec.Name) {
			t.Errorf("New(%+v).Spec().Name = %q", c.spec, got)
		}
		if !IsBuiltin(c.spec.Name) {
			t.Errorf("IsBuiltin(%q) = false", c.spec.Name)
		}
	}
	for _, name := range []string{"", "min", "gauss", "rbf "} {
		if IsBuiltin(name) {
			t.Errorf("IsBuiltin(%q) = true", name)
		}
	}
}

func TestValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	good := []Kernel{
		RBF{Sigma: 1e-150}, RBF{Sigma: 1e150}, &RBF{Sigma: 1}, RBF{Gamma: 1e-300}, RBF{Gamma: 1e300},
		RBF{Sigma: math.Copysign(0, -1), Gamma: 1}, // −0 is zero: γ is given
		Laplacian{Sigma: 2}, Laplacian{Sigma: 1e-300}, Laplacian{Gamma: 3}, &Laplacian{Gamma: 1e300},
		Polynomial{Degree: 1, Gamma: 1, Coef0: 0}, Polynomial{Degree: 50, Gamma: 2, Coef0: 3},
		Linear{}, &Linear{},
		Sigmoid{Gamma: 1, Coef0: 0}, Sigmoid{Gamma: 0x1p-1022, Coef0: -math.MaxFloat64}, &Sigmoid{Gamma: math.MaxFloat64, Coef0: 3},
		Cosine{}, &Cosine{},
		Func{Name: "min", F: minKernel}, Func{F: minKernel},
		custom{}, checked{ok: true},
	}
	for _, k := range good {
		if err := Validate(k); err != nil {
			t.Errorf("Validate(%#v) = %v, want nil", k, err)
		}
	}
	bad := []Kernel{
		nil,
		(*RBF)(nil), (*Laplacian)(nil), (*Polynomial)(nil), (*Linear)(nil), (*Sigmoid)(nil), (*Cosine)(nil), (*Func)(nil),
		(*custom)(nil), (*checked)(nil), funcKernel(nil),
		RBF{}, RBF{Sigma: -1}, RBF{Sigma: nan}, RBF{Sigma: inf}, &RBF{Sigma: 0},
		RBF{Sigma: 1, Gamma: 1}, RBF{Gamma: -1}, RBF{Gamma: nan}, RBF{Gamma: inf},
		RBF{Sigma: 1e-300}, RBF{Sigma: 1e300}, RBF{Gamma: 1e-310}, RBF{Gamma: math.MaxFloat64},
		Laplacian{}, Laplacian{Sigma: -inf}, Laplacian{Sigma: nan}, Laplacian{Gamma: -2}, Laplacian{Sigma: 2, Gamma: 0.5},
		Laplacian{Sigma: 1e-310}, Laplacian{Gamma: math.MaxFloat64},
		Polynomial{Degree: 0, Gamma: 1, Coef0: 1}, Polynomial{Degree: -2, Gamma: 1, Coef0: 1},
		Polynomial{Degree: 2, Gamma: nan, Coef0: 1}, Polynomial{Degree: 2, Gamma: inf, Coef0: 1},
		Polynomial{Degree: 2, Gamma: 1, Coef0: nan}, Polynomial{Degree: 2, Gamma: 1, Coef0: -inf},
		Polynomial{Degree: 2, Gamma: -1, Coef0: 1}, Polynomial{Degree: 2, Gamma: 1, Coef0: -1},
		Polynomial{Degree: 2, Gamma: 0, Coef0: 1}, Polynomial{Degree: 1, Gamma: 0, Coef0: 0}, Polynomial{Degree: 1, Gamma: 1e-310},
		Sigmoid{}, Sigmoid{Gamma: 0, Coef0: 1}, Sigmoid{Gamma: -1, Coef0: 1}, Sigmoid{Gamma: nan, Coef0: 1},
		Sigmoid{Gamma: inf, Coef0: 1}, Sigmoid{Gamma: 1e-310, Coef0: 1}, &Sigmoid{Gamma: 1, Coef0: nan},
		Sigmoid{Gamma: 1, Coef0: inf}, Sigmoid{Gamma: 1, Coef0: -inf},
		Func{Name: "f"}, &Func{Name: "f"},
		Func{Name: "rbf", F: minKernel}, Func{Name: "Linear", F: minKernel},
		Func{Name: "sigmoid", F: minKernel}, Func{Name: "COSINE", F: minKernel},
		checked{ok: false},
	}
	for _, k := range bad {
		if err := Validate(k); err == nil || !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("Validate(%#v) = %v, want an error wrapping ErrArgument", k, err)
		}
	}
	// A kernel's own error is returned wrapped in the package's sentinel of its kind,
	// ErrArgument if it has none.
	if err := Validate(checked{}); !errors.Is(err, errTest) || !errors.Is(err, ErrArgument) {
		t.Errorf("Validate did not wrap the kernel's own error: %v", err)
	}
	if err := Validate(kinded{}); !errors.Is(err, ErrNonFinite) || errors.Is(err, ikpca.ErrArgument) {
		t.Errorf("Validate changed the kind of the kernel's own error: %v", err)
	}
}

// funcKernel is a user kernel of function type, whose nil value Validate refuses.
type funcKernel func(x, y []float64) float64

func (f funcKernel) Eval(x, y []float64) float64 { return f(x, y) }

// kinded is a user kernel whose Validate error already wraps an ikpca kind.
type kinded struct{}

func (kinded) Eval(x, y []float64) float64 { return 0 }
func (kinded) Validate() error             { return fmt.Errorf("kinded: %w", ikpca.ErrNonFinite) }

// TestValidateBoundaries checks the range of σ and γ at its ends (docs in Validate): the
// first values inside are valid, and their blocks and matrices Eval's within the blocks'
// accuracy, with the diagonal 1; the next float64 outside is refused; and the kernels
// outside are degenerate as Validate says.
func TestValidateBoundaries(t *testing.T) {
	inf := math.Inf(1)
	const minSigma, maxSigma = 1.0547686614863e-154, 4.740375954054588e153
	// The RBF's thresholds are where 2σ² (as computed) leaves [2⁻¹⁰²², 2¹⁰²²].
	if u := 2 * minSigma * minSigma; !(u >= 0x1p-1022) {
		t.Fatalf("2σ² = %v at the smallest σ", u)
	}
	if s := math.Nextafter(minSigma, 0); !(2*s*s < 0x1p-1022) {
		t.Fatalf("2σ² = %v just below the smallest σ", 2*s*s)
	}
	if u := 2 * maxSigma * maxSigma; !(u <= 0x1p1022) {
		t.Fatalf("2σ² = %v at the largest σ", u)
	}
	if s := math.Nextafter(maxSigma, inf); !(2*s*s > 0x1p1022) {
		t.Fatalf("2σ² = %v just above the largest σ", 2*s*s)
	}
	below, above := func(v float64) float64 { return math.Nextafter(v, 0) }, func(v float64) float64 { return math.Nextafter(v, inf) }
	cases := []struct {
		in, out Kernel
		scale   float64 // of the points on which the valid kernel is tried
	}{
		{RBF{Sigma: minSigma}, RBF{Sigma: below(minSigma)}, minSigma},
		{RBF{Sigma: maxSigma}, RBF{Sigma: above(maxSigma)}, maxSigma / 1e4},
		{RBF{Gamma: 0x1p-1022}, RBF{Gamma: below(0x1p-1022)}, 1e150},
		{RBF{Gamma: 0x1p1022}, RBF{Gamma: above(0x1p1022)}, 1e-154},
		{Laplacian{Sigma: 0x1p-1022}, Laplacian{Sigma: below(0x1p-1022)}, 1e-308},
		{Laplacian{Sigma: 0x1p1022}, Laplacian{Sigma: above(0x1p1022)}, 1e304},
		{Laplacian{Gamma: 0x1p-1022}, Laplacian{Gamma: below(0x1p-1022)}, 1e304},
		{Laplacian{Gamma: 0x1p1022}, Laplacian{Gamma: above(0x1p1022)}, 1e-308},
		{Polynomial{Degree: 2, Gamma: 0x1p-1022}, Polynomial{Degree: 2, Gamma: below(0x1p-1022)}, 1e150},
	}
	rng := rand.New(rand.NewPCG(93, 94))
	for _, c := range cases {
		if err := Validate(c.in); err != nil {
			t.Errorf("Validate(%v) = %v, want nil", c.in, err)
		}
		if err := Validate(c.out); !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("Validate(%v) = %v, want ErrArgument", c.out, err)
		}
		X, Y := extremePoints(rng, c.scale, 7)
		checkBlock(t, c.in, X, Y)
		checkMatrix(t, c.in, Y)
		if _, ok := c.in.(Polynomial); !ok {
			var self mat.Dense
			Block(&self, c.in, Y, Y)
			for i := range 7 {
				if self.At(i, i) != 1 {
					t.Errorf("%v: k(y, y) = %v in a block, want 1", c.in, self.At(i, i))
				}
			}
		}
	}
	// Outside: 2σ² = 0 gives k(x, x) = NaN; 2σ² = ∞ or γ = 0 after rounding, 1 for
	// points far apart.
	x, y := []float64{1, 2}, []float64{-3, 5}
	if v := (RBF{Sigma: 1e-300}).Eval(x, x); !math.IsNaN(v) {
		t.Errorf("σ = 1e-300: k(x, x) = %v, want NaN", v)
	}
	if v := (RBF{Sigma: 1e200}).Eval(x, y); v != 1 {
		t.Errorf("σ = 1e200: k(x, y) = %v, want 1", v)
	}
	if v := (RBF{Gamma: 5e-324}).Eval(x, y); v != 1 {
		t.Errorf("γ = 5e-324: k(x, y) = %v, want 1", v)
	}
}

func TestEvalNoAlloc(t *testing.T) {
	x, y := make([]float64, 123), make([]float64, 123)
	for i := range x {
		x[i], y[i] = float64(i)/100, float64(123-i)/100
	}
	for _, k := range append(builtins(), Polynomial{Degree: 17, Gamma: 0.01, Coef0: 1}) {
		var sink float64
		if n := testing.AllocsPerRun(100, func() { sink += k.Eval(x, y) }); n != 0 {
			t.Errorf("%v.Eval allocates %v times", k, n)
		}
		_ = sink
	}
}

func randVec(rng *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = rng.Float64()*2 - 1
	}
	return v
}

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	data := make([]float64, r*c)
	for i := range data {
		data[i] = rng.Float64()
	}
	return mat.NewDense(r, c, data)
}
