package backend

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// TestRegistryCalls checks that the recorder names the ikpca function behind a registry
// call, direct or through gonum/mat, reports nothing when nothing calls the registry,
// and restores the registry.
func TestRegistryCalls(t *testing.T) {
	before := blas64.Implementation()
	x := blas64.Vector{N: 3, Inc: 1, Data: []float64{1, 2, 3}}
	var dot float64
	calls := RegistryCalls(func() { dot = blas64.Dot(x, x) }, false)
	if dot != 14 {
		t.Errorf("the recording BLAS computed %v, want 14", dot)
	}
	if len(calls) != 1 || !strings.Contains(calls[0], "backend.TestRegistryCalls") {
		t.Errorf("direct call recorded as %q", calls)
	}
	calls = RegistryCalls(func() {
		var c mat.Dense
		c.Mul(mat.NewDense(2, 2, []float64{1, 2, 3, 4}), mat.NewDense(2, 2, []float64{1, 0, 0, 1}))
		var es mat.EigenSym
		es.Factorize(mat.NewSymDense(2, []float64{2, 1, 1, 2}), false)
	}, false)
	if len(calls) != 2 {
		t.Errorf("mat.Dense.Mul and mat.EigenSym recorded as %q, want two sites", calls)
	}
	calls = RegistryCalls(func() {
		gonumblas.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, 1, 1, 1, 1, []float64{2}, 1, []float64{3}, 1, 0, []float64{0}, 1)
	}, false)
	if len(calls) != 0 {
		t.Errorf("a direct call of an implementation recorded as %q", calls)
	}
	if blas64.Implementation() != before {
		t.Errorf("the registry holds %T after RegistryCalls, was %T", blas64.Implementation(), before)
	}
}

// TestWithGonum checks the switch and the registrations during and after WithGonum.
func TestWithGonum(t *testing.T) {
	before := blas64.Implementation()
	if Gonum() {
		t.Fatal("Gonum() outside WithGonum")
	}
	ran := false
	WithGonum(func() {
		ran = true
		if !Gonum() {
			t.Error("Gonum() false inside WithGonum")
		}
		if _, ok := blas64.Implementation().(gonumblas.Implementation); !ok {
			t.Errorf("registry holds %T inside WithGonum", blas64.Implementation())
		}
	})
	if !ran || Gonum() || blas64.Implementation() != before {
		t.Errorf("after WithGonum: ran %v, Gonum() %v, registry %T (was %T)", ran, Gonum(), blas64.Implementation(), before)
	}
}

// skips records whether Compare skipped.
type skips struct{ skipped bool }

func (s *skips) Helper()       {}
func (s *skips) Skip(_ ...any) { s.skipped = true }

// TestCompare: run once on each backend, the second inside WithGonum; in the pure-Go
// build, a skip and no run.
func TestCompare(t *testing.T) {
	var s skips
	compiled, gonum := Compare(&s, false, Gonum)
	if s.skipped || compiled || !gonum {
		t.Errorf("skipped %v, Gonum() %v and %v, want false, false and true", s.skipped, compiled, gonum)
	}
	runs := 0
	Compare(&s, true, func() bool { runs++; return true })
	if !s.skipped || runs != 0 {
		t.Errorf("pure Go: skipped %v after %d runs, want a skip and none", s.skipped, runs)
	}
}

// reports records what CheckRoute reports.
type reports struct{ errors []string }

func (r *reports) Helper() {}

func (r *reports) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheckRoute checks that CheckRoute reports a registry call, naming its site, and
// nothing for code that does not reach the registry.
func TestCheckRoute(t *testing.T) {
	x := blas64.Vector{N: 3, Inc: 1, Data: []float64{1, 2, 3}}
	var r reports
	CheckRoute(&r, false, func() { blas64.Dot(x, x) })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "backend.TestCheckRoute") {
		t.Errorf("a registry call reported as %q", r.errors)
	}
	r = reports{}
	ran := false
	CheckRoute(&r, false, func() { ran = true })
	if !ran || len(r.errors) != 0 {
		t.Errorf("f ran %v; no registry call reported as %q", ran, r.errors)
	}
}
