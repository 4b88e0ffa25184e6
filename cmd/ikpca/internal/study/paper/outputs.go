package paper

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Plots draw Figure 1 (fig1-DATASET.png) and Figure 2 (fig2-DATASET.png) from their
// tables.
var Plots = []study.Plot{
	{CSV: "fig1-*", PNG: "fig1-*", Draw: drawDrift},
	{CSV: "fig2-*", PNG: "fig2-*", Draw: drawNystrom},
}

// driftCurves are Figure 1's three kinds of curve: column prefix, legend label and dash
// pattern, in drawing order (the mean last, on top).
var driftCurves = []struct {
	column, label string
	dash          int
}{
	{"paper", "paper's algorithm", 2},
	{"single", "file order", 1},
	{"mean", "mean, random orders", 0},
}

// Table returns Figure 1's numbers: one row per model size m, with the three norms of
// the file-order run, of the mean over random orders and of the paper's algorithm (empty
// if it did not run).
func (r *DriftResult) Table() *study.Table {
	header := []string{"m"}
	for _, s := range []string{"single", "mean", "paper"} {
		for _, n := range NormNames {
			header = append(header, s+"_"+n)
		}
	}
	t := study.NewTable(header...)
	for i, m := range r.M {
		row := []any{m}
		for _, s := range []Series{r.Single, r.Mean, r.Paper} {
			for k := range 3 {
				v := math.NaN()
				if s[k] != nil {
					v = s[k][i]
				}
				row = append(row, v)
			}
		}
		t.Add(row...)
	}
	return t
}

// output returns Figure 1's output for a data set of n points and bandwidth σ.
func (r *DriftResult) output(dataset string, n int, sigma float64) study.Output {
	last := len(r.M) - 1
	md := fmt.Sprintf("**%s** (%d points, RBF kernel, σ = %.4g: the median distance). Figure 1: at m = %d the drift ‖K' − VΛVᵀ‖_F is %.2g",
		dataset, n, sigma, r.M[last], r.Single[Frobenius][last])
	if r.Runs > 0 {
		md = fmt.Sprintf("%s in file order and %.2g on average over %d random orders", md, r.Mean[Frobenius][last], r.Runs)
	}
	if r.Paper[Frobenius] != nil {
		md = fmt.Sprintf("%s; the paper's algorithm %.2g", md, r.Paper[Frobenius][last])
	}
	return study.Output{Name: "fig1-" + dataset, Table: r.Table(), Markdown: md + "."}
}

// drawDrift draws Figure 1 from its table: the three norms of the drift against m on a
// logarithmic scale, one colour per norm, solid for the mean over random orders, dashed
// for the file-order run, dotted for the paper's algorithm.
func drawDrift(t *study.Table, dataset string) (*study.Figure, error) {
	m, err := t.Floats("m")
	if err != nil {
		return nil, err
	}
	f := &study.Figure{Title: fmt.Sprintf("Figure 1, %s: drift of the decomposition", dataset),
		XLabel: "m (points in the model)", YLabel: "‖K' − VΛVᵀ‖", LogY: true}
	for k, norm := range NormNames {
		f.Keys = append(f.Keys, study.Key{Label: norm, Style: study.Style{Colour: k}})
	}
	var kinds []study.Key
	for _, c := range driftCurves {
		present := false
		for k, norm := range NormNames {
			y, err := t.Floats(c.column + "_" + norm)
			if err != nil {
				return nil, err
			}
			if allNaN(y) {
				continue
			}
			present = true
			f.Curves = append(f.Curves, study.Curve{X: m, Y: y, Style: study.Style{Colour: k, Dash: c.dash}})
		}
		if present {
			kinds = append([]study.Key{{Label: c.label, Style: study.Style{Colour: study.Grey, Dash: c.dash}}}, kinds...)
		}
	}
	f.Keys = append(f.Keys, kinds...)
	return f, nil
}

func allNaN(v []float64) bool {
	for _, x := range v {
		if !math.IsNaN(x) {
			return false
		}
	}
	return true
}

// Table returns Figure 2's numbers: one row per number of landmarks m, with the three
// norms of K − K̃ₘ, absolute and relative to ‖K‖_F.
func (r *NystromResult) Table() *study.Table {
	header := []string{"m"}
	header = append(header, NormNames[:]...)
	for _, n := range NormNames {
		header = append(header, n+"_relative")
	}
	t := study.NewTable(header...)
	for i, m := range r.M {
		row := []any{m}
		for k := range 3 {
			row = append(row, r.Errors[k][i])
		}
		for k := range 3 {
			row = append(row, r.Errors[k][i]/r.Norm)
		}
		t.Add(row...)
	}
	return t
}

// output returns Figure 2's output for a data set.
func (r *NystromResult) output(dataset string) study.Output {
	last := len(r.M) - 1
	md := fmt.Sprintf("Figure 2 (the first %d points): with %d landmarks ‖K − K̃‖_F = %.3g, %.2g of ‖K‖_F.",
		r.N, r.M[last], r.Errors[Frobenius][last], r.Errors[Frobenius][last]/r.Norm)
	return study.Output{Name: "fig2-" + dataset, Table: r.Table(), Markdown: md}
}

// drawNystrom draws Figure 2 from its table: the three norms of K − K̃ₘ against m on a
// logarithmic scale.
func drawNystrom(t *study.Table, dataset string) (*study.Figure, error) {
	m, err := t.Floats("m")
	if err != nil {
		return nil, err
	}
	f := &study.Figure{Title: fmt.Sprintf("Figure 2, %s: incremental Nyström error", dataset),
		XLabel: "m (landmarks)", YLabel: "‖K − K_nys‖", LogY: true, Legend: study.TopRight}
	for k, norm := range NormNames {
		y, err := t.Floats(norm)
		if err != nil {
			return nil, err
		}
		f.Curves = append(f.Curves, study.Curve{Label: norm, X: m, Y: y, Style: study.Style{Colour: k, Dash: k}})
	}
	return f, nil
}
