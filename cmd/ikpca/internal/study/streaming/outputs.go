package streaming

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/stats"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Plots draw the figures from their tables: skpca-DATASET-ell, -memory and -time from
// skpca-DATASET, toy from toy-curves, rff from rff.
var Plots = []study.Plot{
	{CSV: "skpca-*", PNG: "skpca-*-ell", Draw: func(t *study.Table, _ string) (*study.Figure, error) { return drawApprox(t, "ell") }},
	{CSV: "skpca-*", PNG: "skpca-*-memory", Draw: func(t *study.Table, _ string) (*study.Figure, error) { return drawApprox(t, "memory") }},
	{CSV: "skpca-*", PNG: "skpca-*-time", Draw: func(t *study.Table, _ string) (*study.Figure, error) { return drawApprox(t, "time") }},
	{CSV: "toy-curves", PNG: "toy", Draw: drawToy},
	{CSV: "rff", PNG: "rff", Draw: drawRFF},
}

// output returns the comparison's table (one row per method and ℓ) and its summary.
func (r *ApproxResult) output() study.Output {
	o := r.Options
	t := study.NewTable("dataset", "n", "features", "sigma", "method", "ell", "spectral_error", "error_over_n",
		"relative_error", "certified_bound", "bytes", "train_s", "test_s", "lambda1", "lambda2", "lambda3", "lambda4", "lambda5")
	for _, row := range r.Rows {
		rec := []any{o.Dataset, o.N, o.Features, r.Sigma, row.Method, row.Ell, row.Spectral, row.OverN, row.Relative, row.Bound,
			row.Bytes, row.Train.Seconds(), row.Test.Seconds()}
		for i := range 5 {
			v := math.NaN()
			if i < len(row.Values) {
				v = row.Values[i]
			}
			rec = append(rec, v)
		}
		t.Add(rec...)
	}

	var md strings.Builder
	fmt.Fprintf(&md, "### %s: n = %d training and %d test points, D = %d features, σ = %.4g\n\n", o.Dataset, o.N, o.Test, o.Features, r.Sigma)
	fmt.Fprintf(&md, "‖G‖₂ = %.4g; the feature map's own error ‖G − ZZᵀ‖₂/n = %.4g.", r.NormG, r.RFFError/float64(o.N))
	if o.Exact {
		fmt.Fprintf(&md, " Exact model: %v per incremental step at m = n (batch start %v); its train time is n times that, an upper bound on streaming all n points (earlier steps are cheaper).",
			r.StepTime.Round(10*time.Microsecond), r.BatchTime.Round(time.Millisecond))
	}
	fmt.Fprintf(&md, "\n\n| method | ℓ | ‖G−G̃‖₂/n | ‖G−G̃‖₂/‖G‖₂ | certified bound /n | memory KiB | train s | test s | λ₁ estimate |\n")
	fmt.Fprintf(&md, "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, m := range approxMethods {
		for _, row := range r.Rows {
			if row.Method != m {
				continue
			}
			bound := ""
			if !math.IsNaN(row.Bound) {
				bound = fmt.Sprintf("%.4g", row.Bound/float64(o.N))
			}
			l1 := ""
			if len(row.Values) > 0 {
				l1 = fmt.Sprintf("%.5g", row.Values[0])
			}
			fmt.Fprintf(&md, "| %s | %d | %.4g | %.4g | %s | %.0f | %.3g | %.3g | %s |\n", row.Method, row.Ell, row.OverN, row.Relative,
				bound, float64(row.Bytes)/1024, row.Train.Seconds(), row.Test.Seconds(), l1)
		}
	}
	return study.Output{Name: "skpca-" + o.Dataset, Table: t, Markdown: md.String()}
}

