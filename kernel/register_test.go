package kernel

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/ikpca/ikpca"
)

// unregister removes a name registered by a test, when the test ends.
func unregister(t *testing.T, name string) {
	t.Cleanup(func() {
		registry.Lock()
		delete(registry.funcs, name)
		registry.Unlock()
	})
}

// TestRegister: a registered Func is what New returns for its Spec (its name,
// case-sensitive, whatever the other fields), registering the name again replaces the
// function, and a Func that is not registered is an unknown name.
func TestRegister(t *testing.T) {
	const name = "test-register-min"
	unregister(t, name)
	f := Func{Name: name, F: minKernel}
	if _, err := New(f.Spec()); !errors.Is(err, ikpca.ErrArgument) {
		t.Fatalf("New(%+v) before Register: %v, want ErrArgument", f.Spec(), err)
	}
	if err := Register(f); err != nil {
		t.Fatalf("Register: %v", err)
	}
	x, y := []float64{1, 5, 2}, []float64{3, 2, 2}
	for _, s := range []Spec{f.Spec(), {Name: name, Sigma: 3, Gamma: 2, Degree: 4, Coef0: 1}} {
		k, err := New(s)
		if err != nil {
			t.Fatalf("New(%+v): %v", s, err)
		}
		g, ok := k.(Func)
		if !ok || g.Name != name || g.Eval(x, y) != 5 {
			t.Errorf("New(%+v) = %#v, want the registered Func", s, k)
		}
		if got := k.(Specified).Spec(); got != f.Spec() {
			t.Errorf("Spec after the round trip: %+v, want %+v", got, f.Spec())
		}
	}
	if _, err := New(Spec{Name: "TEST-REGISTER-MIN"}); !errors.Is(err, ErrArgument) {
		t.Errorf("New of the name in another case: %v, want ErrArgument (names of Funcs are case-sensitive)", err)
	}
	// Again: the new function replaces the old one.
	if err := Register(Func{Name: name, F: func(x, y []float64) float64 { return 2 * minKernel(x, y) }}); err != nil {
		t.Fatalf("Register again: %v", err)
	}
	if k, err := New(f.Spec()); err != nil || k.Eval(x, y) != 10 {
		t.Errorf("New after registering again: %v gives %v, want the new function's 10", k, err)
	}
}

// TestRegisterErrors: names that cannot be registered, and a nil function, are
// ErrArgument and register nothing.
func TestRegisterErrors(t *testing.T) {
	for _, f := range []Func{
		{},
		{F: minKernel},
		{Name: "rbf", F: minKernel},
		{Name: "RBF", F: minKernel},
		{Name: "Laplacian", F: minKernel},
		{Name: "POLYNOMIAL", F: minKernel},
		{Name: "linear", F: minKernel},
		{Name: "test-register-nil"},
		{Name: "test-register-\xff", F: minKernel},
	} {
		if err := Register(f); !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("Register(%q, nil F: %v) = %v, want ErrArgument", f.Name, f.F == nil, err)
		}
		if f.Name == "" || IsBuiltin(f.Name) {
			continue
		}
		if _, ok := registered(f.Name); ok {
			t.Errorf("Register(%q) failed but registered it", f.Name)
		}
	}
	// A built-in name still gives the built-in kernel.
	if k, err := New(Spec{Name: "rbf", Sigma: 1}); err != nil || k != (RBF{Sigma: 1}) {
		t.Errorf("New(rbf) = %v, %v", k, err)
	}
}

// TestRegisterConcurrent registers and looks up Funcs from several goroutines at once
// (run with -race to check the locking): every lookup finds one of the functions
// registered under its name.
func TestRegisterConcurrent(t *testing.T) {
	const names, rounds = 4, 200
	for n := range names {
		unregister(t, fmt.Sprintf("test-concurrent-%d", n))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*names*rounds)
	for n := range names {
		name := fmt.Sprintf("test-concurrent-%d", n)
		wg.Go(func() {
			for r := range rounds {
				c := float64(r)
				if err := Register(Func{Name: name, F: func(x, y []float64) float64 { return c }}); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for range rounds {
				k, err := New(Spec{Name: name})
				if err != nil {
					continue // not registered yet
				}
				if v := k.Eval(nil, nil); v != math.Trunc(v) || v < 0 || v >= rounds {
					errs <- fmt.Errorf("%s gives %v", name, v)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for n := range names {
		if k, err := New(Spec{Name: fmt.Sprintf("test-concurrent-%d", n)}); err != nil || k.Eval(nil, nil) != rounds-1 {
			t.Errorf("after the rounds: %v, %v; want the last function", k, err)
		}
	}
}
