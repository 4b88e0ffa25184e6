package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// TestFitProject: fit with --output, then project with the written model: the model
// decodes and has seen every point, every point is scored twice alike, and the bad
// line is a dead letter in both runs.
func TestFitProject(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a;b;c\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%g;%g;%g\n", float64(i%7)/7, float64(i%11)/11, float64(i%13)/13)
	}
	b.WriteString("1;x;2\n")
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.skpca")
	fit := options{mode: "fit", input: in, sep: ";", header: true, format: "csv", model: model,
		output: filepath.Join(dir, "fit.csv"), features: 64, sketch: 5, seed: 1, block: 256}
	p, err := build(context.Background(), fit)
	if err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ikpcabeam.DecodeModel(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 300 || m.Dim() != 3 {
		t.Errorf("model of %d points of dimension %d, want 300 of 3", m.Len(), m.Dim())
	}
	proj := fit
	proj.mode, proj.output, proj.k = "project", filepath.Join(dir, "project.csv"), 5
	if p, err = build(context.Background(), proj); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	sorted := func(file string) []string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		slices.Sort(lines)
		return lines
	}
	a, c := sorted(fit.output), sorted(proj.output)
	if len(a) != 300 || strings.Join(a, "\n") != strings.Join(c, "\n") {
		t.Errorf("%d scores when fitting, %d when projecting, or they differ", len(a), len(c))
	}
	for _, f := range []string{fit.output, proj.output} {
		if d := sorted(f + ".dead.csv"); len(d) != 1 || !strings.HasSuffix(d[0], `,302,"column 2: ""x"" is not a number",1;x;2`) {
			t.Errorf("%s: dead letters %q", f, d)
		}
	}
}

// TestBuildErrors: bad flags are errors before anything runs.
func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := options{mode: "fit", input: in, format: "csv", sep: ",", model: filepath.Join(dir, "m"), features: 8, sketch: 2, sigma: 1}
	for _, c := range []struct {
		edit func(*options)
		want string
	}{
		{func(o *options) { o.mode = "" }, "--mode"},
		{func(o *options) { o.input = "" }, "required"},
		{func(o *options) { o.format = "json" }, "--format"},
		{func(o *options) { o.sep = "ab" }, "--sep"},
		{func(o *options) { o.columns = "3-1" }, "--columns"},
		{func(o *options) { o.format = "libsvm" }, "--dim"},
		{func(o *options) { o.features = 7 }, "even"},
		{func(o *options) { o.input = filepath.Join(dir, "none*.csv") }, "no file"},
		{func(o *options) { o.mode, o.output = "project", "" }, "--output"},
		{func(o *options) { o.mode, o.output, o.model = "project", filepath.Join(dir, "s"), junk }, "model"},
	} {
		o := ok
		c.edit(&o)
		if _, err := build(context.Background(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one with %q", o, err, c.want)
		}
	}
	if _, err := build(context.Background(), ok); err != nil {
		t.Errorf("valid options: %v", err)
	}
}
