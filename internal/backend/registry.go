package backend

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

const (
	nativePackage = "github.com/ikpca/ikpca/native."
	gonumModules  = "gonum.org/v1/" // blas64, lapack64, mat, gonum's LAPACK, netlib
)

// RegistryCalls runs f with recording implementations registered in gonum's blas64
// and lapack64 registries, then restores the previous ones, and returns the call
// sites in ikpca code (function, file and line) that reached a registry, directly or
// through gonum (mat.Dense.Mul, mat.EigenSym, lapack64...). The recording
// implementations compute with gonum's pure-Go code, so f runs to the end.
//
// nativeLAPACK allows the calls made by gonum's pure-Go LAPACK when native runs it:
// gonum's LAPACK takes its BLAS from the registry, so in the pure-Go build (and
// under WithGonum) native's eigensolvers and SVDs reach it legitimately. Pass
// native.Compiled == "gonum"; in the openblas build native must not reach the
// registry at all.
//
// Tests calling it must not run in parallel with other tests.
func RegistryCalls(f func(), nativeLAPACK bool) []string {
	mu.Lock()
	defer mu.Unlock()
	r := &recorder{nativeLAPACK: nativeLAPACK, sites: map[string]bool{}}
	restore := swap(recordBLAS{r}, recordLAPACK{r})
	defer restore()
	f()
	r.mu.Lock()
	defer r.mu.Unlock()
	sites := make([]string, 0, len(r.sites))
	for s := range r.sites {
		sites = append(sites, s)
	}
	slices.Sort(sites)
	return sites
}

// Reporter is the part of testing.TB that CheckRoute reports through (the package does
// not import testing, which would link it into every program that uses native).
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// CheckRoute runs f under RegistryCalls and reports through t, as one error, every call
// site that reached gonum's blas64 or lapack64 registry instead of package native. It
// is the body of every package's TestBackendRoute; nativeLAPACK is as for
// RegistryCalls (native.Compiled == "gonum"). Tests calling it must not run in
// parallel with other tests.
func CheckRoute(t Reporter, nativeLAPACK bool, f func()) {
	t.Helper()
	if calls := RegistryCalls(f, nativeLAPACK); len(calls) > 0 {
		t.Errorf("reached gonum's blas64/lapack64 registry instead of package native:\n%s", strings.Join(calls, "\n"))
	}
}

// recorder collects the call sites of registry calls; its methods may run on several
// goroutines at once.
type recorder struct {
	nativeLAPACK bool
	mu           sync.Mutex
	sites        map[string]bool
}

type (
	recordBLAS   struct{ *recorder }
	recordLAPACK struct{ *recorder }
)

// note records the caller of a registry method: the first frame outside gonum's
// modules, above runtime.Callers, note and the recording method.
func (r *recorder) note() {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	site := "a caller outside ikpca"
	for {
		f, more := frames.Next()
		fn := f.Function
		if !strings.HasPrefix(fn, gonumModules) {
			if r.nativeLAPACK && strings.HasPrefix(fn, nativePackage) {
				return
			}
			site = fmt.Sprintf("%s (%s:%d)", fn, filepath.Base(f.File), f.Line)
			break
		}
		if !more {
			break
		}
	}
	r.mu.Lock()
	r.sites[site] = true
	r.mu.Unlock()
}
