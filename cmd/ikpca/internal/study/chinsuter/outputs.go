package chinsuter

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/stats"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Plots draw the figures timing, projections and stream from the tables of the same
// names.
var Plots = []study.Plot{
	{CSV: "timing", PNG: "timing", Draw: drawTiming},
	{CSV: "projections", PNG: "projections", Draw: drawProjections},
	{CSV: "stream", PNG: "stream", Draw: drawStream},
}

// styles are the methods' colours and markers in every figure.
var styles = map[string]study.Style{
	methodBatch:   {Colour: study.Black, Marker: 1},
	methodCS:      {Colour: 3, Marker: 4},
	methodKHA:     {Colour: 0, Marker: 5},
	methodOurs:    {Colour: 2, Marker: 3},
	methodCSExact: {Colour: 1, Marker: 2},
}

// shortNames label the projection plots' legends.
var shortNames = map[string]string{methodBatch: "batch KPCA", methodCS: "Chin–Suter", methodKHA: "KHA",
	methodOurs: "ikpca exact", methodCSExact: "Chin–Suter exact"}

// outputs returns the tables, with their parts of the summary.
func (r *Result) outputs() []study.Output {
	outs := []study.Output{r.timingOutput()}
	if len(r.Projections) > 0 {
		outs = append(outs, r.projectionsOutput())
	}
	if len(r.Stream) > 0 {
		outs = append(outs, r.streamOutput())
	}
	if len(r.Cost) > 0 {
		outs = append(outs, r.costOutput())
	}
	return outs
}

// timingOutput returns the training times (one row per size and method), and the
// summary of the times and of the exact form's accuracy.
func (r *Result) timingOutput() study.Output {
	t := study.NewTable("n", "method", "seconds", "backend")
	for _, row := range r.Timing {
		t.Add(row.N, row.Method, row.Seconds, r.Backend)
	}
	o := r.Options
	var w strings.Builder
	fmt.Fprintf(&w, "### Training time on the toy (x ~ U[−1, 1], y = x² + N(0, 0.2²), RBF σ = 1), %s\n\n", r.Backend)
	fmt.Fprintf(&w, "Chin–Suter compressed: r = %d, n′ = %d (at most %d pre-images), chunks of c = %d. KHA: %d components, %d passes, η = %g. "+
		"Exact incremental models up to n = %d (on a full-rank kernel matrix their total cost grows as n⁴).\n\n",
		o.Components, o.PreImages, (o.Components+1)*o.PreImages, o.Chunk, o.Components, o.KHAPasses, o.KHARate, o.ExactMax)
	fmt.Fprintf(&w, "| n |")
	for _, m := range methods {
		fmt.Fprintf(&w, " %s (s) |", m)
	}
	fmt.Fprintf(&w, "\n|--:|%s\n", strings.Repeat("--:|", len(methods)))
	for _, n := range o.Sizes {
		fmt.Fprintf(&w, "| %d |", n)
		for _, m := range methods {
			cell := "—"
			for _, row := range r.Timing {
				if row.N == n && row.Method == m {
					cell = fmt.Sprintf("%.3g", row.Seconds)
				}
			}
			fmt.Fprintf(&w, " %s |", cell)
		}
		fmt.Fprintln(&w)
	}
	fmt.Fprintf(&w, "| fitted exponent |")
	for _, m := range methods {
		if e, ok := r.Exponents[m]; ok {
			fmt.Fprintf(&w, " %.2f |", e)
		} else {
			fmt.Fprintf(&w, " — |")
		}
	}
	fmt.Fprintln(&w)
	if len(r.Exact) > 0 {
		fmt.Fprintf(&w, "\nExact Chin–Suter against batch kernel PCA after the whole stream, one point at a time (subspaces in explicit feature coordinates):\n\n"+
			"| n | components kept | batch λ > 1e-10·λ₁ | max \\|Δλ\\|/λ₁ | top k (gap ≥ 1e-3·λ₁) | sin θ (top k) | ‖YᵀY − I‖₂ (top k) |\n|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, e := range r.Exact {
			fmt.Fprintf(&w, "| %d | %d | %d | %.1e | %d | %.1e | %.1e |\n", e.N, e.Kept, e.Batch, e.MaxEigenError, e.TopK, e.Sine, e.Orthogonality)
		}
	}
	return study.Output{Name: "timing", Table: t, Markdown: w.String()}
}

// projectionsOutput returns the projections of the training points (one row per point
// and component: batch and each method) and the summary of their differences.
func (r *Result) projectionsOutput() study.Output {
	t := study.NewTable("component", "x", "batch", "chin_suter", "kha")
	for _, s := range r.Projections {
		for i := range s.X {
			t.Add(s.Component, s.X[i], s.Batch[i], s.Methods[methodCS][i], s.Methods[methodKHA][i])
		}
	}
	var w strings.Builder
	fmt.Fprintf(&w, "Projections of the %d training points onto the first components, relative RMS difference from batch "+
		"(after aligning signs):\n\n| component | Chin–Suter (compressed) | KHA |\n|--:|--:|--:|\n", r.ProjN)
	for _, s := range r.Projections {
		fmt.Fprintf(&w, "| %d | %.3g | %.3g |\n", s.Component, s.RelRMS[methodCS], s.RelRMS[methodKHA])
	}
	return study.Output{Name: "projections", Table: t, Markdown: w.String()}
}

