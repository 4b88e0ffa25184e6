//go:build unix

package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHugeFlagsProcess runs the built command with each of hugeFlags' command lines:
// every one exits with status 2 and its message, at once, without a panic's stack or
// the runtime's out-of-memory report on standard error (in the audit, some died with
// status 2 from a panic, others out of memory).
func TestHugeFlagsProcess(t *testing.T) {
	bin := binary(t)
	for _, c := range hugeFlags(t) {
		cmd := exec.Command(bin, c.args...)
		stderr := start(t, cmd)
		want := c.says
		if c.args[2] == "1e8" {
			want = `invalid argument "1e8" for "--m0" flag`
		}
		wantExit(t, cmd, stderr, 2, want)
		for _, bad := range []string{"panic:", "goroutine ", "out of memory"} {
			if strings.Contains(stderr.String(), bad) {
				t.Errorf("%v: %q on stderr: %s", c.args, bad, stderr.String())
			}
		}
	}
}
