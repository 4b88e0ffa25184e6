//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// outputs returns a study's outputs for the writer's tests: a table with a figure, and
// a figure alone.
func outputs() []study.Output {
	tab := study.NewTable("x", "y")
	tab.Add(1, 2.0)
	tab.Add(2, 1.0)
	fig := &study.Figure{Title: "t", Curves: []study.Curve{{X: []float64{1, 2}, Y: []float64{2, 1}}}}
	return []study.Output{{Name: "a", Table: tab, Figure: fig, Markdown: "part a"}, {Name: "b", Figure: fig}}
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestWriteOutputs: every file of the study and the summary are written, a previous
// run's files are replaced, and no temporary file is left behind.
func TestWriteOutputs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.csv"), "old", 0o644)
	var out, errw bytes.Buffer
	e := env{out: &out, errw: &errw}
	if err := writeStudy(e, dir, "s.md", "# heading\n\n", outputs()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(listDir(t, dir), " "); got != "a.csv a.png b.png s.md" {
		t.Errorf("files %s", got)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "a.csv"))
	md, _ := os.ReadFile(filepath.Join(dir, "s.md"))
	if string(csv) != "x,y\n1,2\n2,1\n" || string(md) != "# heading\n\npart a\n\n" || out.String() != string(md) {
		t.Errorf("a.csv %q, s.md %q, stdout %q", csv, md, out.String())
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.png")); fi.Mode().Perm() != 0o644 {
		t.Errorf("a.png has mode %v", fi.Mode().Perm())
	}
}

// TestWriteOutputsRefuses: two outputs with one file name, and targets the study did
// not produce (a symbolic link, a FIFO, a directory, a read-only file) are errors, and
// then nothing at all is written.
func TestWriteOutputsRefuses(t *testing.T) {
	e := env{out: &bytes.Buffer{}, errw: &bytes.Buffer{}}
	twice := append(outputs(), study.Output{Name: "a", Table: study.NewTable("z")})
	dir := t.TempDir()
	if err := writeStudy(e, dir, "", "", twice); !errors.Is(err, study.ErrName) {
		t.Errorf("two outputs a.csv: %v", err)
	}
	if len(listDir(t, dir)) != 0 {
		t.Errorf("wrote %v", listDir(t, dir))
	}
	if err := writeStudy(e, dir, "a.png", "", outputs()); !errors.Is(err, study.ErrName) {
		t.Errorf("a summary named like an output: %v", err)
	}

	for name, make := range map[string]func(path string) error{
		"symlink":   func(p string) error { return os.Symlink(filepath.Join(filepath.Dir(p), "elsewhere"), p) },
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"directory": func(p string) error { return os.Mkdir(p, 0o755) },
		"read-only": func(p string) error { return os.WriteFile(p, []byte("keep"), 0o444) },
	} {
		dir := t.TempDir()
		target := filepath.Join(dir, "b.png")
		if err := make(target); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		before, _ := os.Lstat(target)
		err := writeStudy(e, dir, "s.md", "", outputs())
		if err == nil || !strings.Contains(err.Error(), target) {
			t.Errorf("%s: %v, want an error naming %s", name, err, target)
		}
		after, _ := os.Lstat(target)
		if after.Mode() != before.Mode() || !os.SameFile(before, after) {
			t.Errorf("%s: replaced (%v → %v)", name, before.Mode(), after.Mode())
		}
		if got := listDir(t, dir); !slices.Equal(got, []string{"b.png"}) {
			t.Errorf("%s: the directory holds %v", name, got)
		}
	}
}

// TestReplot: --replot draws the figures again from the CSV files alone, leaves the CSV
// files as they are, and is an error where there is nothing to draw from.
func TestReplot(t *testing.T) {
	dir := t.TempDir()
	args := []string{"experiment", "--datasets", "yeast", "--mmax", "25", "--runs", "1", "--nystrom-n", "30",
		"--nystrom-mmax", "5", "--out", dir}
	if code, _, stderr := ikpca(t, "", args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "fig1-yeast.csv"))
	for _, f := range []string{"fig1-yeast.png", "fig2-yeast.png"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := ikpca(t, "", "experiment", "--replot", "--out", dir); code != 0 {
		t.Fatalf("--replot: exit %d: %s", code, stderr)
	}
	checkOutputs(t, dir, "fig1-yeast.png", "fig2-yeast.png")
	if again, _ := os.ReadFile(filepath.Join(dir, "fig1-yeast.csv")); !bytes.Equal(again, csv) {
		t.Error("--replot changed a CSV file")
	}
	if code, _, _ := ikpca(t, "", "kaf", "--replot", "--out", t.TempDir()); code != 1 {
		t.Errorf("--replot without CSV files: exit %d, want 1", code)
	}
}

// TestOutputDirChecked: an output directory that cannot be created is an error before
// the study runs.
func TestOutputDirChecked(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	writeFile(t, file, "", 0o644)
	code, _, stderr := ikpca(t, "", "kaf", "--out", filepath.Join(file, "sub"))
	if code != 1 || !strings.Contains(stderr, "not a directory") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
