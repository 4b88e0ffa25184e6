package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// builtins returns one validated instance of every built-in kernel, with
// parameters suited to points with coordinates of order 1.
func builtins() []Kernel {
	return []Kernel{
		RBF{Sigma: 0.7},
		Laplacian{Sigma: 1.3},
		Polynomial{Degree: 3, Scale: 0.5, Offset: 1},
		Linear{},
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
		&Polynomial{Degree: 2, Scale: 1, Offset: 0},
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
		{RBF{Sigma: 2}, x3, y3, 0.19691167520419406, 1e-15},                          // exp(−13/8)
		{RBF{Sigma: 3}, x7, y7, 7.158413196009873e-06, 1e-14},                        // exp(−213.25/18)
		{RBF{Sigma: 1}, x7, x7, 1, 0},                                                // exp(0)
		{Laplacian{Sigma: 2}, x3, y3, 0.0820849986238988, 1e-15},                     // exp(−5/2)
		{Laplacian{Sigma: 3}, x7, y7, 1.4137684493534087e-05, 1e-14},                 // exp(−33.5/3)
		{Laplacian{Sigma: 0.1}, y7, y7, 1, 0},                                        // exp(0)
		{Polynomial{Degree: 3, Scale: 0.5, Offset: 1}, x3, y3, 421.875, 0},           // 7.5³
		{Polynomial{Degree: 4, Scale: 0.25, Offset: 2}, x7, y7, 457.558837890625, 0}, // 4.625⁴
		{Polynomial{Degree: 1, Scale: 1, Offset: 0}, x3, y3, 13, 0},
		{Polynomial{Degree: 2, Scale: 0, Offset: 3}, x3, y3, 9, 0},
		{Linear{}, x3, y3, 13, 0},
		{Linear{}, x7, y7, 10.5, 0},
		{Func{Name: "min", F: minKernel}, x3, y3, 1 + 0 + 3, 0},
		{&RBF{Sigma: 2}, x3, y3, 0.19691167520419406, 1e-15},
	}
	for _, c := range cases {
		got := c.k.Eval(c.x, c.y)
		if !near(got, c.want, c.rel) {
			t.Errorf("%v.Eval(%v, %v) = %v, want %v", c.k, c.x, c.y, got, c.want)
		}
	}
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
	for _, k := range append(builtins(), Polynomial{Degree: 2, Scale: 1, Offset: 0}, Polynomial{Degree: 6, Scale: 0.2, Offset: 0.5}) {
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

func TestSpecRoundTrip(t *testing.T) {
	for _, k := range append(builtins(), RBF{Sigma: 0.341}, Polynomial{Degree: 1, Scale: 0, Offset: 0}) {
		s := k.(Specified).Spec()
		k2, err := New(s)
		if err != nil {
			t.Fatalf("New(%+v): %v", s, err)
		}
		if k2 != k {
			t.Errorf("New(%+v) = %#v, want %#v", s, k2, k)
		}
		if k2.(Specified).Spec() != s {
			t.Errorf("Spec changed in round trip: %+v → %+v", s, k2.(Specified).Spec())
		}
	}
	// Pointers report the Spec of their value; New returns a value.
	k, err := New((&Laplacian{Sigma: 4}).Spec())
	if err != nil || k != (Laplacian{Sigma: 4}) {
		t.Errorf("New(laplacian spec) = %#v, %v", k, err)
	}
	// Fields not used by the named kernel are ignored.
	k, err = New(Spec{Name: "linear", Sigma: 3, Degree: 2})
	if err != nil || k != (Linear{}) {
		t.Errorf("New(linear with extra fields) = %#v, %v", k, err)
	}
	k, err = New(Spec{Name: "rbf", Sigma: 1, Degree: 2, Scale: 3})
	if err != nil || k != (RBF{Sigma: 1}) {
		t.Errorf("New(rbf with extra fields) = %#v, %v", k, err)
	}
}

func TestSpecFields(t *testing.T) {
	cases := []struct {
		k    Specified
		want Spec
		str  string
	}{
		{RBF{Sigma: 0.341}, Spec{Name: "rbf", Sigma: 0.341}, "rbf(σ=0.341)"},
		{Laplacian{Sigma: 2}, Spec{Name: "laplacian", Sigma: 2}, "laplacian(σ=2)"},
		{Polynomial{Degree: 3, Scale: 0.5, Offset: 1}, Spec{Name: "polynomial", Degree: 3, Scale: 0.5, Offset: 1}, "polynomial(d=3, γ=0.5, c=1)"},
		{Linear{}, Spec{Name: "linear"}, "linear"},
		{Func{Name: "min", F: minKernel}, Spec{Name: "min"}, "min"},
		{Func{F: minKernel}, Spec{}, "func"},
		{&RBF{Sigma: 1e-3}, Spec{Name: "rbf", Sigma: 1e-3}, "rbf(σ=0.001)"},
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
		{Name: "min"}, // a Func name cannot be rebuilt
		{Name: "gaussian", Sigma: 1},
		{Name: " rbf", Sigma: 1},
		{Name: "rbf"},
		{Name: "rbf", Sigma: -1},
		{Name: "laplacian", Sigma: math.Inf(1)},
		{Name: "polynomial", Degree: 0, Scale: 1, Offset: 1},
		{Name: "polynomial", Degree: 2, Scale: math.NaN(), Offset: 1},
	}
	for _, s := range bad {
		if k, err := New(s); err == nil {
			t.Errorf("New(%+v) = %v, want an error", s, k)
		}
	}
	_, err := New(Spec{Name: "min"})
	if err == nil || !strings.Contains(err.Error(), "Func") {
		t.Errorf("New(func spec) error %v should mention Func", err)
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
}

// TestNewAnyCase: names are recognised in any case, and the kernel reports the
// lower-case name.
func TestNewAnyCase(t *testing.T) {
	cases := []struct {
		spec Spec
		want Kernel
	}{
		{Spec{Name: "RBF", Sigma: 2}, RBF{Sigma: 2}},
		{Spec{Name: "Laplacian", Sigma: 3}, Laplacian{Sigma: 3}},
		{Spec{Name: "POLYNOMIAL", Degree: 2, Scale: 1, Offset: 1}, Polynomial{Degree: 2, Scale: 1, Offset: 1}},
		{Spec{Name: "Linear"}, Linear{}},
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
		RBF{Sigma: 1e-300}, RBF{Sigma: 1e300}, &RBF{Sigma: 1},
		Laplacian{Sigma: 2},
		Polynomial{Degree: 1, Scale: 0, Offset: 0}, Polynomial{Degree: 50, Scale: 2, Offset: 3},
		Linear{}, &Linear{},
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
		(*RBF)(nil), (*Laplacian)(nil), (*Polynomial)(nil), (*Linear)(nil), (*Func)(nil),
		RBF{}, RBF{Sigma: -1}, RBF{Sigma: nan}, RBF{Sigma: inf}, &RBF{Sigma: 0},
		Laplacian{}, Laplacian{Sigma: -inf}, Laplacian{Sigma: nan},
		Polynomial{Degree: 0, Scale: 1, Offset: 1}, Polynomial{Degree: -2, Scale: 1, Offset: 1},
		Polynomial{Degree: 2, Scale: nan, Offset: 1}, Polynomial{Degree: 2, Scale: inf, Offset: 1},
		Polynomial{Degree: 2, Scale: 1, Offset: nan}, Polynomial{Degree: 2, Scale: 1, Offset: -inf},
		Polynomial{Degree: 2, Scale: -1, Offset: 1}, Polynomial{Degree: 2, Scale: 1, Offset: -1},
		Func{Name: "f"}, &Func{Name: "f"},
		Func{Name: "rbf", F: minKernel}, Func{Name: "Linear", F: minKernel},
		checked{ok: false},
	}
	for _, k := range bad {
		if err := Validate(k); err == nil {
			t.Errorf("Validate(%#v) = nil, want an error", k)
		}
	}
	if err := Validate(checked{}); err != errTest {
		t.Errorf("Validate did not return the kernel's own error: %v", err)
	}
}

func TestEvalNoAlloc(t *testing.T) {
	x, y := make([]float64, 123), make([]float64, 123)
	for i := range x {
		x[i], y[i] = float64(i)/100, float64(123-i)/100
	}
	for _, k := range append(builtins(), Polynomial{Degree: 17, Scale: 0.01, Offset: 1}) {
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
