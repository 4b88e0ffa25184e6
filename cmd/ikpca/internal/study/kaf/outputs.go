package kaf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/stats"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Plots draw the figures from their tables: kaf-curves from kaf-curves, speed-gram and
// speed-angle from speed-basis.
var Plots = []study.Plot{
	{CSV: "kaf-curves", PNG: "kaf-curves", Draw: drawCurves},
	{CSV: "speed-basis", PNG: "speed-gram", Draw: func(t *study.Table, _ string) (*study.Figure, error) { return drawBasis(t, "gram") }},
	{CSV: "speed-basis", PNG: "speed-angle", Draw: func(t *study.Table, _ string) (*study.Figure, error) { return drawBasis(t, "angle") }},
}

// output returns the learning curves (one row per step, one column per method) and the
// summary: the final test MSE (mean ± sd over trials) and the mean dictionary or feature
// size of every method.
func (r *PredictResult) output() study.Output {
	methods := r.methodsIn()
	t := study.NewTable(append([]string{"training_samples"}, methods...)...)
	for i, s := range r.Steps {
		rec := []any{s}
		for _, m := range methods {
			rec = append(rec, r.Curves[m][i])
		}
		t.Add(rec...)
	}
	o := r.Options
	var md strings.Builder
	fmt.Fprintf(&md, "### Mackey–Glass one-step prediction: %d trials, %d training and %d test samples, embedding %d, noise σ = %g, η = %g, kernel σ = %.4g\n\n",
		o.Trials, o.Train, o.Test, o.Order, o.Noise, o.Eta, o.Sigma)
	fmt.Fprintf(&md, "| method | final test MSE (mean ± sd) | features or dictionary size |\n|---|--:|--:|\n")
	for _, m := range methods {
		mean, sd := stats.MeanSD(r.Final[m])
		fmt.Fprintf(&md, "| %s | %.4g ± %.2g | %.0f |\n", m, mean, sd, r.Size[m])
	}
	return study.Output{Name: "kaf-curves", Table: t, Markdown: md.String()}
}

// curvePanels split the methods between the two columns of the learning curves: the
// baselines (LMS, KLMS and linear filters on explicit features), then the SPEED family
// and the KRLS filters, with KLMS repeated there as the reference.
var curvePanels = []struct {
	title     string
	methods   []string
	reference bool // KLMS again, in black
}{
	{"baselines", Methods[:8], false},
	{"SPEED and KRLS (KLMS for reference)", Methods[8:], true},
}

// Several curves of each column nearly coincide (KLMS, QKLMS and the filters on random
// and quadrature features; the SPEED variants), a few per cent apart on a logarithmic
// axis that spans three decades. So that each can be told apart, every curve carries a
// marker of its own every markEvery points, staggered so that the markers of coinciding
// curves do not cover each other, and a second row of panels shows each method's MSE
// relative to KLMS's on a linear axis (ratioMin to ratioMax), where those differences
// are large.
const (
	markEvery          = 10
	ratioMin, ratioMax = 0.0, 1.6
)

