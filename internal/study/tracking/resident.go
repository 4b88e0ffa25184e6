package tracking

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
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
	runtime.GC()
	debug.FreeOSMemory()
	rss, _, err := residentKiB()
	ok := err == nil && os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	if err := f(); err != nil {
		return math.NaN(), err
	}
	if !ok {
		return math.NaN(), nil
	}
	_, hwm, err := residentKiB()
	if err != nil {
		return math.NaN(), nil
	}
	return float64(hwm-rss) * 1024, nil
}

// residentKiB reads VmRSS and VmHWM from /proc/self/status.
func residentKiB() (rss, hwm int64, err error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, fmt.Errorf("resident memory is measured on Linux only: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	found := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		var dst *int64
		switch f[0] {
		case "VmRSS:":
			dst = &rss
		case "VmHWM:":
			dst = &hwm
		default:
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("parsing %q: %w", sc.Text(), err)
		}
		*dst = v
		found++
	}
	if found != 2 {
		return 0, 0, errors.New("VmRSS or VmHWM missing from /proc/self/status")
	}
	return rss, hwm, nil
}
