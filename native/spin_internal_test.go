//go:build cgo && openblas

package native

import (
	"os"
	"strconv"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// presetTimeout is the environment's own OPENBLAS_THREAD_TIMEOUT, read before any test
// runs.
var presetTimeout, presetSet = os.LookupEnv("OPENBLAS_THREAD_TIMEOUT")

// TestUseShortensSpin checks that Use hands OpenBLAS the short idle-thread timeout when
// the environment sets none, and leaves a user's own setting alone.
func TestUseShortensSpin(t *testing.T) {
	Use()
	want := spinTimeout
	if presetSet {
		want = presetTimeout
	}
	if got := os.Getenv("OPENBLAS_THREAD_TIMEOUT"); got != want {
		t.Errorf("OPENBLAS_THREAD_TIMEOUT = %q, want %q", got, want)
	}
	if n, err := strconv.Atoi(want); err == nil && threadTimeout() != n {
		t.Errorf("OpenBLAS read a timeout of %d, want %d", threadTimeout(), n)
	}
	// The threads restart after the shutdown: a threaded call still works.
	if err := SetThreads(2); err != nil {
		t.Logf("SetThreads(2): %v", err)
	}
	a := []float64{2, 1, 1, 2}
	w := make([]float64, 2)
	if err := EigenSymInPlace(2, a, 2, w, true); err != nil || w[0] != 1 || w[1] != 3 {
		t.Errorf("after Use: eigenvalues %v, %v", w, err)
	}
}

// TestFirstCallShortensSpin checks that the library's direct route into OpenBLAS, without
// Use, also hands OpenBLAS the short idle-thread timeout: the first call of any
// function of the package runs shortenSpin once.
func TestFirstCallShortensSpin(t *testing.T) {
	want := spinTimeout
	if presetSet {
		want = presetTimeout
	} else {
		// Forget what Use or an earlier call set, and let the next call set it again.
		if err := os.Unsetenv("OPENBLAS_THREAD_TIMEOUT"); err != nil {
			t.Fatal(err)
		}
	}
	spinOnce = sync.Once{}
	g := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 2, 3, 4}}
	c := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: make([]float64, 4)}
	Gemm(blas.NoTrans, blas.NoTrans, 1, g, g, 0, c)
	if got := os.Getenv("OPENBLAS_THREAD_TIMEOUT"); got != want {
		t.Errorf("after a first Gemm: OPENBLAS_THREAD_TIMEOUT = %q, want %q", got, want)
	}
	if n, err := strconv.Atoi(want); err == nil && threadTimeout() != n {
		t.Errorf("OpenBLAS read a timeout of %d, want %d", threadTimeout(), n)
	}
	if c.Data[0] != 7 || c.Data[3] != 22 {
		t.Errorf("Gemm after the threads' shutdown: %v", c.Data)
	}
}
