// Package resident reads the process's resident memory from /proc, for the memory
// measurements of bench and of the studies: collect the garbage and return it to the
// operating system (Free), read the resident set and its high-water mark (KiB), and
// measure the peak of a function (Peak).
package resident

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

// Free collects garbage and returns the freed memory to the operating system.
func Free() {
	runtime.GC()
	debug.FreeOSMemory()
}

// KiB reads the resident set size VmRSS and its high-water mark VmHWM, in KiB, from
// /proc/self/status (Linux only; elsewhere an error).
func KiB() (rss, hwm int64, err error) {
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

// ErrUnavailable reports that the peak resident memory cannot be measured here: /proc is
// missing (not Linux) or /proc/self/clear_refs cannot be written (a kernel before 4.0,
// or a sandbox that forbids it).
var ErrUnavailable = errors.New("resident: peak memory cannot be measured here")

// clearRefs is the file whose "5" resets the high-water mark (a variable for the tests).
var clearRefs = "/proc/self/clear_refs"

// Peak runs f and returns its peak resident memory in bytes beyond what the process held
// before: the garbage of earlier work is collected and returned to the operating system,
// VmRSS is read, the kernel's high-water mark VmHWM is reset to it (writing 5 to
// /proc/self/clear_refs, Linux ≥ 4.0), f runs, and VmHWM is read again. The difference
// includes the garbage f leaves for the collector.
//
// f's error, if any, is returned (with NaN). Otherwise, when the measurement is not
// possible here, Peak returns NaN and an error wrapping ErrUnavailable that says why; f
// has run all the same.
func Peak(f func() error) (float64, error) {
	Free()
	rss, _, err := KiB()
	if err == nil {
		if werr := os.WriteFile(clearRefs, []byte("5"), 0); werr != nil {
			err = fmt.Errorf("resetting the high-water mark: %w", werr)
		}
	}
	if ferr := f(); ferr != nil {
		return math.NaN(), ferr
	}
	if err != nil {
		return math.NaN(), fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	_, hwm, err := KiB()
	if err != nil {
		return math.NaN(), fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return float64(hwm-rss) * 1024, nil
}
