// Package resident reads the process's resident memory from /proc, for the memory
// measurements of bench and of the studies: collect the garbage and return it to the
// operating system (Free), read the resident set and its high-water mark (KiB).
package resident

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
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