// streamOutput returns the long-stream checkpoints and their summary.
func (r *Result) streamOutput() study.Output {
	t := study.NewTable("chunk", "n", "sine_top1", "sine_top3", "lambda1_rel_error", "orthogonality", "expansion",
		"budget", "bytes", "residual_components", "residual_mean", "train_s_per_point", "batch_s_at_n", "components")
	for _, s := range r.Stream {
		t.Add(s.Chunk, s.N, s.Sine1, s.Sine3, s.Lambda1Rel, s.Orthogonality, s.Expansion, s.PreImagesBudget, s.Bytes,
			s.ResidualComponents, s.ResidualMean, s.SecondsPerPoint, s.BatchSecondsAtN, s.Rank)
	}
	o := r.Options
	var w strings.Builder
	fmt.Fprintf(&w, "### Compressed Chin–Suter over a stream of %d toy points (r = %d, n′ = %d)\n\n", o.StreamN, o.Components, o.PreImages)
	fmt.Fprintf(&w, "| chunk c | n | sin θ top 1 | sin θ top 3 | λ₁ rel. error | ‖α′ᵀK′α′ − I‖₂ | pre-images (budget) | bytes | residual axes / mean | µs per point |\n"+
		"|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range r.Stream {
		fmt.Fprintf(&w, "| %d | %d | %.3g | %.3g | %.2g | %.1e | %d (%d) | %d | %.2g / %.2g | %.0f |\n", s.Chunk, s.N, s.Sine1, s.Sine3,
			s.Lambda1Rel, s.Orthogonality, s.Expansion, s.PreImagesBudget, s.Bytes, s.ResidualComponents, s.ResidualMean, s.SecondsPerPoint*1e6)
	}
	return study.Output{Name: "stream", Table: t, Markdown: w.String()}
}

// costOutput returns the per-point costs and their summary.
func (r *Result) costOutput() study.Output {
	t := study.NewTable("m", "dgemm_s", "svd_of_F_s", "chin_suter_s", "bordered_s", "paper_s", "chin_suter_components",
		"chin_suter_x_dgemm", "bordered_x_dgemm", "paper_x_dgemm", "chin_suter_flops_m3", "bordered_flops_m3", "paper_flops_m3", "backend")
	for _, c := range r.Cost {
		t.Add(c.M, c.Dgemm, c.SVD, c.ChinSuter, c.Bordered, c.Paper, c.CSComponents, c.ChinSuter/c.Dgemm, c.Bordered/c.Dgemm,
			c.Paper/c.Dgemm, c.CSFlops, c.BorderedFlops, c.PaperFlops, r.Backend)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "### Per-point cost of the exact updates (10-D Gaussian points, RBF σ = √10, all components kept), %s\n\n", r.Backend)
	fmt.Fprintf(&w, "Each step is paired with one m×m×m dgemm (2m³ flops) timed just before it; \"× dgemm\" is the median step "+
		"over the median dgemm, so 2 × (× dgemm) is the dgemm-equivalent cost in units of m³.\n\n")
	fmt.Fprintf(&w, "| m | dgemm | Chin–Suter exact | × dgemm (m³-equiv.) | SVD of F alone | ikpca bordered | × dgemm (m³-equiv.) | seed paper (4 rank-one) | × dgemm (m³-equiv.) | Chin–Suter ÷ bordered |\n"+
		"|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, c := range r.Cost {
		fmt.Fprintf(&w, "| %d | %s | %s | %.2f (%.1f) | %s | %s | %.2f (%.1f) | %s | %.2f (%.1f) | %.1f |\n", c.M, secs(c.Dgemm),
			secs(c.ChinSuter), c.ChinSuter/c.Dgemm, 2*c.ChinSuter/c.Dgemm, secs(c.SVD),
			secs(c.Bordered), c.Bordered/c.Dgemm, 2*c.Bordered/c.Dgemm,
			secs(c.Paper), c.Paper/c.Dgemm, 2*c.Paper/c.Dgemm, c.ChinSuter/c.Bordered)
	}
	fmt.Fprintf(&w, "\nFlops counted from the operations performed: Chin–Suter ≈ 16m³ (K_A·α 2m³, new coefficients 2m³, "+
		"the SVD of F ≈ 12m³ by Golub and Van Loan's count, computed by LAPACK dgesdd with OpenBLAS); ikpca bordered ≈ 2m³ (one dgemm); the seed paper's four rank-one updates ≈ 8m³.\n")
	return study.Output{Name: "cost", Table: t, Markdown: w.String()}
}

func secs(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.0f µs", s*1e6)
}

