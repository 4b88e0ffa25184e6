package experiment

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// streamingMethods are the methods of Streaming in table and legend order.
var streamingMethods = []string{"SKPCA", "RNCA", "Nystrom", "exact"}

var methodColours = map[string]color.RGBA{
	"SKPCA":   {R: 0xd6, G: 0x27, B: 0x28, A: 255},
	"RNCA":    {R: 0x1f, G: 0x77, B: 0xb4, A: 255},
	"Nystrom": {R: 0x2c, G: 0xa0, B: 0x2c, A: 255},
	"exact":   {R: 0x40, G: 0x40, B: 0x40, A: 255},
	"KRQA":    {R: 0xd6, G: 0x27, B: 0x28, A: 255},
	"KHA":     {R: 0x1f, G: 0x77, B: 0xb4, A: 255},
}

func g6(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// WriteStreamingCSV writes one row per method and ℓ.
func WriteStreamingCSV(w io.Writer, r *StreamingResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"dataset", "n", "features", "sigma", "method", "ell", "spectral_error", "error_over_n",
		"relative_error", "certified_bound", "bytes", "train_s", "test_s", "lambda1", "lambda2", "lambda3", "lambda4", "lambda5"})
	o := r.Options
	for _, row := range r.Rows {
		rec := []string{o.Dataset, strconv.Itoa(o.N), strconv.Itoa(o.Features), g6(r.Sigma), row.Method, strconv.Itoa(row.Ell),
			g6(row.Spectral), g6(row.OverN), g6(row.Relative), "", strconv.Itoa(row.Bytes),
			g6(row.Train.Seconds()), g6(row.Test.Seconds())}
		if !math.IsNaN(row.Bound) {
			rec[9] = g6(row.Bound)
		}
		for i := range 5 {
			if i < len(row.Values) {
				rec = append(rec, g6(row.Values[i]))
			} else {
				rec = append(rec, "")
			}
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteStreamingMarkdown writes the comparison as a markdown table.
func WriteStreamingMarkdown(w io.Writer, r *StreamingResult) error {
	o := r.Options
	fmt.Fprintf(w, "### %s: n = %d training and %d test points, D = %d features, σ = %.4g\n\n", o.Dataset, o.N, o.Test, o.Features, r.Sigma)
	fmt.Fprintf(w, "‖G‖₂ = %.4g; the feature map's own error ‖G − ZZᵀ‖₂/n = %.4g.", r.NormG, r.RFFError/float64(o.N))
	if o.Exact {
		fmt.Fprintf(w, " Exact model: %v per incremental step at m = n (batch start %v); its train time is n times that, an upper bound on streaming all n points (earlier steps are cheaper).",
			r.StepTime.Round(10e3), r.BatchTime.Round(1e6))
	}
	fmt.Fprintf(w, "\n\n| method | ℓ | ‖G−G̃‖₂/n | ‖G−G̃‖₂/‖G‖₂ | certified bound /n | memory KiB | train s | test s | λ₁ estimate |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, m := range streamingMethods {
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
			fmt.Fprintf(w, "| %s | %d | %.4g | %.4g | %s | %.0f | %.3g | %.3g | %s |\n", row.Method, row.Ell, row.OverN, row.Relative,
				bound, float64(row.Bytes)/1024, row.Train.Seconds(), row.Test.Seconds(), l1)
		}
	}
	fmt.Fprintln(w)
	return nil
}

var (
	dashed = []vg.Length{vg.Points(4), vg.Points(3)}
	dotted = []vg.Length{vg.Points(1), vg.Points(2)}
)

// addXY adds one curve with float abscissae; non-positive ordinates are clamped to the
// curve's smallest positive value (for log scales).
func addXY(p *plot.Plot, xs, ys []float64, c color.RGBA, dashes []vg.Length, label string) error {
	floor := math.Inf(1)
	for _, y := range ys {
		if y > 0 {
			floor = math.Min(floor, y)
		}
	}
	if math.IsInf(floor, 1) {
		floor = math.SmallestNonzeroFloat64
	}
	pts := make(plotter.XYs, len(ys))
	for i := range ys {
		pts[i].X, pts[i].Y = xs[i], math.Max(ys[i], floor)
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	line.Color, points.Color = c, c
	line.Width = vg.Points(1.2)
	line.Dashes = dashes
	points.Radius = vg.Points(2)
	p.Add(line, points)
	p.Legend.Add(label, line, points)
	return nil
}

// PlotStreaming draws the comparison to w as a PNG: ‖G − G̃‖₂/n against ℓ (x = "ell")
// or against the memory in bytes (x = "memory", log–log), or the training and test
// times against ℓ (x = "time").
func PlotStreaming(w io.Writer, r *StreamingResult, x string) error {
	p := plot.New()
	o := r.Options
	p.Title.Text = fmt.Sprintf("%s, n = %d, D = %d", o.Dataset, o.N, o.Features)
	logY(p)
	switch x {
	case "ell":
		p.X.Label.Text = "ℓ (sketch rows, landmarks, components)"
		p.Y.Label.Text = "‖G − G_approx‖₂ / n"
	case "memory":
		p.X.Label.Text = "memory (bytes)"
		p.Y.Label.Text = "‖G − G_approx‖₂ / n"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	case "time":
		p.X.Label.Text = "ℓ"
		p.Y.Label.Text = "seconds"
	default:
		return fmt.Errorf("experiment: unknown plot %q", x)
	}
	for _, m := range streamingMethods {
		var xs, ys, test []float64
		for _, row := range r.Rows {
			if row.Method != m {
				continue
			}
			switch x {
			case "ell":
				xs, ys = append(xs, float64(row.Ell)), append(ys, row.OverN)
			case "memory":
				xs, ys = append(xs, float64(row.Bytes)), append(ys, row.OverN)
			case "time":
				xs, ys = append(xs, float64(row.Ell)), append(ys, row.Train.Seconds())
				test = append(test, row.Test.Seconds())
			}
		}
		if len(xs) == 0 {
			continue
		}
		label := m
		if x == "time" {
			label = m + " train"
		}
		if err := addXY(p, xs, ys, methodColours[m], nil, label); err != nil {
			return err
		}
		if x == "time" {
			if err := addXY(p, xs, test, methodColours[m], []vg.Length{vg.Points(4), vg.Points(3)}, m+" test"); err != nil {
				return err
			}
		}
	}
	return save(w, p)
}

// WriteToyCSV writes one row per run: the exact eigenvalues, both methods' final
// estimates and the passes each needed to converge.
func WriteToyCSV(w io.Writer, r *ToyResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"run", "exact1", "exact2", "exact3", "krqa1", "krqa2", "krqa3", "krqa_own1", "krqa_own2", "krqa_own3",
		"kha1", "kha2", "kha3", "krqa_passes", "kha_passes"})
	for i, run := range r.Runs {
		rec := []string{strconv.Itoa(i + 1)}
		for _, v := range [][3]float64{run.Exact, run.KRQA, run.KRQAOwn, run.KHA} {
			for _, x := range v {
				rec = append(rec, g6(x))
			}
		}
		rec = append(rec, strconv.Itoa(run.KRQAPasses), strconv.Itoa(run.KHAPasses))
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// toyCurves returns the mean over runs of the largest relative error after each pass.
func toyCurves(r *ToyResult) (krqa, kha []float64) {
	passes := r.Options.Passes
	krqa, kha = make([]float64, passes), make([]float64, passes)
	for _, run := range r.Runs {
		for p := range passes {
			krqa[p] += run.KRQAErrors[p] / float64(len(r.Runs))
			kha[p] += run.KHAErrors[p] / float64(len(r.Runs))
		}
	}
	return krqa, kha
}

// WriteToyCurvesCSV writes the convergence curves: the mean over runs of the largest
// relative eigenvalue error after each pass.
func WriteToyCurvesCSV(w io.Writer, r *ToyResult) error {
	krqa, kha := toyCurves(r)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"pass", "krqa_mean_max_relative_error", "kha_mean_max_relative_error"})
	for p := range krqa {
		_ = cw.Write([]string{strconv.Itoa(p + 1), g6(krqa[p]), g6(kha[p])})
	}
	cw.Flush()
	return cw.Error()
}

