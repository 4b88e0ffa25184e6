package beamtest

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TempDir returns a new directory for a test's files, removed when the test ends, as
// testing.T.TempDir's is, but by a removal retried for up to 10 s: a pipeline that
// fails returns while the runner may still run other stages of the failed job for a
// moment (prism does), and a file one of them writes meanwhile — a shard's temporary,
// a dead letter — makes a single removal fail with "directory not empty". A directory
// still there after 10 s is the test's error.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+"-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 100 {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("removing the test's directory %s: %v", dir, err)
	})
	return dir
}

// WriteFile writes data to the file name (os.WriteFile, mode 0o644), failing the test
// on an error.
func WriteFile(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadFile returns the contents of the file name (os.ReadFile), failing the test on an
// error.
func ReadFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
