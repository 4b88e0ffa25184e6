//go:build unix

package main

// Tests that run the built command as a process: signals, broken pipes. They poll for a
// state (CPU time spent, a file written, a message on stderr) with a generous deadline
// and never assert a duration.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ikpca/ikpca/data"
)

// deadline bounds every wait for a state or an exit: far beyond what any of them needs.
const deadline = 2 * time.Minute

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// binary builds the command once per test run, into a temporary directory.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the command (not in -short mode)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("polls /proc for the state of the process: Linux only")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ikpca-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "ikpca")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for a process writing and a test reading.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cpuSeconds returns the CPU time (user and system) the process has used so far.
func cpuSeconds(t *testing.T, pid int) float64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0 // exited
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return float64(utime+stime) / 100 // USER_HZ is 100 on Linux
}

// waitFor polls cond until it holds, failing the test after the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); {
		if time.Since(start) > deadline {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exitCode waits for the process and returns its exit status, killing it and failing
// the test if it does not exit within the deadline.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("killed by %v instead of exiting", ws.Signal())
			}
			return ee.ExitCode()
		default:
			t.Fatal(err)
		}
	case <-time.After(deadline):
		cmd.Process.Kill()
		t.Fatal("the command did not exit")
	}
	return -1
}

// start starts cmd, collecting its standard error.
func start(t *testing.T, cmd *exec.Cmd) *syncBuffer {
	t.Helper()
	stderr := new(syncBuffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stderr
}

// wantExit waits for cmd (exitCode) and fails the test unless its status is code and,
// if msg is not empty, its standard error says msg.
func wantExit(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, code int, msg string) {
	t.Helper()
	if got := exitCode(t, cmd); got != code {
		t.Fatalf("exit %d, want %d; stderr: %s", got, code, stderr.String())
	}
	if !strings.Contains(stderr.String(), msg) {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// magicCSV writes the first n MAGIC points as CSV without a header.
func magicCSV(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	mg := data.Magic().X
	for i := range n {
		for j, v := range mg.RawRowView(i) {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "magic.csv")
	writeFile(t, path, b.String(), 0o644)
	return path
}

// magicRun prepares a test that signals the command at work: the built command
// (binary), a temporary directory, the first n MAGIC points written there as CSV
// (magicCSV), and the path of a checkpoint in it.
func magicRun(t *testing.T, n int) (bin, dir, in, ckpt string) {
	t.Helper()
	bin = binary(t)
	dir = t.TempDir()
	return bin, dir, magicCSV(t, dir, n), filepath.Join(dir, "m.ckpt")
}

// signalAtWork starts cmd and, after a second of its CPU time — reading, the bandwidth
// and a small batch take milliseconds, so the command is at work — sends it sig; it
// returns the command's standard error (start).
func signalAtWork(t *testing.T, cmd *exec.Cmd, sig os.Signal) *syncBuffer {
	t.Helper()
	stderr := start(t, cmd)
	waitFor(t, "a second of CPU time", func() bool { return cpuSeconds(t, cmd.Process.Pid) >= 1 })
	cmd.Process.Signal(sig)
	return stderr
}

// wantNothing checks that cmd exited with code and msg (wantExit), and wrote none of
// files and no temporary file in dir: a command interrupted before its outputs.
func wantNothing(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, code int, msg, dir string, files ...string) {
	t.Helper()
	wantExit(t, cmd, stderr, code, msg)
	notWritten(t, files...)
	noTemps(t, dir)
}

// noTemps fails if dir holds a temporary output file.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), tempMarker) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestFitSIGINT interrupts the fit loop with a real Ctrl-C (SIGINT): exit 130 and a
// checkpoint of the points processed so far.
func TestFitSIGINT(t *testing.T) {
	bin, dir, in, ckpt := magicRun(t, 3000) // tens of seconds of work
	cmd := exec.Command(bin, "fit", "--stream", "--model", ckpt, "--values", "", in)
	// Reading the file, the bandwidth and the 10-point batch take a few milliseconds of
	// CPU; after a second the command is adding points.
	stderr := signalAtWork(t, cmd, syscall.SIGINT)
	wantExit(t, cmd, stderr, 130, "")
	md := loadCheckpoint(t, ckpt)
	if md.Len() < 10 || md.Len() >= 3000 || !strings.Contains(stderr.String(), "interrupted after "+strconv.Itoa(md.Len())+" points") {
		t.Fatalf("checkpoint of %d points; stderr: %s", md.Len(), stderr.String())
	}
	noTemps(t, dir)
	t.Logf("interrupted after %d points: %s", md.Len(), strings.TrimSpace(stderr.String()))
}

// TestSignalWhileReading: Ctrl-C while fit waits for more standard input stops it at
// once (exit 130), with no output.
func TestSignalWhileReading(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "m.ckpt")
	cmd := exec.Command(bin, "fit", "--model", ckpt, "--values", filepath.Join(dir, "v.csv"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := start(t, cmd)
	defer stdin.Close()
	// More than a pipe holds (64 KiB): once the write returns, the command has read at
	// least part of it, so it is in its reading loop; the pipe stays open.
	row := []byte("1.5,2.25,3\n")
	big := bytes.Repeat(row, 200<<10/len(row))
	if _, err := stdin.Write(big); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	wantNothing(t, cmd, stderr, 130, "interrupted while reading <stdin>", dir, ckpt, filepath.Join(dir, "v.csv"))
}

// TestSignalDuringBatch: SIGTERM during the starting batch decomposition (one LAPACK
// call) stops the command at once, exit 143, with no output: the batch is abandoned.
func TestSignalDuringBatch(t *testing.T) {
	bin, dir, in, ckpt := magicRun(t, 2000)
	// A batch of all 2000 points: seconds with OpenBLAS, much longer in pure Go; reading
	// and the kernel matrix take a fraction of a second.
	cmd := exec.Command(bin, "fit", "--m0", "2000", "--model", ckpt, "--values", filepath.Join(dir, "v.csv"), in)
	stderr := signalAtWork(t, cmd, syscall.SIGTERM)
	wantNothing(t, cmd, stderr, 143, "interrupted during the starting batch decomposition of 2000 points; nothing written", dir, ckpt)
}

// TestSecondSignal: a command blocked after the first Ctrl-C (writing into a FIFO no one
// reads) quits at once on the second, exit 130, writing nothing more and leaving no
// temporary file.
func TestSecondSignal(t *testing.T) {
	bin, dir, in, ckpt := magicRun(t, 30)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	values := filepath.Join(dir, "v.csv")
	// Outputs are written values, scores, model: the values file, then the FIFO blocks.
	cmd := exec.Command(bin, "fit", "--values", values, "--scores", fifo, "--model", ckpt, in)
	stderr := start(t, cmd)
	waitFor(t, "the values file", func() bool { _, err := os.Stat(values); return err == nil })
	cmd.Process.Signal(syscall.SIGINT)
	waitFor(t, "the first signal's message", func() bool { return strings.Contains(stderr.String(), "interrupt again to quit at once") })
	cmd.Process.Signal(syscall.SIGINT)
	wantNothing(t, cmd, stderr, 130, "quitting at once", dir, ckpt)
}

// TestBrokenPipe: "fit --scores - --model m.ckpt | head -1" — the reader closes standard
// output early. The checkpoint, written before standard output, is complete and loads;
// the command stops quietly with status 141.
func TestBrokenPipe(t *testing.T) {
	bin, dir, in, ckpt := magicRun(t, 200)
	// 200 rows of 150 scores: about 600 KB, far more than a pipe holds.
	cmd := exec.Command(bin, "fit", "--m0", "200", "--k", "150", "--values", "", "--scores", "-", "--model", ckpt, in)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := start(t, cmd)
	header, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(header, "pc1,pc2,") {
		t.Fatalf("first line %q, %v", header, err)
	}
	stdout.(io.Closer).Close()
	wantExit(t, cmd, stderr, statusBrokenPipe, "")
	// Quiet: nothing but the stream's one-line summary, written before the outputs.
	if s := stderr.String(); strings.Count(s, "\n") > 1 || !strings.HasPrefix(s, "ikpca: 200 points read") {
		t.Errorf("stderr not quiet: %s", s)
	}
	if md := loadCheckpoint(t, ckpt); md.Len() != 200 {
		t.Errorf("checkpoint of %d points, want 200", md.Len())
	}
	noTemps(t, dir)
}