// drawApprox draws the comparison from its table: ‖G − G̃‖₂/n against ℓ (x = "ell") or
// against the memory in bytes (x = "memory", log–log), or the training and test times
// against ℓ (x = "time").
func drawApprox(t *study.Table, x string) (*study.Figure, error) {
	head, err := t.Firsts("dataset", "n", "features")
	if err != nil {
		return nil, err
	}
	f := &study.Figure{Title: fmt.Sprintf("%s, n = %s, D = %s", head["dataset"], head["n"], head["features"]), LogY: true}
	xcol, ycol := "ell", "error_over_n"
	switch x {
	case "ell":
		f.XLabel, f.YLabel, f.Legend = "ℓ (sketch rows, landmarks, components)", "‖G − G_approx‖₂ / n", study.TopRight
	case "memory":
		f.XLabel, f.YLabel, f.LogX, f.Legend = "memory (bytes)", "‖G − G_approx‖₂ / n", true, study.BottomLeft
		xcol = "bytes"
	case "time":
		f.XLabel, f.YLabel = "ℓ", "seconds"
		ycol = "train_s"
	default:
		return nil, fmt.Errorf("study: unknown plot %q", x)
	}
	for i, m := range approxMethods {
		rows, err := t.Where("method", m)
		if err != nil {
			return nil, err
		}
		if len(rows.Rows) == 0 {
			continue
		}
		xs, err := rows.Floats(xcol)
		if err != nil {
			return nil, err
		}
		ys, err := rows.Floats(ycol)
		if err != nil {
			return nil, err
		}
		st := study.Style{Colour: i, Marker: i + 1}
		if m == "exact" {
			st.Colour = study.Black
		}
		f.Curves = append(f.Curves, study.Curve{Label: m, X: xs, Y: ys, Style: st})
		if x == "time" {
			test, err := rows.Floats("test_s")
			if err != nil {
				return nil, err
			}
			st.Dash = 1
			f.Curves = append(f.Curves, study.Curve{X: xs, Y: test, Style: st})
			f.Keys = append(f.Keys, study.Key{Label: m, Style: study.Style{Colour: st.Colour, Marker: st.Marker}})
		}
	}
	if x == "time" {
		f.Keys = append(f.Keys, study.Key{Label: "training", Style: study.Style{Colour: study.Grey}},
			study.Key{Label: "test points", Style: study.Style{Colour: study.Grey, Dash: 1}})
	}
	return f, nil
}

// outputs returns the toy's outputs: the table of the runs (the exact eigenvalues, both
// methods' final estimates and the passes each needed to converge) with the summary,
// and the convergence curves (the mean over runs of the largest relative eigenvalue
// error after each pass).
func (r *ToyResult) outputs() []study.Output {
	runs := study.NewTable("run", "exact1", "exact2", "exact3", "krqa1", "krqa2", "krqa3", "krqa_own1", "krqa_own2", "krqa_own3",
		"kha1", "kha2", "kha3", "krqa_passes", "kha_passes")
	for i, run := range r.Runs {
		rec := []any{i + 1}
		for _, v := range [][3]float64{run.Exact, run.KRQA, run.KRQAOwn, run.KHA} {
			for _, x := range v {
				rec = append(rec, x)
			}
		}
		runs.Add(append(rec, run.KRQAPasses, run.KHAPasses)...)
	}
	krqa, kha := r.curves()
	curves := study.NewTable("pass", "krqa_mean_max_relative_error", "kha_mean_max_relative_error")
	for p := range krqa {
		curves.Add(p+1, krqa[p], kha[p])
	}
	return []study.Output{{Name: "toy", Table: runs, Markdown: r.markdown()}, {Name: "toy-curves", Table: curves}}
}

// markdown returns the table of the seed paper: mean ± sd over the runs of each
// eigenvalue, exact and estimated, the mean absolute errors and the passes to converge.
func (r *ToyResult) markdown() string {
	o := r.Options
	var md strings.Builder
	fmt.Fprintf(&md, "### Online kernel PCA on the toy: %d runs, N = %d, %d passes; KHA η₀ = %g, τ = %g\n\n", len(r.Runs), o.N, o.Passes, o.KHARate, o.KHADecay)
	fmt.Fprintf(&md, "| | λ₁ | λ₂ | λ₃ |\n|---|--:|--:|--:|\n")
	col := func(f func(ToyRun) float64) string {
		v := make([]float64, len(r.Runs))
		for i, run := range r.Runs {
			v[i] = f(run)
		}
		m, s := stats.MeanSD(v)
		return fmt.Sprintf("%.5g ± %.2g", m, s)
	}
	rows := []struct {
		name string
		f    func(ToyRun, int) float64
	}{
		{"exact eig(K̃)/N", func(r ToyRun, i int) float64 { return r.Exact[i] }},
		{"KRQA (Rayleigh quotient)", func(r ToyRun, i int) float64 { return r.KRQA[i] }},
		{"KRQA (own estimate uᵀP)", func(r ToyRun, i int) float64 { return r.KRQAOwn[i] }},
		{"KHA (Rayleigh quotient)", func(r ToyRun, i int) float64 { return r.KHA[i] }},
		{"KRQA |error|", func(r ToyRun, i int) float64 { return math.Abs(r.KRQA[i] - r.Exact[i]) }},
		{"KRQA own |error|", func(r ToyRun, i int) float64 { return math.Abs(r.KRQAOwn[i] - r.Exact[i]) }},
		{"KHA |error|", func(r ToyRun, i int) float64 { return math.Abs(r.KHA[i] - r.Exact[i]) }},
	}
	for _, row := range rows {
		fmt.Fprintf(&md, "| %s |", row.name)
		for i := range 3 {
			fmt.Fprintf(&md, " %s |", col(func(r ToyRun) float64 { return row.f(r, i) }))
		}
		fmt.Fprintln(&md)
	}
	kp, kh := make([]int, len(r.Runs)), make([]int, len(r.Runs))
	for i, run := range r.Runs {
		kp[i], kh[i] = run.KRQAPasses, run.KHAPasses
	}
	say := func(v []int) string {
		m, never, ok := medianPasses(v)
		if !ok {
			return fmt.Sprintf("more than %d (%d of %d runs never got there)", o.Passes, never, len(v))
		}
		return fmt.Sprintf("%.0f, i.e. %.0f presentations (%d of %d runs never got there)", m, m*float64(o.N), never, len(v))
	}
	fmt.Fprintf(&md, "\nPasses until every relative eigenvalue error is below %g, median over runs: KRQA %s; KHA %s.\n",
		o.Tolerance, say(kp), say(kh))
	return md.String()
}

