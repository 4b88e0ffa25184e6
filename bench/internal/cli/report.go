package cli

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
)

// WriteJSON writes v as indented JSON (one space) to path, or to standard output for
// "-".
func WriteJSON(path string, v any) error {
	enc := func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", " ")
		return e.Encode(v)
	}
	if path == "-" {
		return enc(os.Stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(enc(f), f.Close())
}

// CPUName returns the CPU's model name from /proc/cpuinfo, or GOARCH where there is
// none.
func CPUName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return runtime.GOARCH
}
