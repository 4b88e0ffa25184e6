package tracking

import (
	"errors"
	"time"

	"github.com/ikpca/ikpca/internal/resident"
)

// Peak resident memory is measured in the study's own process, the way bench/memory.go
// measures it in its children (the same /proc files), by resident.Peak: the garbage of
// earlier stages is collected and returned to the operating system, VmRSS is read, the
// kernel's high-water mark VmHWM is reset to it, the model is fitted, and VmHWM is read
// again. The difference is the model's peak beyond everything the process held before —
// the data set, the runtime, the BLAS buffers (warmed beforehand) and earlier results —
// including the garbage its growth leaves for the collector. Where it cannot be measured
// (resident.ErrUnavailable: /proc missing, or clear_refs not writable), the study
// records NaN.

// measured runs f and returns its peak resident memory in bytes (NaN where it cannot be
// measured) and the time it took.
func measured(f func() error) (float64, time.Duration, error) {
	var elapsed time.Duration
	peak, err := resident.Peak(func() error {
		t0 := time.Now()
		if err := f(); err != nil {
			return err
		}
		elapsed = time.Since(t0)
		return nil
	})
	if errors.Is(err, resident.ErrUnavailable) {
		err = nil // peak is NaN
	}
	return peak, elapsed, err
}