// drawTiming draws the training times against n, log–log, each method labelled with
// the exponent fitted to its times.
func drawTiming(t *study.Table, _ string) (*study.Figure, error) {
	backend := ""
	if b, err := t.Strings("backend"); err == nil && len(b) > 0 {
		backend = " (" + b[0] + ")"
	}
	f := &study.Figure{Title: "Training time on the toy" + backend, XLabel: "n (points)", YLabel: "seconds",
		LogX: true, LogY: true}
	for _, m := range methods {
		rows, err := t.Where("method", m)
		if err != nil {
			return nil, err
		}
		if len(rows.Rows) == 0 {
			continue
		}
		cols, err := rows.FloatColumns("n", "seconds")
		if err != nil {
			return nil, err
		}
		ns, ts := cols[0], cols[1]
		label := shortNames[m]
		if len(ns) >= 2 {
			label = fmt.Sprintf("%s, n^%.2f", label, stats.LogSlope(ns, ts))
		}
		f.Curves = append(f.Curves, study.Curve{Label: label, X: ns, Y: ts, Style: styles[m]})
	}
	return f, nil
}

// drawStream draws the principal-angle sines to batch against n, for each chunk size.
func drawStream(t *study.Table, _ string) (*study.Figure, error) {
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%w: no rows", study.ErrTable)
	}
	f := &study.Figure{Title: "Compressed Chin–Suter against batch KPCA", XLabel: "n (points streamed)",
		YLabel: "sine of largest angle", LogY: true}
	head, err := firstInts(t, "components", "budget")
	if err != nil {
		return nil, err
	}
	if r := head[0]; r > 0 {
		f.Title = fmt.Sprintf("Compressed Chin–Suter against batch (r = %d, n′ = %d)", r, head[1]/(r+1))
	}
	chunks, err := t.Distinct("chunk")
	if err != nil {
		return nil, err
	}
	for i, c := range chunks {
		rows, err := t.Where("chunk", c)
		if err != nil {
			return nil, err
		}
		ns, err := rows.Floats("n")
		if err != nil {
			return nil, err
		}
		for j, col := range []string{"sine_top1", "sine_top3"} {
			y, err := rows.Floats(col)
			if err != nil {
				return nil, err
			}
			label := fmt.Sprintf("top %d, c = %s", 1+2*j, c)
			f.Curves = append(f.Curves, study.Curve{Label: label, X: ns, Y: y, Style: study.Style{Colour: 3 * i, Dash: j, Marker: 1 + j}})
		}
	}
	return f, nil
}

// firstInts returns the named columns of the table's first row as integers.
func firstInts(t *study.Table, names ...string) ([]int, error) {
	out := make([]int, len(names))
	for i, name := range names {
		v, err := t.Strings(name)
		if err != nil {
			return nil, err
		}
		if out[i], err = strconv.Atoi(v[0]); err != nil {
			return nil, fmt.Errorf("%w: column %q: %q is not an integer", study.ErrTable, name, v[0])
		}
	}
	return out, nil
}

// drawProjections draws, one panel per component, the projections of the training
// points against their first coordinate: batch, Chin–Suter and KHA, with each method's
// relative RMS difference from batch.
func drawProjections(t *study.Table, _ string) (*study.Figure, error) {
	comps, err := t.Distinct("component")
	if err != nil {
		return nil, err
	}
	if len(comps) == 0 {
		return nil, fmt.Errorf("%w: no projections", study.ErrTable)
	}
	f := &study.Figure{Title: "Projections of the training points onto the first components", Width: 4}
	for _, c := range comps {
		rows, err := t.Where("component", c)
		if err != nil {
			return nil, err
		}
		cols, err := rows.FloatColumns("x", "batch")
		if err != nil {
			return nil, err
		}
		x, batch := cols[0], cols[1]
		p := &study.Figure{Title: fmt.Sprintf("component %s (n = %d)", c, len(x)), XLabel: "x", YLabel: "projection", Legend: study.Auto}
		st := styles[methodBatch]
		st.NoLine, st.Colour = true, study.Grey
		p.Curves = append(p.Curves, study.Curve{Label: methodBatch, X: x, Y: batch, Style: st})
		for _, m := range []struct{ name, column string }{{methodCS, "chin_suter"}, {methodKHA, "kha"}} {
			y, err := rows.Floats(m.column)
			if err != nil {
				return nil, err
			}
			var num, den float64
			for i := range y {
				num += (y[i] - batch[i]) * (y[i] - batch[i])
				den += batch[i] * batch[i]
			}
			st := styles[m.name]
			st.NoLine = true
			label := fmt.Sprintf("%s, rel. RMS %.1g", shortNames[m.name], sqrtRatio(num, den))
			p.Curves = append(p.Curves, study.Curve{Label: label, X: x, Y: y, Style: st})
		}
		f.Panels = append(f.Panels, p)
	}
	return f, nil
}

// sqrtRatio returns √(num/den), the relative RMS difference from sums of squares.
func sqrtRatio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return math.Sqrt(num / den)
}
