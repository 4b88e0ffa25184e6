package resident

import (
	"errors"
	"math"
	"path/filepath"
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

// TestPeakResident: touching 64 MiB raises the peak by at least 60 MiB (page and allocator
// rounding, and what the runtime already held free, stay below 4 MiB), and an error of
// the measured function is returned. Only where the measurement is unavailable
// (ErrUnavailable: not Linux, or /proc/self/clear_refs not writable) is the first part
// skipped, with the reason.
func TestPeakResident(t *testing.T) {
	boom := errors.New("boom")
	if _, err := Peak(func() error { return boom }); !errors.Is(err, boom) {
		t.Errorf("the measured function's error: got %v", err)
	}
	var keep []byte
	peak, err := Peak(func() error {
		keep = make([]byte, 64<<20)
		for i := range keep {
			keep[i] = byte(i)
		}
		return nil
	})
	runtime.KeepAlive(keep)
	if errors.Is(err, ErrUnavailable) {
		if runtime.GOOS == "linux" {
			t.Logf("on Linux: %v", err)
		}
		t.Skipf("peak resident memory unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !(peak >= 60<<20) {
		t.Errorf("peak %.1f MiB after touching 64 MiB", peak/(1<<20))
	}
}

// TestPeakResidentUnavailable: when the high-water mark cannot be reset, Peak still runs f and
// says why the measurement is missing (ErrUnavailable), with NaN; f's own error comes
// first.
func TestPeakResidentUnavailable(t *testing.T) {
	defer func(p string) { clearRefs = p }(clearRefs)
	clearRefs = filepath.Join(t.TempDir(), "missing", "clear_refs")
	ran := false
	peak, err := Peak(func() error { ran = true; return nil })
	if !ran || !errors.Is(err, ErrUnavailable) || !math.IsNaN(peak) {
		t.Errorf("ran %v, peak %v, error %v; want NaN and ErrUnavailable", ran, peak, err)
	}
	boom := errors.New("boom")
	if _, err := Peak(func() error { return boom }); !errors.Is(err, boom) {
		t.Errorf("the measured function's error: got %v", err)
	}
}