// WriteToyMarkdown writes the table of the seed paper: mean ± sd over the runs of each
// eigenvalue, exact and estimated, the mean absolute errors and the passes to converge.
func WriteToyMarkdown(w io.Writer, r *ToyResult) error {
	o := r.Options
	fmt.Fprintf(w, "### Online kernel PCA on the toy: %d runs, N = %d, %d passes; KHA η₀ = %g, τ = %g\n\n", len(r.Runs), o.N, o.Passes, o.KHARate, o.KHADecay)
	fmt.Fprintf(w, "| | λ₁ | λ₂ | λ₃ |\n|---|--:|--:|--:|\n")
	col := func(f func(ToyRun) float64) string {
		v := make([]float64, len(r.Runs))
		for i, run := range r.Runs {
			v[i] = f(run)
		}
		m, s := meanSD(v)
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
		fmt.Fprintf(w, "| %s |", row.name)
		for i := range 3 {
			fmt.Fprintf(w, " %s |", col(func(r ToyRun) float64 { return row.f(r, i) }))
		}
		fmt.Fprintln(w)
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
	fmt.Fprintf(w, "\nPasses until every relative eigenvalue error is below %g, median over runs: KRQA %s; KHA %s.\n\n",
		o.Tolerance, say(kp), say(kh))
	return nil
}

// PlotToy draws the convergence curves to w as a PNG.
func PlotToy(w io.Writer, r *ToyResult) error {
	krqa, kha := toyCurves(r)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Online kernel PCA on the toy (mean of %d runs)", len(r.Runs))
	p.X.Label.Text = "pass"
	p.Y.Label.Text = "largest relative eigenvalue error"
	logY(p)
	if err := addLine(p, intsTo(len(krqa)), krqa, methodColours["KRQA"], nil, "KRQA"); err != nil {
		return err
	}
	if err := addLine(p, intsTo(len(kha)), kha, methodColours["KHA"], nil, "KHA"); err != nil {
		return err
	}
	return save(w, p)
}

func intsTo(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i + 1
	}
	return v
}
