package native

import (
	"reflect"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/backend"
)

// pkgs returns the packages of the BLAS and LAPACK implementations the package calls.
func pkgs() [2]string {
	return [2]string{reflect.TypeOf(blasImpl()).PkgPath(), reflect.TypeOf(lapackImpl()).PkgPath()}
}

var gonumPkgs = [2]string{"gonum.org/v1/gonum/blas/gonum", "gonum.org/v1/gonum/lapack/gonum"}

// TestCompiledBackend checks what the package calls: OpenBLAS and LAPACK through
// gonum's netlib (cgo) wrappers in the openblas build, gonum's pure-Go implementations
// otherwise, with or without Use; gonum's inside backend.WithGonum, whatever is compiled
// in; and that WithGonum puts the registry back as it found it.
func TestCompiledBackend(t *testing.T) {
	want := map[string][2]string{
		"openblas": {"gonum.org/v1/netlib/blas/netlib", "gonum.org/v1/netlib/lapack/netlib"},
		"gonum":    gonumPkgs,
	}[Compiled]
	if got := pkgs(); got != want {
		t.Errorf("the %s build calls %v, want %v", Compiled, got, want)
	}
	before := blas64.Implementation()
	backend.WithGonum(func() {
		if got := pkgs(); got != gonumPkgs {
			t.Errorf("under WithGonum: %v", got)
		}
		if got := reflect.TypeOf(blas64.Implementation()).PkgPath(); got != gonumPkgs[0] {
			t.Errorf("under WithGonum the registry holds %s", got)
		}
	})
	if after := blas64.Implementation(); after != before {
		t.Errorf("WithGonum left the registry at %T, was %T", after, before)
	}
	if got := pkgs(); got != want {
		t.Errorf("after WithGonum: %v, want %v", got, want)
	}
}
