package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// How outputs are written. A command names its outputs (a flag and a path, "-" for
// standard output) and plans them all before it starts its work; it writes them when the
// work is done, files first and standard output last, so that a reader that closes
// standard output early (… | head) cannot cost the files.
//
//   - A regular file, or a path that does not exist yet, is written atomically: to a
//     temporary file in the same directory, named ".NAME.ikpca-tmp-XXXXXXXX", which is
//     synced and renamed over NAME (and the directory synced), so that NAME holds either
//     its old content or the complete new one, never a part. A file replaced this way
//     keeps its permissions. The temporary file is removed on every failure and on a
//     forced exit (a second Ctrl-C); only a kill -9 or a crash can leave one behind.
//   - A symbolic link is followed: the file it points to is replaced atomically, not the
//     link itself. Links in /dev and /proc (/dev/stdout, /dev/fd/N from a shell's
//     process substitution) and anything that is not a regular file (a FIFO, /dev/null,
//     a terminal) are written in place, as the shell's ">" would.
//   - A file that is not writable is an error, as with ">": it is never replaced; nor is a
//     file without write permission when root runs the command.
//   - Two outputs that are the same file, whatever the spelling (./x and x, a symbolic
//     or hard link to x, "-" and a file that is standard output), are a usage error; so
//     is an output that is one of the command's input files. /dev/null may be named
//     several times.
//
// Errors name the path the user gave, never the temporary file.

// output is one destination named on the command line.
type output struct {
	flag string // "--scores", for messages
	path string // as given; "-" is standard output, "" none

	atomic bool        // write to a temporary file and rename it over target
	target string      // the file written: path, or the file a symbolic link points to
	mode   fs.FileMode // permissions of the file replaced (0 for a new file)
}

// none reports whether the output is not wanted.
func (o *output) none() bool { return o == nil || o.path == "" }

// stdout reports whether the output goes to standard output.
func (o *output) stdout() bool { return o.path == "-" }

// tempMarker is the part of a temporary file's name that identifies it as ours.
const tempMarker = ".ikpca-tmp-"

// planOutputs checks the outputs of a command before it starts work: that no two are
// the same file and none is one of the inputs (usage errors), that every directory
// exists and can be written, and that no existing file is read-only. It decides how
// each will be written.
func planOutputs(e env, inputs []string, outs ...*output) error {
	var wanted []*output
	for _, o := range outs {
		if o.none() {
			continue
		}
		wanted = append(wanted, o)
		if !o.stdout() {
			if err := o.plan(); err != nil {
				return err
			}
		}
	}
	null, _ := os.Stat(os.DevNull)
	var stdoutInfo fs.FileInfo
	if f, ok := e.out.(interface{ Stat() (fs.FileInfo, error) }); ok {
		stdoutInfo, _ = f.Stat()
	}
	ids := make([]fileID, len(wanted))
	for i, o := range wanted {
		ids[i] = identify(o.path, stdoutInfo)
	}
	for i, o := range wanted {
		if ids[i].info != nil && null != nil && os.SameFile(ids[i].info, null) {
			continue // writing twice to /dev/null loses nothing
		}
		for j := range i {
			if ids[i].same(ids[j]) {
				what := "name the same file"
				if o.stdout() || wanted[j].stdout() {
					what = "both write to standard output"
				}
				return usageError{fmt.Errorf("%s %s and %s %s %s; give each output its own file",
					wanted[j].flag, wanted[j].path, o.flag, o.path, what)}
			}
		}
		for _, in := range inputs {
			if in == "" || in == "-" {
				continue
			}
			if ids[i].same(identify(in, nil)) {
				return usageError{fmt.Errorf("%s %s is the input %s; writing it would destroy the data", o.flag, o.path, in)}
			}
		}
	}
	return nil
}

// plan decides how a file output is written and checks that it can be.
func (o *output) plan() error {
	o.atomic, o.target, o.mode = false, o.path, 0
	fi, err := os.Lstat(o.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new file: its directory must exist and be writable.
		if err := writableDir(o.path, filepath.Dir(o.path)); err != nil {
			return err
		}
		o.atomic = true
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", o.path, pathErr(err))
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if abs, err := filepath.Abs(o.path); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
			return o.planStream() // /dev/stdout, /dev/fd/N: the stream behind the link
		}
		resolved, err := filepath.EvalSymlinks(o.path)
		if err != nil {
			return o.planStream() // a dangling link: ">" would create its target
		}
		if fi, err = os.Stat(resolved); err != nil {
			return fmt.Errorf("%s: %w", o.path, pathErr(err))
		}
		o.target = resolved
	}
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s: is a directory", o.path)
	case !fi.Mode().IsRegular():
		return o.planStream() // a FIFO, a device, a socket
	}
	// A file without write permission is never replaced, even by root (whom access(2)
	// lets write anything).
	if fi.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s: the file is read-only; it is not replaced", o.path)
	}
	if err := access(o.target, accessWrite); err != nil {
		return fmt.Errorf("%s: the file is not writable (%w); it is not replaced", o.path, pathErr(err))
	}
	if writableDir(o.path, filepath.Dir(o.target)) != nil {
		// The file can be written but not replaced: write it in place, as ">" would.
		return nil
	}
	o.atomic, o.mode = true, fi.Mode().Perm()
	return nil
}

