package tracking

import (
	"math"
	"os"
	"time"

	"github.com/ikpca/ikpca/internal/resident"
)

// Peak resident memory is measured in the study's own process, the way bench/memory.go
// measures it in its children (the same /proc files): the garbage of earlier stages is
// collected and returned to the operating system, VmRSS is read, the kernel's
// high-water mark VmHWM is reset to it (writing 5 to /proc/self/clear_refs, Linux ≥ 4.0),
// the model is fitted, and VmHWM is read again. The difference is the model's peak
// beyond everything the process held before — the data set, the runtime, the BLAS
// buffers (warmed beforehand) and earlier results — including the garbage its growth
// leaves for the collector. Where /proc is missing or clear_refs not writable, the
// measurement is NaN.

// peakResident runs f and returns its peak resident memory in bytes beyond what the
// process held before, or NaN if it cannot be measured here.
func peakResident(f func() error) (float64, error) {
	resident.Free()
	rss, _, err := resident.KiB()
	ok := err == nil && os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	if err := f(); err != nil {
		return math.NaN(), err
	}
	if !ok {
		return math.NaN(), nil
	}
	_, hwm, err := resident.KiB()
	if err != nil {
		return math.NaN(), nil
	}
	return float64(hwm-rss) * 1024, nil
}

// measured runs f and returns its peak resident memory (peakResident) and the time it
// took.
func measured(f func() error) (float64, time.Duration, error) {
	var elapsed time.Duration
	peak, err := peakResident(func() error {
		t0 := time.Now()
		if err := f(); err != nil {
			return err
		}
		elapsed = time.Since(t0)
		return nil
	})
	return peak, elapsed, err
}
