package data

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// checkShape checks a data set's size (what is the call that made it), its name, its
// feature names (comma-separated) and its labels: one a row if labelled, none otherwise
// (regression data).
func checkShape(t *testing.T, d Dataset, what string, rows, cols int, name, features string, labelled bool) {
	t.Helper()
	if r, c := d.X.Dims(); r != rows || c != cols {
		t.Fatalf("%s.X is %d×%d, want %d×%d", what, r, c, rows, cols)
	}
	if d.Name != name {
		t.Errorf("Name = %q, want %s", d.Name, name)
	}
	if got := strings.Join(d.Features, ","); got != features {
		t.Errorf("Features = %s, want %s", got, features)
	}
	if labelled && len(d.Labels) != rows {
		t.Fatalf("len(Labels) = %d, want %d", len(d.Labels), rows)
	}
	if !labelled && d.Labels != nil {
		t.Errorf("Labels = %v…, want nil (regression data)", d.Labels[:min(3, len(d.Labels))])
	}
}

func TestYeastShape(t *testing.T) {
	d := Yeast()
	checkShape(t, d, "Yeast()", 1484, 8, "yeast", "mcg,gvh,alm,mit,erl,pox,vac,nuc", true)
}

func TestYeastRows(t *testing.T) {
	checkRows(t, Yeast(), nil, 1, []fileRow{
		// ADT1_YEAST  0.58  0.61  0.47  0.13  0.50  0.00  0.48  0.22  MIT
		{1, []float64{0.58, 0.61, 0.47, 0.13, 0.50, 0.00, 0.48, 0.22}, "MIT", 0},
		// H4_YEAST    0.37  0.34  0.58  0.24  0.50  0.00  0.44  0.18  NUC
		{407, []float64{0.37, 0.34, 0.58, 0.24, 0.50, 0.00, 0.44, 0.18}, "NUC", 0},
		// H3_YEAST    0.39  0.39  0.55  0.52  0.50  0.00  0.37  0.16  NUC
		{410, []float64{0.39, 0.39, 0.55, 0.52, 0.50, 0.00, 0.37, 0.16}, "NUC", 0},
		// HO_YEAST    0.53  0.53  0.53  0.17  0.50  0.00  0.49  0.37  NUC
		{421, []float64{0.53, 0.53, 0.53, 0.17, 0.50, 0.00, 0.49, 0.37}, "NUC", 0},
		// G6PD_YEAST  0.65  0.54  0.54  0.13  0.50  0.00  0.53  0.22  CYT
		{1484, []float64{0.65, 0.54, 0.54, 0.13, 0.50, 0.00, 0.53, 0.22}, "CYT", 0},
	})
}

func TestYeastDuplicates(t *testing.T) {
	d := Yeast()
	for _, p := range [][2]int{{407, 408}, {409, 410}} {
		a, b := p[0]-1, p[1]-1
		if !mat.Equal(d.X.RowView(a), d.X.RowView(b)) || d.Labels[a] != d.Labels[b] {
			t.Errorf("lines %d and %d should be identical", p[0], p[1])
		}
	}
	if mat.Equal(d.X.RowView(406), d.X.RowView(408)) {
		t.Error("lines 407 and 409 should differ")
	}
}

func TestYeastValues(t *testing.T) {
	d := Yeast()
	r, c := d.X.Dims()
	for i := range r {
		for j := range c {
			v := d.X.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
				t.Fatalf("X[%d,%d] = %v, want finite in [0,1]", i, j, v)
			}
		}
	}
}

func TestYeastLabels(t *testing.T) {
	d := Yeast()
	counts := map[string]int{}
	for _, l := range d.Labels {
		counts[l]++
	}
	// Counts of the file itself (yeast.names lists EXC 37, the file has 35).
	want := map[string]int{
		"CYT": 463, "NUC": 429, "MIT": 244, "ME3": 163, "ME2": 51,
		"ME1": 44, "EXC": 35, "VAC": 30, "POX": 20, "ERL": 5,
	}
	if len(counts) != 10 {
		t.Errorf("got %d classes, want 10: %v", len(counts), counts)
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("class %s: %d rows, want %d", k, counts[k], v)
		}
	}
}

// TestParseVariableSpacing documents why strings.Fields is used: splitting
// on exactly two spaces breaks file lines 407–410 and 421 (their name column
// is padded with four spaces), yet all 1484 lines must be parsed.
func TestParseVariableSpacing(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(yeastRaw, "\n"), "\n")
	if len(lines) != 1484 {
		t.Fatalf("file has %d lines, want 1484", len(lines))
	}
	var naiveBad []int
	for i, l := range lines {
		if len(strings.Split(l, "  ")) != 10 {
			naiveBad = append(naiveBad, i+1)
		}
	}
	if got, want := fmt.Sprint(naiveBad), "[407 408 409 410 421]"; got != want {
		t.Errorf("lines broken by a two-space split: %s, want %s", got, want)
	}
	if r, _ := Yeast().X.Dims(); r != len(lines) {
		t.Fatalf("parsed %d rows from %d lines", r, len(lines))
	}
}

// TestByName: every embedded data set is found by its Name, as its accessor returns it
// and as a copy of its own; any other name is not.
func TestByName(t *testing.T) {
	for _, want := range []Dataset{Yeast(), Magic(), CPUAct(), A9A(), A9ATest(), FashionMNISTSample()} {
		got, ok := ByName(want.Name)
		if !ok || got.Name != want.Name || !mat.Equal(got.X, want.X) {
			t.Errorf("ByName(%q): found %v, %q", want.Name, ok, got.Name)
			continue
		}
		got.X.Set(0, 0, math.Inf(1))
		if again, _ := ByName(want.Name); math.IsInf(again.X.At(0, 0), 1) {
			t.Errorf("ByName(%q) shares its matrix", want.Name)
		}
	}
	for _, name := range []string{"", "Yeast", "a9a.test", "iris"} {
		if _, ok := ByName(name); ok {
			t.Errorf("ByName(%q) found a data set", name)
		}
	}
}

func TestShuffled(t *testing.T) {
	ds := Yeast()
	rows, d := ds.X.Dims()
	all := ds.Shuffled(0, 7)
	if r, c := all.Dims(); r != rows || c != d {
		t.Fatalf("all: %d×%d, want %d×%d", r, c, rows, d)
	}
	// A permutation: every row of X once (rows of Yeast may repeat, so compare counts).
	count := map[string]int{}
	for i := range rows {
		count[fmt.Sprint(ds.X.RawRowView(i))]++
		count[fmt.Sprint(all.RawRowView(i))]--
	}
	for k, v := range count {
		if v != 0 {
			t.Fatalf("row %s: %+d in the shuffled rows", k, -v)
		}
	}
	head := ds.Shuffled(100, 7)
	if !mat.Equal(head, all.Slice(0, 100, 0, d)) {
		t.Error("the first 100 rows are not the prefix of the order")
	}
	if mat.Equal(head, ds.Shuffled(100, 8)) {
		t.Error("another seed gives the same order")
	}
	if r, _ := ds.Shuffled(rows+5, 7).Dims(); r != rows {
		t.Errorf("n beyond the rows: %d rows, want %d", r, rows)
	}
}
