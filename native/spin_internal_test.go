//go:build cgo && openblas

package native

import (
	"os"
	"strconv"
	"testing"
)

// TestUseShortensSpin checks that Use hands OpenBLAS the short idle-thread timeout when
// the environment sets none, and leaves a user's own setting alone.
func TestUseShortensSpin(t *testing.T) {
	preset, wasSet := os.LookupEnv("OPENBLAS_THREAD_TIMEOUT")
	Use()
	want := spinTimeout
	if wasSet {
		want = preset
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
