package study

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestFiles(t *testing.T) {
	tab, fig := NewTable("x"), &Figure{}
	files, err := Files([]Output{{Name: "a", Table: tab, Figure: fig}, {Name: "b", Figure: fig}, {Name: "c", Markdown: "only text"}})
	if err != nil || strings.Join(files, " ") != "a.csv a.png b.png" {
		t.Errorf("Files = %v, %v", files, err)
	}
	for _, outs := range [][]Output{
		{{Name: "", Table: tab}},
		{{Name: "../up", Table: tab}},
		{{Name: `dir\file`, Table: tab}},
		{{Name: ".hidden", Table: tab}},
		{{Name: "a", Table: tab}, {Name: "a", Table: tab}},
		{{Name: "a", Figure: fig}, {Name: "a", Figure: fig}},
	} {
		if _, err := Files(outs); !errors.Is(err, ErrName) {
			t.Errorf("Files(%q…): %v, want ErrName", outs[0].Name, err)
		}
	}
	// A table and a figure of the same name go to different files.
	if _, err := Files([]Output{{Name: "a", Table: tab}, {Name: "a", Figure: fig}}); err != nil {
		t.Errorf("a.csv and a.png: %v", err)
	}
}

func TestSummary(t *testing.T) {
	got := Summary([]Output{{Markdown: "one\n\n"}, {}, {Markdown: "two"}})
	if got != "one\n\ntwo\n\n" {
		t.Errorf("Summary = %q", got)
	}
}

