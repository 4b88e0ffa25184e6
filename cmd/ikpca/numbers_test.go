package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// hugeFlags are command lines whose numeric flags are impossible or absurd, each with
// what the usage error must say: the audit's cases (a 5-row file; sizes that panicked in
// makeslice or a constructor, or exhausted the memory, before any row was read) and the
// bounds behind them.
func hugeFlags(t *testing.T) (cases []struct {
	args []string
	says string
}) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.csv")
	writeFile(t, in, "1,2\n3,4\n5,6\n7,8\n9,1\n", 0o644)
	out := filepath.Join(dir, "out")
	add := func(says string, args ...string) {
		cases = append(cases, struct {
			args []string
			says string
		}{args, says})
	}
	const huge = "100000000000000"
	add("--m0 "+huge+" is too large", "fit", "--m0", huge, in)
	add("--m0 100000000 is too large: at most 32768", "fit", "--m0", "1e8", in) // not an int: pflag's error
	add("--m0 100000000 is too large: at most 32768", "fit", "--m0", "100000000", in)
	add("--m0 40000 is too large: at most 32768", "fit", "--m0", "40000", in)
	add("--rank "+huge+" is too large", "fit", "--rank", huge, "--stream", in)
	add("--rank 40000 is too large: at most 32766", "fit", "--rank", "40000", "--stream", in)
	add("--rank 40000 is too large", "fit", "--rank", "40000", in)
	add("--window 100000 is too large: at most 32768", "fit", "--window", "100000", in)
	add("--window 100000000 is too large: at most 20648881", "fit", "--window", "100000000", "--rank", "50", in)
	add("--k "+huge+" is too large", "fit", "--k", huge, in)
	add("--k "+huge+" is too large", "transform", "--model", in, "--k", huge, in)
	add("--mmax "+huge+" is too large", "nystrom", "--mmax", huge, in)
	add("--refresh-tol NaN: want a finite number", "fit", "--refresh-tol", "NaN", in)
	add("--sigma +Inf: want a finite number", "fit", "--sigma", "Inf", in)
	add("--degree must be at least 1", "fit", "--kernel", "polynomial", "--degree", "0", in)
	add("--coef0 must be finite and not negative", "fit", "--kernel", "polynomial", "--coef0", "-1", in)
	add("--features "+huge+" is too large", "streaming", "--out", out, "--features", huge)
	add("random features: want an even number from 2 to 16384", "streaming", "--out", out, "--features", "100000000")
	add("100000000 toy samples: at most 32768", "streaming", "--out", out, "--datasets", "", "--rff-n", "0", "--toy-n", "100000000")
	add("--components "+huge+" is too large", "chinsuter", "--out", out, "--components", huge)
	add("(r+1)·n′ is at most 32768", "chinsuter", "--out", out, "--components", "100000")
	add("(r+1)·n′ is at most 32768", "chinsuter", "--out", out, "--preimages", "100000")
	add("--stream-n "+huge+" is too large", "chinsuter", "--out", out, "--stream-n", huge)
	add("a stream of 100000000 points: at most 32768", "chinsuter", "--out", out, "--stream-n", "100000000")
	add("toy size 100000000", "chinsuter", "--out", out, "--sizes", "520,100000000")
	add("--sizes: bad entry \""+huge+"\"", "chinsuter", "--out", out, "--sizes", huge)
	add("100000 training samples: at most 32768", "kaf", "--out", out, "--train", "100000", "--seed-dictionary", "100")
	add("an eigenmap of 100000 inputs", "kaf", "--out", out, "--basis-n", "100000")
	add("--kha-rate NaN: want a finite number", "streaming", "--out", out, "--kha-rate", "NaN")
	add("points of each MAGIC class", "tracking", "--out", out, "--datasets", "", "--window-per-class", "100000000")
	return cases
}

// TestHugeFlags: every such command line is a usage error (exit 2) naming the flag and
// its bound, found before any data are read or any experiment runs, with no panic (the
// helper fails on a stack trace).
func TestHugeFlags(t *testing.T) {
	for _, c := range hugeFlags(t) {
		code, _, stderr := ikpca(t, "", c.args...)
		want := c.says
		if c.args[2] == "1e8" {
			want = `invalid argument "1e8" for "--m0" flag`
		}
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, want 2 saying %q; stderr: %s", c.args, code, want, stderr)
		}
	}
}

// TestPanicIsInternalError: a panic in the command (here in fit's test hook, on the main
// goroutine) and one in a function run by interruptible (another goroutine) are an
// internal error, exit 70 with the panic's value and its stack — never 2, a usage
// error's status.
func TestPanicIsInternalError(t *testing.T) {
	afterAdd = func(int) { panic("boom") }
	defer func() { afterAdd = nil }()
	var out, errw strings.Builder
	code := run(context.Background(), []string{"fit", "--values", "-"}, env{in: strings.NewReader("1,2\n3,4\n5,7\n"), out: &out, errw: &errw})
	if code != statusInternal || !strings.Contains(errw.String(), "internal error (a bug, please report it): panic: boom") ||
		!strings.Contains(errw.String(), "goroutine ") {
		t.Errorf("exit %d, want %d; stderr: %s", code, statusInternal, errw.String())
	}
	_, err := interruptible(context.Background(), "testing", func() (int, error) { panic("in a goroutine") })
	var ie *internalError
	if !errors.As(err, &ie) || ie.value != "in a goroutine" || !strings.Contains(string(ie.stack), "TestPanicIsInternalError") {
		t.Errorf("interruptible: %v", err)
	}
}
