package data

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// yeastSHA256 is the checksum of yeast.data listed in
// /work/shared/data/SHA256SUMS (and in README.md).
const yeastSHA256 = "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258"

func TestYeastRawChecksum(t *testing.T) {
	sum := sha256.Sum256(YeastRaw())
	if got := hex.EncodeToString(sum[:]); got != yeastSHA256 {
		t.Fatalf("sha256(YeastRaw()) = %s, want %s", got, yeastSHA256)
	}
}

func TestYeastRawIsCopy(t *testing.T) {
	b := YeastRaw()
	b[0] = 'X'
	if YeastRaw()[0] != 'A' {
		t.Fatal("modifying YeastRaw() result changed the embedded data")
	}
}

// TestYeastParses guards the panic in Yeast: the embedded file must parse.
func TestYeastParses(t *testing.T) {
	if _, err := loadYeast(); err != nil {
		t.Fatalf("embedded yeast.data does not parse: %v", err)
	}
}

func TestYeastShape(t *testing.T) {
	d := Yeast()
	r, c := d.X.Dims()
	if r != 1484 || c != 8 {
		t.Fatalf("Yeast().X is %d×%d, want 1484×8", r, c)
	}
	if d.Name != "yeast" {
		t.Errorf("Name = %q, want yeast", d.Name)
	}
	want := []string{"mcg", "gvh", "alm", "mit", "erl", "pox", "vac", "nuc"}
	if strings.Join(d.Features, ",") != strings.Join(want, ",") {
		t.Errorf("Features = %v, want %v", d.Features, want)
	}
	if len(d.Labels) != r {
		t.Fatalf("len(Labels) = %d, want %d", len(d.Labels), r)
	}
}

func TestYeastRows(t *testing.T) {
	d := Yeast()
	cases := []struct {
		line  int // 1-based line of the file
		vals  []float64
		label string
	}{
		// ADT1_YEAST  0.58  0.61  0.47  0.13  0.50  0.00  0.48  0.22  MIT
		{1, []float64{0.58, 0.61, 0.47, 0.13, 0.50, 0.00, 0.48, 0.22}, "MIT"},
		// H4_YEAST    0.37  0.34  0.58  0.24  0.50  0.00  0.44  0.18  NUC
		{407, []float64{0.37, 0.34, 0.58, 0.24, 0.50, 0.00, 0.44, 0.18}, "NUC"},
		// H3_YEAST    0.39  0.39  0.55  0.52  0.50  0.00  0.37  0.16  NUC
		{410, []float64{0.39, 0.39, 0.55, 0.52, 0.50, 0.00, 0.37, 0.16}, "NUC"},
		// HO_YEAST    0.53  0.53  0.53  0.17  0.50  0.00  0.49  0.37  NUC
		{421, []float64{0.53, 0.53, 0.53, 0.17, 0.50, 0.00, 0.49, 0.37}, "NUC"},
		// G6PD_YEAST  0.65  0.54  0.54  0.13  0.50  0.00  0.53  0.22  CYT
		{1484, []float64{0.65, 0.54, 0.54, 0.13, 0.50, 0.00, 0.53, 0.22}, "CYT"},
	}
	for _, tc := range cases {
		i := tc.line - 1
		for j, v := range tc.vals {
			if got := d.X.At(i, j); got != v {
				t.Errorf("line %d, feature %s: got %v, want %v", tc.line, d.Features[j], got, v)
			}
		}
		if d.Labels[i] != tc.label {
			t.Errorf("line %d: label %q, want %q", tc.line, d.Labels[i], tc.label)
		}
	}
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

func TestYeastFreshCopy(t *testing.T) {
	a := Yeast()
	first := a.X.At(0, 0)
	a.X.Set(0, 0, -1)
	a.Labels[0] = "changed"
	a.Features[0] = "changed"
	a.Name = "changed"
	b := Yeast()
	if b.X.At(0, 0) != first || b.Labels[0] != "MIT" || b.Features[0] != "mcg" || b.Name != "yeast" {
		t.Fatal("modifying a Yeast() result changed the next call's result")
	}
	if a.X == b.X {
		t.Fatal("Yeast() returned the same matrix twice")
	}
}

func TestYeastConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			d := Yeast()
			d.X.Set(1, 1, 42)
			if r, _ := d.X.Dims(); r != 1484 {
				t.Errorf("rows = %d", r)
			}
		})
	}
	wg.Wait()
}

func TestParseNamedTable(t *testing.T) {
	feats := []string{"a", "b"}
	d, err := parseNamedTable("t", "p  0.5 \t 1e-1 X\nq 1 2   Y", feats)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 2, []float64{0.5, 0.1, 1, 2})
	if !mat.Equal(d.X, want) || d.Labels[0] != "X" || d.Labels[1] != "Y" {
		t.Fatalf("got X=%v labels=%v", mat.Formatted(d.X), d.Labels)
	}

	bad := map[string]string{
		"too few fields":  "p 0.5 X\n",
		"too many fields": "p 0.5 1 2 X\n",
		"blank line":      "p 0.5 1 X\n\nq 1 2 Y\n",
		"not a number":    "p 0.5 abc X\n",
		"NaN":             "p NaN 1 X\n",
		"Inf":             "p 1 +Inf X\n",
		"empty":           "",
	}
	for name, raw := range bad {
		if _, err := parseNamedTable("t", raw, feats); err == nil {
			t.Errorf("%s: expected an error", name)
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
