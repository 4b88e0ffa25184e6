package data

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// embeddedSets are the embedded data sets with what every one of them promises: the
// raw file's SHA-256 (as listed in data/README.md), its
// size and first byte, and the parsed shape.
var embeddedSets = []struct {
	name       string
	get        func() Dataset
	raw        func() []byte
	load       func() error
	sha256     string
	size       int
	first      byte
	rows, cols int
	feature    string // the first feature's name
	labelled   bool
}{
	{"yeast", Yeast, YeastRaw, func() error { _, err := yeast.load(); return err },
		"7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258", 94976, 'A', 1484, 8, "mcg", true},
	{"magic", Magic, MagicRaw, func() error { _, err := magic.load(); return err },
		"e9314b7ebd4b4b59a3b3d65f7316663963777b16a46786877651dbbaa640b36a", 1477391, '2', 19020, 10, "fLength", true},
	{"cpu_act", CPUAct, CPUActRaw, func() error { _, err := cpuAct.load(); return err },
		"72a215c6fcad26f907605b1cb1f154836d19ac019d95da1375d9251d0467f501", 805043, '1', 8192, 21, "lread", false},
	{"a9a", A9A, A9ARaw, func() error { _, err := a9a.load(); return err },
		"f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906", 2329875, '-', 32561, 123, "f1", true},
	{"a9a.t", A9ATest, A9ATestRaw, func() error { _, err := a9aTest.load(); return err },
		"1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9", 1164628, '-', 16281, 123, "f1", true},
}

// TestEmbeddedRaw: each raw file is the one distributed, and each call returns a copy.
func TestEmbeddedRaw(t *testing.T) {
	for _, s := range embeddedSets {
		b := s.raw()
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != s.sha256 {
			t.Errorf("%s: sha256 = %s, want %s", s.name, got, s.sha256)
		}
		if len(b) != s.size || b[0] != s.first {
			t.Errorf("%s: %d bytes starting %q, want %d starting %q", s.name, len(b), b[0], s.size, s.first)
		}
		b[0] = 'X'
		if s.raw()[0] != s.first {
			t.Errorf("%s: modifying the raw bytes changed the embedded data", s.name)
		}
	}
}

// TestEmbeddedParse guards the panics of the accessors: every embedded file parses, to
// the documented shape.
func TestEmbeddedParse(t *testing.T) {
	for _, s := range embeddedSets {
		if err := s.load(); err != nil {
			t.Fatalf("%s does not parse: %v", s.name, err)
		}
		d := s.get()
		r, c := d.X.Dims()
		if r != s.rows || c != s.cols || d.Name != s.name || len(d.Features) != c || d.Features[0] != s.feature {
			t.Errorf("%s: %d×%d, name %q, features %d from %q", s.name, r, c, d.Name, len(d.Features), d.Features[0])
		}
		if labelled := d.Labels != nil; labelled != s.labelled || labelled && len(d.Labels) != r {
			t.Errorf("%s: %d labels for %d rows", s.name, len(d.Labels), r)
		}
	}
}

// TestEmbeddedFreshCopy: modifying a result does not change the next call's.
func TestEmbeddedFreshCopy(t *testing.T) {
	for _, s := range embeddedSets {
		want := s.get()
		a := s.get()
		a.X.Set(0, 0, -1)
		a.Features[0] = "changed"
		a.Name = "changed"
		if a.Labels != nil {
			a.Labels[0] = "changed"
		}
		b := s.get()
		if !mat.Equal(b.X, want.X) || b.Name != s.name || !slices.Equal(b.Features, want.Features) || !slices.Equal(b.Labels, want.Labels) {
			t.Errorf("%s: modifying a result changed the next call's", s.name)
		}
		if a.X == b.X {
			t.Errorf("%s: the same matrix twice", s.name)
		}
	}
	y := CPUActTarget()
	y[0] = -1
	if CPUActTarget()[0] != 90 {
		t.Error("modifying a CPUActTarget() result changed the next call's result")
	}
}

// TestEmbeddedConcurrent: the accessors may be called from several goroutines at once.
func TestEmbeddedConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for _, s := range embeddedSets {
		for range 4 {
			wg.Go(func() {
				d := s.get()
				d.X.Set(1, 1, 42)
				if r, _ := d.X.Dims(); r != s.rows {
					t.Errorf("%s: %d rows", s.name, r)
				}
			})
		}
	}
	wg.Go(func() {
		if y := CPUActTarget(); len(y) != 8192 {
			t.Errorf("%d targets", len(y))
		}
	})
	wg.Wait()
}