func TestTable(t *testing.T) {
	tab := NewTable("name", "n", "value")
	tab.Add("a", 1, 0.1234567891)
	tab.Add("b", 2, math.NaN())
	tab.Add("a", 3, 2.5)
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if want := "name,n,value\na,1,0.123457\nb,2,\na,3,2.5\n"; b.String() != want {
		t.Fatalf("CSV %q, want %q", b.String(), want)
	}
	back, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := back.Floats("value")
	if err != nil || v[0] != 0.123457 || !math.IsNaN(v[1]) || v[2] != 2.5 {
		t.Errorf("Floats = %v, %v", v, err)
	}
	a, err := back.Where("name", "a")
	if n, _ := a.Floats("n"); err != nil || len(n) != 2 || n[1] != 3 {
		t.Errorf("Where: %v, %v", n, err)
	}
	if d, err := back.Distinct("name"); err != nil || strings.Join(d, ",") != "a,b" {
		t.Errorf("Distinct = %v, %v", d, err)
	}
	if _, err := back.Floats("name"); !errors.Is(err, ErrTable) {
		t.Errorf("a column of names as numbers: %v", err)
	}
	if c, err := back.FloatColumns("value", "n"); err != nil || len(c) != 2 || c[0][2] != 2.5 || c[1][1] != 2 {
		t.Errorf("FloatColumns = %v, %v", c, err)
	}
	if _, err := back.FloatColumns("n", "name"); !errors.Is(err, ErrTable) {
		t.Errorf("FloatColumns with a column of names: %v", err)
	}
	if h, err := back.Firsts("name", "value"); err != nil || len(h) != 2 || h["name"] != "a" || h["value"] != "0.123457" {
		t.Errorf("Firsts = %v, %v", h, err)
	}
	if _, err := back.Firsts("name", "nosuch"); !errors.Is(err, ErrTable) {
		t.Errorf("Firsts of a missing column: %v", err)
	}
	if _, err := NewTable("a").Firsts("a"); !errors.Is(err, ErrTable) {
		t.Errorf("Firsts of a table without rows: %v", err)
	}
	if _, err := back.Strings("nosuch"); !errors.Is(err, ErrTable) {
		t.Errorf("a missing column: %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("a,b\n1\n")); err == nil {
		t.Error("a ragged CSV was read")
	}
	if _, err := ReadCSV(strings.NewReader("")); !errors.Is(err, ErrTable) {
		t.Errorf("an empty CSV: %v", err)
	}
}

func TestPlotMatch(t *testing.T) {
	for _, tc := range []struct {
		csv, name, star string
		ok              bool
	}{
		{"rff", "rff", "", true},
		{"rff", "rff2", "", false},
		{"skpca-*", "skpca-a9a", "a9a", true},
		{"skpca-*", "skpca-", "", false},
		{"fig1-*-x", "fig1-magic-x", "magic", true},
		{"fig1-*-x", "fig2-magic-x", "", false},
	} {
		star, ok := Plot{CSV: tc.csv}.match(tc.name)
		if star != tc.star || ok != tc.ok {
			t.Errorf("%q matches %q: %q, %v; want %q, %v", tc.csv, tc.name, star, ok, tc.star, tc.ok)
		}
	}
}

// TestDraw: a figure named like its table joins its output, any other follows the
// outputs; Redraw returns the figures alone, and a table the rule cannot read is an
// error.
func TestDraw(t *testing.T) {
	tab := NewTable("x", "y")
	tab.Add(1, 2.0)
	tab.Add(2, 3.0)
	line := func(t *Table, star string) (*Figure, error) {
		x, err := t.Floats("x")
		if err != nil {
			return nil, err
		}
		y, err := t.Floats("y")
		return &Figure{Title: star, Curves: []Curve{{X: x, Y: y}}}, err
	}
	plots := []Plot{{CSV: "d-*", PNG: "d-*", Draw: line}, {CSV: "d-*", PNG: "e-*", Draw: line}}
	outs, err := Draw([]Output{{Name: "d-one", Table: tab, Markdown: "m"}, {Name: "other", Table: tab}}, plots)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := Files(outs)
	if strings.Join(files, " ") != "d-one.csv d-one.png other.csv e-one.png" || outs[0].Figure.Title != "one" || outs[0].Markdown != "m" {
		t.Errorf("files %v", files)
	}
	figs, err := Redraw(map[string]*Table{"d-one": tab, "d-two": tab, "x": tab}, plots)
	if err != nil {
		t.Fatal(err)
	}
	files, _ = Files(figs)
	if strings.Join(files, " ") != "d-one.png d-two.png e-one.png e-two.png" || figs[0].Table != nil {
		t.Errorf("redrawn %v", files)
	}
	if _, err := Redraw(map[string]*Table{"d-bad": NewTable("z")}, plots); !errors.Is(err, ErrTable) {
		t.Errorf("a table without the columns: %v", err)
	}
}

// TestWritePNG draws every kind of figure: keys, each legend place, panels, markers
// and scatters, log axes with values they cannot show, and NaN points.
func TestWritePNG(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	y := []float64{1e-3, 0, 1e-1, math.NaN()}
	var figs []*Figure
	for _, place := range []Place{Outside, Auto, TopLeft, TopRight, BottomLeft, BottomRight, TopCenter, BottomCenter} {
		figs = append(figs, &Figure{Title: "t", XLabel: "x", YLabel: "y", LogY: true, Legend: place,
			Curves: []Curve{{Label: "a", X: x, Y: y, Style: Style{Marker: 1}}, {Label: "b", X: x, Y: x, Style: Style{Colour: Grey, NoLine: true}}}})
	}
	figs = append(figs,
		&Figure{Title: "keys", LogX: true, Keys: []Key{{Label: "k", Style: Style{Colour: Black, Dash: 3}}}, Curves: []Curve{{X: x, Y: x}}},
		&Figure{Title: "panels", Panels: []*Figure{figs[0], figs[2]}},
		&Figure{Title: "no legend", Curves: []Curve{{X: x, Y: x}}, YMin: 0, YMax: 10})
	for i, f := range figs {
		var b bytes.Buffer
		if err := f.WritePNG(&b); err != nil {
			t.Fatalf("figure %d: %v", i, err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("figure %d: %v", i, err)
		}
		want := 5 * dpi
		if f.Legend == Outside && (f.Keys != nil || f.Curves != nil && f.Curves[0].Label != "") {
			want = 6 * dpi // room for the legend
		}
		if f.Panels != nil {
			want = 2 * 6 * dpi
		}
		if w := img.Bounds().Dx(); w != want {
			t.Errorf("figure %d (%s): %d pixels wide, want %d", i, f.Title, w, want)
		}
	}
	if err := (&Figure{Curves: []Curve{{X: x, Y: x[:2]}}}).WritePNG(&bytes.Buffer{}); err == nil {
		t.Error("a curve with more abscissae than ordinates was drawn")
	}
	// Logarithmic axes without data (every curve empty) are drawn, not looped on.
	empty := &Figure{LogX: true, LogY: true, Curves: []Curve{{Label: "none"}}}
	if err := empty.WritePNG(&bytes.Buffer{}); err != nil {
		t.Errorf("logarithmic axes without data: %v", err)
	}
}

// TestGrid: panels in rows of Columns make a figure Columns panels wide and a panel
// high per row (three panels in two columns: two rows); a panel without a legend
// outside its axes reserves none of its own, so that only its column's reservation
// (the widest legend above or below it) keeps its axes in line.
func TestGrid(t *testing.T) {
	x := []float64{1, 2, 3}
	withLegend := &Figure{Curves: []Curve{{Label: "a long legend entry", X: x, Y: x}}}
	bare := &Figure{Curves: []Curve{{X: x, Y: x}}}
	inside := &Figure{Legend: Auto, Curves: []Curve{{Label: "a", X: x, Y: x}}}
	if withLegend.outsideLegend() <= 0 || bare.outsideLegend() != 0 || inside.outsideLegend() != 0 {
		t.Errorf("legend room: %v outside, %v none, %v inside", withLegend.outsideLegend(), bare.outsideLegend(), inside.outsideLegend())
	}
	keyed := &Figure{Keys: []Key{{Label: "a longer key than that entry, by far"}}, Curves: []Curve{{X: x, Y: x}}}
	if keyed.outsideLegend() <= withLegend.outsideLegend() {
		t.Error("a key's legend is not measured")
	}
	f := &Figure{Title: "grid", Columns: 2, Panels: []*Figure{withLegend, bare, bare}}
	var b bytes.Buffer
	if err := f.WritePNG(&b); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	rows := 2.0
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 2*6*dpi || h != int(rows*heightInches*dpi) {
		t.Errorf("two rows of two columns: %d×%d pixels, want %d×%d", w, h, 2*6*dpi, int(rows*heightInches*dpi))
	}
}

// TestFreePlace: the automatic legend avoids the corner the curve runs through.
func TestFreePlace(t *testing.T) {
	f := &Figure{Curves: []Curve{{X: []float64{0, 0.8, 1}, Y: []float64{0, 0.9, 1}}}}
	p := plot.New()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	data := p.DataCanvas(draw.New(vgimg.New(4*vg.Inch, 3*vg.Inch)))
	// The diagonal crosses the bottom-left and top-right corners: top-left is the first
	// free place in the order tried.
	if got := f.freePlace(p, data, vg.Inch, vg.Inch/2); got != TopLeft {
		t.Errorf("freePlace = %d, want TopLeft (%d)", got, TopLeft)
	}
}

func TestDecadeTicks(t *testing.T) {
	labels := func(min, max float64) string {
		var l []string
		for _, tk := range (decadeTicks{}).Ticks(min, max) {
			if tk.Value < min*(1-1e-9) || tk.Value > max*(1+1e-9) {
				t.Errorf("[%g, %g]: tick %g outside", min, max, tk.Value)
			}
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return strings.Join(l, " ")
	}
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{1e-4, 10, "0.0001 0.001 0.01 0.1 1 10"},
		{520, 3100, "1000 2000"},
		{30, 70, "50"},
		{16, 8192, "100 1000"},
		{-1, 1, ""}, // no logarithmic range: no ticks
		{0, 10, ""},
		{10, 1, ""},
	} {
		if got := labels(tc.min, tc.max); got != tc.want {
			t.Errorf("[%g, %g]: labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

func TestPositive(t *testing.T) {
	got := positive([]float64{0, 2, -1, 0.5}, true)
	if got[0] != 0.5 || got[1] != 2 || got[2] != 0.5 || got[3] != 0.5 {
		t.Errorf("positive = %v", got)
	}
	if v := []float64{-1}; &positive(v, false)[0] != &v[0] {
		t.Error("a linear axis's values were copied")
	}
}
