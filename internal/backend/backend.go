// Package backend holds the process-wide state behind package native's choice of
// BLAS and LAPACK, and the test machinery that inspects it. It is internal so that
// none of it is public API.
//
// native always calls the backend compiled into the binary (OpenBLAS with -tags
// openblas, gonum's pure-Go BLAS and LAPACK otherwise). The openblas build links
// gonum's pure-Go implementations as well, so a test can run the same computation on
// both in one process: [WithGonum] switches native to gonum's implementations for
// the duration of a function, and [Compare] returns a computation's result on each. [RegistryCalls] checks that library code reaches BLAS
// and LAPACK through native only, never through gonum's global blas64 and lapack64
// registries (which hold gonum's pure-Go code until native.Use registers another).
package backend

import (
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

var (
	// gonum is set while WithGonum runs: native then calls gonum's pure-Go code.
	gonum atomic.Bool
	// mu serialises WithGonum and RegistryCalls, which both replace the
	// process-wide registrations for the duration of a function.
	mu sync.Mutex
	// registered is the LAPACK implementation last registered through Register
	// (gonum's by default): lapack64 has no getter, and a function that replaces
	// the registration for a while must put it back.
	registered lapack.Float64 = gonumlapack.Implementation{}
)

// Gonum reports whether native must call gonum's pure-Go BLAS and LAPACK instead of
// the compiled-in backend: true only while a [WithGonum] function runs.
func Gonum() bool { return gonum.Load() }

// Register registers b and l with gonum's blas64 and lapack64 registries, and
// remembers l so that WithGonum and RegistryCalls can restore it. native.Use calls
// it.
func Register(b blas.Float64, l lapack.Float64) {
	blas64.Use(b)
	lapack64.Use(l)
	registered = l
}

// swap registers b and l for a while and returns the function that restores the
// previous registrations. The caller holds mu.
func swap(b blas.Float64, l lapack.Float64) (restore func()) {
	prevB, prevL := blas64.Implementation(), registered
	blas64.Use(b)
	lapack64.Use(l)
	return func() {
		blas64.Use(prevB)
		lapack64.Use(prevL)
	}
}

// WithGonum runs f with native calling gonum's pure-Go BLAS and LAPACK, whatever
// backend is compiled in, and with gonum's implementations registered in blas64 and
// lapack64 too (gonum's LAPACK takes its BLAS from the registry), then restores
// everything. It is for tests that compare the two backends in one process: they
// must not run in parallel with other tests, f must not call native.Use, and calls
// do not nest.
func WithGonum(f func()) {
	mu.Lock()
	defer mu.Unlock()
	restore := swap(gonumblas.Implementation{}, gonumlapack.Implementation{})
	gonum.Store(true)
	defer func() {
		gonum.Store(false)
		restore()
	}()
	f()
}

// Skipper is the part of testing.TB that Compare skips a test through.
type Skipper interface {
	Helper()
	Skip(args ...any)
}

// Compare returns what run computes on the compiled-in backend and on gonum's
// (WithGonum), for a test that compares the two in one process, with the rules of
// WithGonum. In the pure-Go build (pureGo: native.Compiled == "gonum") gonum's is the
// only backend linked: Compare skips the test and returns zero values.
func Compare[T any](t Skipper, pureGo bool, run func() T) (compiled, gonum T) {
	t.Helper()
	if pureGo {
		t.Skip("pure-Go build: only gonum's backend is linked; build with -tags openblas to compare it with OpenBLAS")
		return compiled, gonum
	}
	compiled = run()
	WithGonum(func() { gonum = run() })
	return compiled, gonum
}