// fileRow is one line of an embedded file, as the file spells it: its 1-based line
// number, its features, and its label or target (a label "" is not checked).
type fileRow struct {
	line   int
	vals   []float64
	label  string
	target float64
}

// checkRows checks the rows of d, and its targets y (nil for none), against lines of
// the file whose first data line is line first.
func checkRows(t *testing.T, d Dataset, y []float64, first int, rows []fileRow) {
	t.Helper()
	for _, r := range rows {
		i := r.line - first
		for j, v := range r.vals {
			if got := d.X.At(i, j); got != v {
				t.Errorf("%s line %d, feature %s: got %v, want %v", d.Name, r.line, d.Features[j], got, v)
			}
		}
		if r.label != "" && d.Labels[i] != r.label {
			t.Errorf("%s line %d: label %q, want %q", d.Name, r.line, d.Labels[i], r.label)
		}
		if y != nil && y[i] != r.target {
			t.Errorf("%s line %d: target %v, want %v", d.Name, r.line, y[i], r.target)
		}
	}
}

// TestParseTable: the three layouts of the embedded tables, and what each rejects.
func TestParseTable(t *testing.T) {
	feats := []string{"a", "b"}
	named := layout{name: "t", fields: strings.Fields, skip: 1, features: feats, label: true}
	csv := layout{name: "t", fields: commaFields, features: feats, label: true}
	target := layout{name: "t", fields: commaFields, header: true, features: feats, target: "y"}
	for _, tc := range []struct {
		l      layout
		raw    string
		x      []float64
		labels []string
		y      []float64
	}{
		{named, "p  0.5 \t 1e-1 X\nq 1 2   Y", []float64{0.5, 0.1, 1, 2}, []string{"X", "Y"}, nil},
		{csv, "0.5,1e-1,X\n-1,2,Y", []float64{0.5, 0.1, -1, 2}, []string{"X", "Y"}, nil},
		{target, "1,2,3\n0.5,1e-1,7\n-1,2,8", []float64{0.5, 0.1, -1, 2}, nil, []float64{7, 8}},
	} {
		d, y, err := parseTable(tc.l, tc.raw)
		if err != nil {
			t.Fatalf("%q: %v", tc.raw, err)
		}
		if !mat.Equal(d.X, mat.NewDense(2, 2, tc.x)) || !slices.Equal(d.Labels, tc.labels) || !slices.Equal(y, tc.y) {
			t.Errorf("%q: X=%v labels=%v y=%v", tc.raw, mat.Formatted(d.X), d.Labels, y)
		}
	}

	bad := []struct {
		l              layout
		name, raw, msg string // msg: expected in the error, e.g. "line 3"
	}{
		{named, "too few fields", "p 0.5 X\n", "line 1"},
		{named, "too many fields", "p 0.5 1 2 X\n", "line 1"},
		{named, "blank line", "p 0.5 1 X\n\nq 1 2 Y\n", "line 2"},
		{named, "not a number", "p 0.5 abc X\n", "column 3 (b)"},
		{named, "NaN", "p NaN 1 X\n", "column 2 (a)"},
		{named, "Inf", "p 1 +Inf X\n", "non-finite"},
		{named, "empty", "", "no data lines"},
		{csv, "space", "0.5, 1,X\n", "column 2"},
		{csv, "empty label", "1,2,\n", "empty label"},
		{csv, "Inf", "1,-Inf,X\n", "non-finite"},
		{target, "header only", "1,2,3\n", "no data lines"},
		{target, "short header", "1,2\n1,2,3\n", "line 1"},
		{target, "empty header field", "1,,3\n1,2,3\n", "line 1"},
		{target, "too few fields", "1,2,3\n0.5,1\n", "line 2"},
		{target, "blank line", "1,2,3\n1,2,3\n\n1,2,3\n", "line 3"},
		{target, "bad target", "1,2,3\n1,2,x\n", "column 3 (y)"},
		{target, "empty field", "1,2,3\n1,,3\n", "line 2"},
		{target, "CRLF", "1,2,3\r\n1,2,3\r\n", "line 2"},
		{target, "Inf target", "1,2,3\n1,2,+Inf\n", "line 2"},
		{target, "overflow", "1,2,3\n1,1e999,2\n", "line 2"},
		{layout{name: "t", fields: commaFields}, "no features", "1\n2\n", "no feature columns"},
	}
	for _, tc := range bad {
		_, _, err := parseTable(tc.l, tc.raw)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.msg)
		}
	}
}
