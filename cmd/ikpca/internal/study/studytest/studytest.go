// Package studytest holds the checks the tests of the studies share.
package studytest

import (
	"bytes"
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
