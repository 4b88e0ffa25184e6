//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// smallInput is a CSV of 12 points in 3 dimensions, with a header.
func smallInput() string {
	var b strings.Builder
	b.WriteString("a,b,c\n")
	for i := range 12 {
		fmt.Fprintf(&b, "%d,%g,%g\n", i%5, float64(i*i%7)/3, float64(i)/4)
	}
	return b.String()
}

// TestSameFileOutputs: two outputs naming one file, in any spelling, or an output naming
// an input, are a usage error, found before anything is read or written.
func TestSameFileOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	in := writeFile(t, "in.csv", smallInput(), 0o644)
	writeFile(t, "x", "keep", 0o644)
	if err := os.Symlink("x", "link"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("x", "hard"); err != nil {
		t.Fatal(err)
	}
	os.Mkdir("d", 0o755)
	if err := os.Symlink("d", "dlink"); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "x")
	for _, args := range [][]string{
		{"fit", "--values", "new", "--scores", "new", in},
		{"fit", "--values", "./new", "--scores", "new", in},
		{"fit", "--values", "x", "--scores", "x", in},
		{"fit", "--values", "./x", "--scores", abs, in},
		{"fit", "--values", "d/../x", "--model", "x", in},
		{"fit", "--values", "x", "--scores", "link", in},
		{"fit", "--model", "hard", "--values", "x", in},
		{"fit", "--values", "d/new", "--scores", "dlink/new", in},
		{"fit", "--values", "-", "--model", "-", in},
		{"fit", "--scores", "in.csv", in},
		{"fit", "--values", "./in.csv", in},
		{"transform", "--model", "x", "--out", "hard", in},
		{"nystrom", "--out", "in.csv", in},
	} {
		code, _, stderr := ikpca(t, "", args...)
		if code != 2 || !strings.Contains(stderr, "ikpca: --") {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
	if got := readFile(t, "x"); got != "keep" {
		t.Errorf("x changed to %q", got)
	}
	if _, err := os.Stat("new"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("an output was written")
	}
	noTemps(t, dir)

	// Standard output redirected to a file, and the same file named as an output.
	out, err := os.Create("out.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errw bytes.Buffer
	code := run(context.Background(), []string{"fit", "--scores", "./out.csv", in}, env{in: strings.NewReader(""), out: out, errw: &errw})
	if code != 2 || !strings.Contains(errw.String(), "standard output") {
		t.Errorf("--values - and --scores out.csv with stdout > out.csv: exit %d: %s", code, errw.String())
	}
	// /dev/null may be named several times: nothing is lost.
	if code, _, stderr := ikpca(t, "", "fit", "--values", os.DevNull, "--scores", os.DevNull, "--model", os.DevNull, in); code != 0 {
		t.Errorf("/dev/null three times: exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/null is no longer a device: %v", err)
	}
}

// TestFIFOOutput: a FIFO is written into, not replaced: its reader gets the output.
func TestFIFOOutput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "scores")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the command opens it for writing
		if err != nil {
			got <- err.Error()
			return
		}
		raw, _ := io.ReadAll(f)
		f.Close()
		got <- string(raw)
	}()
	code, _, stderr := ikpca(t, smallInput(), "fit", "--values", "", "--scores", fifo, "--k", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if s := <-got; !strings.HasPrefix(s, "pc1,pc2\n") || strings.Count(s, "\n") != 13 {
		t.Errorf("the FIFO's reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
	noTemps(t, dir)
}

// TestDevFdOutput: a shell's process substitution, >(gzip …), names /dev/fd/N: it is
// written into, like a FIFO.
func TestDevFdOutput(t *testing.T) {
	if _, err := os.Stat("/dev/fd"); err != nil {
		t.Skip("no /dev/fd on this system")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 1)
	go func() { raw, _ := io.ReadAll(r); got <- string(raw) }()
	path := fmt.Sprintf("/dev/fd/%d", w.Fd())
	code, _, stderr := ikpca(t, smallInput(), "fit", "--values", path)
	w.Close()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if s := <-got; !strings.HasPrefix(s, "component,eigenvalue,explained_variance\n") {
		t.Errorf("the pipe's reader got %q", s)
	}
}

// TestSymlinkOutput: an output that is a symbolic link replaces the file the link points
// to, atomically and with its permissions; the link stays.
func TestSymlinkOutput(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	target := writeFile(t, filepath.Join(other, "values.csv"), "old", 0o640)
	link := filepath.Join(dir, "v")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := ikpca(t, smallInput(), "fit", "--values", link)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if got := readFile(t, target); !strings.HasPrefix(got, "component,eigenvalue") {
		t.Errorf("the link's target holds %q", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("the target's permissions changed to %v", fi.Mode().Perm())
	}
	noTemps(t, dir)
	noTemps(t, other)
}

// TestReadOnlyOutput: a read-only file is never replaced (even by root), and the error
// names it; a missing or unusable directory is found before the input is read.
func TestReadOnlyOutput(t *testing.T) {
	dir := t.TempDir()
	ro := writeFile(t, filepath.Join(dir, "ro.csv"), "keep", 0o444)
	code, _, stderr := ikpca(t, smallInput(), "fit", "--values", ro)
	if code != 1 || !strings.Contains(stderr, ro+": the file is read-only") {
		t.Errorf("read-only file: exit %d: %s", code, stderr)
	}
	if got := readFile(t, ro); got != "keep" {
		t.Errorf("the read-only file holds %q", got)
	}
	// Through a link, too.
	link := filepath.Join(dir, "link")
	os.Symlink(ro, link)
	if code, _, stderr := ikpca(t, smallInput(), "fit", "--values", link); code != 1 || !strings.Contains(stderr, "read-only") {
		t.Errorf("link to a read-only file: exit %d: %s", code, stderr)
	}
	if got := readFile(t, ro); got != "keep" {
		t.Errorf("the read-only file holds %q", got)
	}
	noTemps(t, dir)

	// The directories are checked before the input is read: the input here is bad, and
	// the error is about the output.
	bad := "1,2\n3\n"
	notDir := writeFile(t, filepath.Join(dir, "plain"), "", 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing", "m.ckpt"), "does not exist"},
		{filepath.Join(notDir, "m.ckpt"), "not a directory"},
		{dir, "is a directory"},
	} {
		code, _, stderr := ikpca(t, bad, "fit", "--model", c.path)
		if code != 1 || !strings.Contains(stderr, c.path) || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "<stdin>") {
			t.Errorf("--model %s: exit %d: %s", c.path, code, stderr)
		}
	}
	// A directory in which no file can be created, for root too.
	locked, how := unwritableDir(t, dir)
	t.Logf("a directory made read-only by %s: %s", how, locked)
	model := filepath.Join(locked, "m.ckpt")
	code, _, stderr = ikpca(t, bad, "fit", "--model", model)
	if code != 1 || !strings.Contains(stderr, model+": cannot create files in directory "+locked) {
		t.Errorf("read-only directory (%s): exit %d: %s", how, code, stderr)
	}
	notWritten(t, model)
}

// unwritableDir returns a directory in which creating a file fails for the user running
// the test, and how it was made so. Other users get a directory of mode 0555 in parent.
// Root, for whom permission bits do not count, gets one made immutable by chattr +i
// (undone at the end of the test) if the file system supports it, and otherwise
// /proc/self, where procfs refuses new files to anyone. Each is checked by trying to
// create a file in it; the test is skipped, saying why, only if none works.
func unwritableDir(t *testing.T, parent string) (dir, how string) {
	t.Helper()
	refuses := func(dir string) bool {
		f, err := os.CreateTemp(dir, "probe-")
		if err == nil {
			f.Close()
			os.Remove(f.Name())
		}
		return err != nil
	}
	var tried []string
	if os.Geteuid() != 0 {
		locked := filepath.Join(parent, "locked")
		if err := os.Mkdir(locked, 0o555); err != nil {
			t.Fatal(err)
		}
		if refuses(locked) {
			return locked, "mode 0555"
		}
		tried = append(tried, "a directory of mode 0555 accepts new files")
	}
	if chattr, err := exec.LookPath("chattr"); err == nil {
		locked := filepath.Join(parent, "immutable")
		if err := os.Mkdir(locked, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(chattr, "+i", locked).CombinedOutput()
		if err == nil {
			// Undone before t.TempDir's removal, which cleanups registered earlier
			// run after.
			t.Cleanup(func() { exec.Command(chattr, "-i", locked).Run() })
			if refuses(locked) {
				return locked, "chattr +i"
			}
			tried = append(tried, "an immutable directory accepts new files")
		} else {
			tried = append(tried, fmt.Sprintf("chattr +i: %v: %s", err, strings.TrimSpace(string(out))))
		}
	} else {
		tried = append(tried, "no chattr")
	}
	if fi, err := os.Stat("/proc/self"); err == nil && fi.IsDir() && refuses("/proc/self") {
		return "/proc/self", "procfs"
	}
	tried = append(tried, "/proc/self accepts new files or is missing")
	t.Skipf("no directory refuses new files to uid %d here: %s", os.Geteuid(), strings.Join(tried, "; "))
	return "", ""
}

// TestFailedWriteLeavesNothing: when writing an output fails part-way, the target keeps
// its old content, the temporary file is removed, and the error names the path given.
func TestFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, filepath.Join(dir, "out.csv"), "old", 0o644)
	o := &output{flag: "--out", path: target}
	if err := planOutputs(env{}, nil, o); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := o.write(env{}, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("partial "), 100000))
		return boom
	})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), target+": ") || strings.Contains(err.Error(), tempMarker) {
		t.Errorf("error %v", err)
	}
	if got := readFile(t, target); got != "old" {
		t.Errorf("target holds %d bytes", len(got))
	}
	noTemps(t, dir)
	// A write error from the file system names the path given, not the temporary file.
	full := &output{flag: "--out", path: "/dev/full"}
	if err := planOutputs(env{}, nil, full); err == nil {
		err = full.write(env{}, func(w io.Writer) error { _, err := w.Write(make([]byte, 1<<17)); return err })
		if err == nil || !strings.HasPrefix(err.Error(), "/dev/full: ") {
			t.Errorf("/dev/full: %v", err)
		}
	}
	// A new file gets the permissions a new file gets (0666 less the umask), not 0600.
	fresh := &output{flag: "--out", path: filepath.Join(dir, "fresh.csv")}
	if err := planOutputs(env{}, nil, fresh); err != nil {
		t.Fatal(err)
	}
	if err := fresh.write(env{}, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if fi, _ := os.Stat(fresh.path); fi.Mode().Perm() != 0o666&^fs.FileMode(umask) {
		t.Errorf("new file mode %v, umask %o", fi.Mode().Perm(), umask)
	}
}

// TestBrokenPipeInProcess: standard output's reader has gone; the files are written
// first and complete, and the exit status is 141.
func TestBrokenPipeInProcess(t *testing.T) {
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	ckpt := filepath.Join(dir, "m.ckpt")
	var errw bytes.Buffer
	out := &pipeOut{f: w}
	code := run(context.Background(), []string{"fit", "--header", "yes", "--scores", "-", "--values", "", "--model", ckpt},
		env{in: strings.NewReader(smallInput()), out: out, errw: &errw})
	if code != statusBrokenPipe || errw.Len() != 0 {
		t.Fatalf("exit %d, want %d: %s", code, statusBrokenPipe, errw.String())
	}
	if md := loadCheckpoint(t, ckpt); md.Len() != 12 {
		t.Errorf("checkpoint of %d points", md.Len())
	}
}
