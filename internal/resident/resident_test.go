package resident

import (
	"runtime"
	"testing"
)

// TestKiB: on Linux both fields are read, the resident set is positive and its
// high-water mark at least as large; elsewhere KiB is an error.
func TestKiB(t *testing.T) {
	Free()
	rss, hwm, err := KiB()
	if runtime.GOOS != "linux" {
		if err == nil {
			t.Errorf("KiB on %s: no error", runtime.GOOS)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || hwm < rss {
		t.Errorf("VmRSS = %d KiB, VmHWM = %d KiB", rss, hwm)
	}
}
