package beamtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// Main is a test package's TestMain for pipelines run on ptest's default runner, prism,
// in the test's process (ptest.MainRet), with the process's temporary directory
// (TMPDIR) a new one, removed at the end: the SDK's loopback mode leaves an empty file
// "beamloopbackworker-…" in os.TempDir() for every pipeline it runs (its
// runnerlib.Execute creates the file as a stand-in worker binary and never removes
// it), and the tests run hundreds of pipelines.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "ikpcabeam-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "beamtest:", err)
		os.Exit(1)
	}
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	code := ptest.MainRet(m)
	if had {
		os.Setenv("TMPDIR", old)
	} else {
		os.Unsetenv("TMPDIR")
	}
	if err := os.RemoveAll(dir); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "beamtest: removing the temporary directory:", err)
		code = 1
	}
	os.Exit(code)
}
