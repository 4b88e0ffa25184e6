// Package studytest holds the checks the tests of the studies share.
package studytest

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// CheckPNG fails the test if err is not nil, or if the figure cannot be drawn or its
// PNG does not decode.
func CheckPNG(t testing.TB, f *study.Figure, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&buf); err != nil {
		t.Fatalf("PNG: %v", err)
	}
}

// CSV returns the table written as CSV, failing the test if it cannot be.
func CSV(t testing.TB, tab *study.Table) string {
	t.Helper()
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Lines returns the number of lines of the table written as CSV.
func Lines(t testing.TB, tab *study.Table) int {
	t.Helper()
	return strings.Count(CSV(t, tab), "\n")
}

// Files fails the test unless the files of outs (study.Files) are want, their names
// separated by spaces, in order.
func Files(t testing.TB, outs []study.Output, want string) {
	t.Helper()
	if files, err := study.Files(outs); err != nil || strings.Join(files, " ") != want {
		t.Errorf("files %v (%v), want %s", files, err, want)
	}
}

// Refused fails the test unless err, a study's for the options what describes, is
// study.ErrOptions: options it cannot run.
func Refused(t testing.TB, what string, err error) {
	t.Helper()
	if !errors.Is(err, study.ErrOptions) {
		t.Errorf("%s: %v, want ErrOptions", what, err)
	}
}

// Cancelled calls run with a context already cancelled and fails the test unless it
// returns context.Canceled: a study stops when its context is done.
func Cancelled(t testing.TB, what string, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("%s: cancelled: %v", what, err)
	}
}