// planStream checks an output that is written in place.
func (o *output) planStream() error {
	o.atomic, o.target = false, o.path
	if err := access(o.path, accessWrite); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", o.path, pathErr(err))
	}
	return nil
}

// writableDir checks that dir exists, is a directory and can be written, for the
// output named path.
func writableDir(path, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", path, pathErr(err))
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	if err := access(dir, accessWrite|accessSearch); err != nil {
		return fmt.Errorf("%s: cannot create files in directory %s (%w)", path, dir, pathErr(err))
	}
	return nil
}

// fileID identifies the file a path names: by device and inode when it exists, by its
// cleaned absolute path (with the directory's links resolved) when it does not.
type fileID struct {
	stdout bool
	info   fs.FileInfo
	name   string
}

func identify(path string, stdoutInfo fs.FileInfo) fileID {
	if path == "-" {
		return fileID{stdout: true, info: stdoutInfo}
	}
	if fi, err := os.Stat(path); err == nil {
		return fileID{info: fi}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fileID{name: filepath.Clean(path)}
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	return fileID{name: abs}
}

func (a fileID) same(b fileID) bool {
	switch {
	case a.stdout && b.stdout:
		return true
	case a.info != nil && b.info != nil:
		return os.SameFile(a.info, b.info)
	case a.info == nil && b.info == nil:
		return a.name != "" && a.name == b.name
	}
	return false
}

// pathErr strips the path from an *os.PathError or *os.LinkError, so that messages
// name the path the user gave, not a temporary file or a resolved link.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// pending is an output with the function that writes its content.
type pending struct {
	out   *output
	write func(io.Writer) error
}

// writeOutputs writes the outputs in order, files first and standard output last. It
// stops at the first error.
func writeOutputs(e env, all ...pending) error {
	slices.SortStableFunc(all, func(a, b pending) int {
		switch {
		case a.out.stdout() == b.out.stdout():
			return 0
		case a.out.stdout():
			return 1
		}
		return -1
	})
	for _, p := range all {
		if p.out.none() {
			continue
		}
		if err := p.out.write(e, p.write); err != nil {
			return err
		}
	}
	return nil
}

// write writes one planned output.
func (o *output) write(e env, fn func(io.Writer) error) error {
	switch {
	case o.stdout():
		// Standard output is written in one piece once the content is complete, so that
		// a failure part-way does not leave half a table in a pipeline.
		var buf bytes.Buffer
		if err := fn(&buf); err != nil {
			return err
		}
		_, err := e.out.Write(buf.Bytes())
		return err
	case o.atomic:
		return o.writeAtomic(fn)
	default:
		return o.writeInPlace(fn)
	}
}

// writeInPlace writes the output as the shell's ">" would: open (creating or
// truncating) and write.
func (o *output) writeInPlace(fn func(io.Writer) error) error {
	f, err := os.OpenFile(o.target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("%s: %w", o.path, pathErr(err))
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.path, pathErr(err))
	}
	return nil
}

// writeAtomic writes the output to a temporary file in the target's directory and
// renames it over the target.
func (o *output) writeAtomic(fn func(io.Writer) error) (err error) {
	dir, base := filepath.Split(o.target)
	if dir == "" {
		dir = "."
	}
	f, tmp, err := createTemp(dir, base)
	if err != nil {
		return fmt.Errorf("%s: %w", o.path, pathErr(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("%s: %w", o.path, pathErr(err))
		}
		forgetTemp(tmp)
	}()
	if o.mode != 0 {
		if err := f.Chmod(o.mode); err != nil {
			return err
		}
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	// The data reach the disk before the rename makes them the file, so that a crash
	// leaves the old file or the new one, not an empty one.
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, o.target); err != nil {
		return err
	}
	syncDir(dir) // the rename itself; best effort (not every file system can)
	return nil
}

// temps holds the temporary files being written, removed on a forced exit.
var temps struct {
	sync.Mutex
	names map[string]bool
}

// createTemp creates a new temporary file for base in dir, with the permissions a new
// file gets (0666 less the umask), and records it.
func createTemp(dir, base string) (*os.File, string, error) {
	for range 100 {
		var r [4]byte
		rand.Read(r[:])
		name := filepath.Join(dir, "."+base+tempMarker+hex.EncodeToString(r[:]))
		temps.Lock()
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			if temps.names == nil {
				temps.names = make(map[string]bool)
			}
			temps.names[name] = true
		}
		temps.Unlock()
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("cannot create a temporary file in %s", dir)
}

// forgetTemp removes name from the record (it was renamed or removed).
func forgetTemp(name string) {
	temps.Lock()
	delete(temps.names, name)
	temps.Unlock()
}

// removeTemps removes the temporary files being written: on a forced exit. It keeps the
// lock, so that no new temporary file is created after it.
func removeTemps() {
	temps.Lock()
	for name := range temps.names {
		os.Remove(name)
	}
	clear(temps.names)
}

// create writes one output file, or standard output for "-", planning it first: for
// commands whose outputs are files in a directory they create.
func create(e env, path string, write func(io.Writer) error) error {
	o := &output{flag: "output", path: path}
	if err := planOutputs(e, nil, o); err != nil {
		return err
	}
	return o.write(e, write)
}
