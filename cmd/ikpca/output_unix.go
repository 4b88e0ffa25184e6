//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// Modes of access: write, and search (enter a directory).
const (
	accessWrite  = unix.W_OK
	accessSearch = unix.X_OK
)

// access checks that the process may access path in the given modes (access(2)).
func access(path string, mode uint32) error { return unix.Access(path, mode) }

// syncDir flushes a directory, so that a rename in it survives a crash. Errors are
// ignored: some file systems cannot sync a directory, and the rename has happened.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