// drawToy draws the convergence curves from their table.
func drawToy(t *study.Table, _ string) (*study.Figure, error) {
	pass, err := t.Floats("pass")
	if err != nil {
		return nil, err
	}
	f := &study.Figure{Title: "Online kernel PCA on the toy (mean over runs)", XLabel: "pass",
		YLabel: "largest relative error", LogY: true, Legend: study.TopRight}
	for i, m := range []string{"KRQA", "KHA"} {
		y, err := t.Floats(strings.ToLower(m) + "_mean_max_relative_error")
		if err != nil {
			return nil, err
		}
		f.Curves = append(f.Curves, study.Curve{Label: m, X: pass, Y: y, Style: study.Style{Colour: i, Dash: i}})
	}
	return f, nil
}

// output returns the random-feature convergence: one row per form and dimension, and
// the summary of the rates.
func (r *RFFResult) output() study.Output {
	t := study.NewTable("dataset", "n", "sigma", "form", "features", "rms_error", "max_error", "rms_times_sqrt_D")
	for _, form := range rffForms {
		for i, D := range r.Dims {
			t.Add(r.Dataset, r.N, r.Sigma, form.String(), D, r.RMS[form][i], r.Max[form][i], r.RMS[form][i]*math.Sqrt(float64(D)))
		}
	}
	var md strings.Builder
	last := len(r.Dims) - 1
	fmt.Fprintf(&md, "### Random Fourier features on %s (%d points, σ = %.4g, %d seeds)\n\n", r.Dataset, r.N, r.Sigma, r.Seeds)
	fmt.Fprintf(&md, "| form | RMS error at D = %d | at D = %d | fitted exponent (−0.5 is O(1/√D)) | RMS·√D at D = %d |\n|---|--:|--:|--:|--:|\n",
		r.Dims[0], r.Dims[last], r.Dims[last])
	for _, form := range rffForms {
		fmt.Fprintf(&md, "| %s | %.4g | %.4g | %.3f | %.3f |\n", form, r.RMS[form][0], r.RMS[form][last], r.Slope[form],
			r.RMS[form][last]*math.Sqrt(float64(r.Dims[last])))
	}
	return study.Output{Name: "rff", Table: t, Markdown: md.String()}
}

// drawRFF draws the RMS and largest errors against D on log–log axes, with the O(1/√D)
// rate for reference.
func drawRFF(t *study.Table, _ string) (*study.Figure, error) {
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%w: no rows", study.ErrTable)
	}
	ds, err := t.Strings("dataset")
	if err != nil {
		return nil, err
	}
	forms, err := t.Distinct("form")
	if err != nil {
		return nil, err
	}
	f := &study.Figure{Title: fmt.Sprintf("Random Fourier features, %s: error of z(x)ᵀz(y)", ds[0]), XLabel: "D (features)",
		YLabel: "error", LogX: true, LogY: true, Legend: study.BottomLeft}
	var ref []float64
	var dims []float64
	for k, form := range forms {
		rows, err := t.Where("form", form)
		if err != nil {
			return nil, err
		}
		cols, err := rows.FloatColumns("features", "rms_error", "max_error")
		if err != nil {
			return nil, err
		}
		D, rms, mx := cols[0], cols[1], cols[2]
		f.Curves = append(f.Curves, study.Curve{Label: form + ", RMS", X: D, Y: rms, Style: study.Style{Colour: k, Marker: 1}},
			study.Curve{Label: form + ", largest", X: D, Y: mx, Style: study.Style{Colour: k, Dash: 1, Marker: 2}})
		if k == 0 && len(D) > 0 {
			dims = D
			for _, d := range D {
				ref = append(ref, rms[0]*math.Sqrt(D[0]/d))
			}
		}
	}
	if ref != nil {
		f.Curves = append(f.Curves, study.Curve{Label: "1/√D rate", X: slices.Clone(dims), Y: ref, Style: study.Style{Colour: study.Black, Dash: 2}})
	}
	return f, nil
}
