package update

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
)

// TestNilArguments: every entry point given nil, or a typed nil, returns an error that
// wraps ErrArgument, instead of panicking, and leaves the state as it was.
func TestNilArguments(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	a := synth.RandomSym(6, rng)
	s := factorized(t, a)
	before := s.Values(nil)
	var p Product
	cases := []struct {
		name string
		call func() error
	}{
		{"Factorize(nil)", func() error { return s.Factorize(nil) }},
		{"Factorize((*mat.SymDense)(nil))", func() error { return s.Factorize((*mat.SymDense)(nil)) }},
		{"SetEigen(nil, nil)", func() error { return s.SetEigen(nil, nil) }},
		{"SetEigen(values, nil)", func() error { return s.SetEigen([]float64{1, 2}, nil) }},
		{"Product.Mul(nil, s)", func() error { return p.Mul(nil, s) }},
		{"Product.Mul((*mat.Dense)(nil), s)", func() error { return p.Mul((*mat.Dense)(nil), s) }},
		{"Product.Mul(b, nil)", func() error { return p.Mul(mat.NewDense(2, 6, nil), nil) }},
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", c.name, r)
				}
			}()
			return c.call()
		}()
		if !errors.Is(err, ErrArgument) {
			t.Errorf("%s = %v, want ErrArgument", c.name, err)
		}
	}
	if got := s.Values(nil); !slices.Equal(got, before) {
		t.Error("a rejected call changed the decomposition")
	}
	// An empty decomposition is set from an empty matrix, not nil.
	var empty Sym
	if err := empty.SetEigen(nil, &mat.Dense{}); err != nil || empty.Len() != 0 {
		t.Errorf("SetEigen(nil, empty) = %v, Len %d", err, empty.Len())
	}
}

// TestOptionsValidate: negative options are an ErrArgument error, and SetOptions keeps
// the options it had.
func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{}, {Workers: 4, Serial: 1, MaxIterations: 100}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	var s Sym
	if err := s.SetOptions(Options{Workers: 3, MaxIterations: 7}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Workers: -1}, {Serial: -1}, {MaxIterations: -5}} {
		if err := o.Validate(); !errors.Is(err, ErrArgument) {
			t.Errorf("%+v.Validate() = %v, want ErrArgument", o, err)
		}
		if err := s.SetOptions(o); !errors.Is(err, ErrArgument) {
			t.Errorf("SetOptions(%+v) = %v, want ErrArgument", o, err)
		}
		if s.solver.Workers != 3 || s.solver.Serial != 0 || s.solver.MaxIterations != 7 {
			t.Errorf("SetOptions(%+v) changed the options: workers %d, serial %d, max iterations %d",
				o, s.solver.Workers, s.solver.Serial, s.solver.MaxIterations)
		}
	}
}