// drawCurves draws the learning curves from their table: two columns of panels, the test
// MSE above (sharing the logarithmic vertical axis) and the MSE relative to KLMS's
// below.
func drawCurves(t *study.Table, _ string) (*study.Figure, error) {
	steps, err := t.Floats("training_samples")
	if err != nil {
		return nil, err
	}
	var klms []float64
	if slices.Contains(t.Header, "KLMS") {
		if klms, err = t.Floats("KLMS"); err != nil {
			return nil, err
		}
	}
	f := &study.Figure{Title: "Mackey–Glass one-step prediction: test MSE while learning (mean over trials)", Columns: 2}
	var ratios []*study.Figure
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range curvePanels {
		panel := &study.Figure{Title: p.title, XLabel: "training samples", YLabel: "test MSE", LogY: true}
		ratio := &study.Figure{XLabel: "training samples", YLabel: "test MSE / KLMS's", YMin: ratioMin, YMax: ratioMax}
		type entry struct {
			label string
			y     []float64
			style study.Style
		}
		var entries []entry
		for i, m := range p.methods {
			if !slices.Contains(t.Header, m) {
				continue
			}
			y, err := t.Floats(m)
			if err != nil {
				return nil, err
			}
			entries = append(entries, entry{m, y, study.Style{Colour: i, Dash: i % 5, Marker: i%6 + 1}})
		}
		if p.reference && klms != nil {
			entries = append(entries, entry{"KLMS", klms, study.Style{Colour: study.Black, Dash: 1}})
		}
		for i, e := range entries {
			for _, v := range e.y {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
			// The first marker of curve i at point 2i mod markEvery, then every markEvery.
			first := 2 * i % markEvery
			panel.Curves = append(panel.Curves, marked(steps, e.y, e.style, first)...)
			panel.Keys = append(panel.Keys, study.Key{Label: e.label, Style: e.style})
			if klms != nil {
				r := make([]float64, len(e.y))
				for j, v := range e.y {
					r[j] = v / klms[j]
				}
				ratio.Curves = append(ratio.Curves, marked(steps, r, e.style, first)...)
			}
		}
		f.Panels = append(f.Panels, panel)
		ratios = append(ratios, ratio)
	}
	if hi >= lo {
		for _, p := range f.Panels {
			p.YMin, p.YMax = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
		}
	}
	if klms != nil {
		f.Panels = append(f.Panels, ratios...)
	}
	return f, nil
}

// marked returns a curve drawn as a line with its markers at every markEvery-th point
// from first only: the line in style without its marker, and the markers alone.
func marked(x, y []float64, style study.Style, first int) []study.Curve {
	line := style
	line.Marker = 0
	curves := []study.Curve{{X: x, Y: y, Style: line}}
	if style.Marker == 0 {
		return curves
	}
	var mx, my []float64
	for j := first; j < len(x); j += markEvery {
		mx, my = append(mx, x[j]), append(my, y[j])
	}
	dots := style
	dots.NoLine = true
	return append(curves, study.Curve{X: mx, Y: my, Style: dots})
}

// output returns both curves of the eigenmap (two blocks, told apart by the "figure"
// column) and their summary.
func (r *BasisResult) output() study.Output {
	t := study.NewTable("figure", "x", "value")
	for i, c := range r.Components {
		t.Add("gram_error_vs_components", c, r.GramError[i])
	}
	for i, s := range r.Sizes {
		t.Add("largest_principal_angle_vs_dictionary", s, r.Angle[i])
	}
	last := len(r.Angle) - 1
	md := fmt.Sprintf("Eigenmap of %d inputs: relative Gram reconstruction error %.3g with 30 eigenfunctions, %.3g with 50; iSPEED against batch SPEED (m = %d): largest principal angle %.2g rad at n = %d.",
		r.N, r.GramError[min(29, len(r.GramError)-1)], r.GramError[min(49, len(r.GramError)-1)], r.M, r.Angle[last], r.Sizes[last])
	return study.Output{Name: "speed-basis", Table: t, Markdown: md}
}

// drawBasis draws Figure 2 (which = "gram") or Figure 3 ("angle") of the SPEED paper
// from the table.
func drawBasis(t *study.Table, which string) (*study.Figure, error) {
	f := &study.Figure{LogY: true}
	block := "gram_error_vs_components"
	switch which {
	case "gram":
		f.Title, f.XLabel, f.YLabel = "Gram reconstruction by the eigenmap", "eigenfunctions m", "‖K − K_m‖_F / ‖K‖_F"
	case "angle":
		f.Title, f.XLabel, f.YLabel = "iSPEED against batch SPEED", "dictionary size", "largest angle (rad)"
		block = "largest_principal_angle_vs_dictionary"
	default:
		return nil, fmt.Errorf("study: unknown figure %q", which)
	}
	rows, err := t.Where("figure", block)
	if err != nil {
		return nil, err
	}
	cols, err := rows.FloatColumns("x", "value")
	if err != nil {
		return nil, err
	}
	x, y := cols[0], cols[1]
	st := study.Style{Colour: 0}
	if which == "angle" {
		st = study.Style{Colour: 3, Marker: 1}
	}
	f.Curves = []study.Curve{{X: x, Y: y, Style: st}}
	return f, nil
}
