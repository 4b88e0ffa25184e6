package kaf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ikpca/ikpca/internal/stats"
	"github.com/ikpca/ikpca/internal/study"
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

// curvePanels split the methods between the two panels of the learning curves: the
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

// drawCurves draws the learning curves from their table, in two panels that share the
// vertical axis.
func drawCurves(t *study.Table, _ string) (*study.Figure, error) {
	steps, err := t.Floats("training_samples")
	if err != nil {
		return nil, err
	}
	f := &study.Figure{Title: "Mackey–Glass one-step prediction: test MSE while learning (mean over trials)"}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range curvePanels {
		panel := &study.Figure{Title: p.title, XLabel: "training samples", YLabel: "test MSE", LogY: true}
		for i, m := range p.methods {
			if !slices.Contains(t.Header, m) {
				continue
			}
			y, err := t.Floats(m)
			if err != nil {
				return nil, err
			}
			for _, v := range y {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
			panel.Curves = append(panel.Curves, study.Curve{Label: m, X: steps, Y: y, Style: study.Style{Colour: i, Dash: i % 3}})
		}
		if p.reference && slices.Contains(t.Header, "KLMS") {
			y, err := t.Floats("KLMS")
			if err != nil {
				return nil, err
			}
			panel.Curves = append(panel.Curves, study.Curve{Label: "KLMS", X: steps, Y: y, Style: study.Style{Colour: study.Black, Dash: 1}})
		}
		f.Panels = append(f.Panels, panel)
	}
	if hi >= lo {
		for _, p := range f.Panels {
			p.YMin, p.YMax = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
		}
	}
	return f, nil
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
