package tracking

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
)

// Plots draw the figures from their tables: rank-DATASET from rank-DATASET, window from
// window.
var Plots = []study.Plot{
	{CSV: "rank-*", PNG: "rank-*", Draw: drawRank},
	{CSV: "window", PNG: "window", Draw: drawWindow},
}

// Issue 13's targets for rank 50 on all of MAGIC.
const (
	targetSeconds = 60
	targetMiB     = 64
	targetValues  = 1e-6
	targetSine    = 1e-4
)

// rowMethod is how the markdown and the figures name a row's method.
func rowMethod(method string) string {
	switch method {
	case MethodRank:
		return "ikpca rank r"
	case MethodExact:
		return "ikpca exact growth"
	case MethodSKPCA:
		return "SKPCA"
	case MethodChinSuter:
		return "Chin–Suter, compressed"
	}
	if s, ok := strings.CutPrefix(method, MethodSklearn); ok {
		return "scikit-learn, " + s
	}
	return method
}

// gap returns (v[j−1] − v[j])/v[0].
func gap(v []float64, j int) float64 { return (v[j-1] - v[j]) / v[0] }

// reference returns the exact values a row is measured against.
func (r *CompareResult) referenceOf(row Row) []float64 {
	switch {
	case row.Method == MethodExact:
		return r.ExactGrowth
	case !row.Centred:
		return r.ExactUncentred
	}
	return r.Exact
}

// outputs returns the comparison's tables (rank-DATASET, sines-DATASET) and its
// summary.
func (r *CompareResult) outputs() []study.Output {
	o := r.Options
	k := o.Components
	t := study.NewTable("dataset", "n", "dim", "sigma", "k", "method", "r", "points", "params", "bytes", "peak_rss_bytes", "seconds",
		"eigen_rel_error", "eigen_error_l1", "sine_top_k", "best_j", "sine_best", "error_bound", "true_error", "outside_bounds",
		"reference", "lambda1", "lambda_k", "exact_lambda1", "exact_lambda_k", "exact_gap_k", "exact_gap_best")
	sines := study.NewTable("dataset", "method", "r", "points", "j", "sine", "exact_gap_j")
	nan := math.NaN()
	for _, row := range r.Rows {
		ex := r.referenceOf(row)
		refName := "centred"
		if !row.Centred {
			refName = "uncentred"
		}
		if row.Method == MethodExact {
			refName = "centred, its points"
		}
		sineK, sineBest := nan, nan
		if row.Sines != nil {
			sineK, sineBest = row.Sines[k-1], row.Sines[row.Best-1]
		}
		rank := any(row.Rank)
		if row.Rank == 0 {
			rank = ""
		}
		outside := any(row.Outside)
		if row.Method != MethodRank {
			outside = ""
		}
		t.Add(o.Dataset, r.N, r.Dim, r.Sigma, k, row.Method, rank, row.Points, row.Params, row.Bytes, row.PeakRSS, row.Seconds,
			row.EigenError, row.EigenErrorL1, sineK, row.Best, sineBest, row.Bound, row.TrueError, outside,
			refName, row.Values[0], row.Values[k-1], ex[0], ex[k-1], gap(ex, k), gap(ex, row.Best))
		for j, s := range row.Sines {
			sines.Add(o.Dataset, row.Method, rank, row.Points, j+1, s, gap(ex, j+1))
		}
	}

	var md strings.Builder
	fmt.Fprintf(&md, "### Rank-r tracking on %s: n = %d points of dimension %d, Gaussian kernel σ = %.6g, centred, top k = %d\n\n",
		o.Dataset, r.N, r.Dim, r.Sigma, k)
	fmt.Fprintf(&md, "Batch kernel PCA of all n points (Lanczos on the formed n×n kernel matrix, residuals ≤ %.1g·λ₁, %.0f s): "+
		"λ₁ = %.6g, λ%d = %.6g, gap (λ%d − λ%d)/λ₁ = %.3g; the best-separated leading subspace is the top %d (gap %.3g). ",
		r.Residual, r.ReferenceSeconds, r.Exact[0], k, r.Exact[k-1], k, k+1, gap(r.Exact, k), study.BestGap(r.Exact), gap(r.Exact, study.BestGap(r.Exact)))
	fmt.Fprintf(&md, "The rank-r models start from a batch decomposition of the first %d points and take the others one at a time. "+
		"SKPCA (ℓ sketch rows, D random Fourier features, uncentred: measured against the uncentred kernel matrix's pairs, as its paper defines it) "+
		"and compressed Chin–Suter (r components on at most (r+1)·n′ pre-images, chunks of c points) are given the largest D and n′ "+
		"whose memory (their Bytes) is within the rank-r model's at the end of the stream. ", o.M0)
	if o.ExactN > 0 {
		fmt.Fprintf(&md, "Exact growth (every pair, one m³ product a point) is taken to the first %d points and measured against a batch kernel PCA of those. ", o.ExactN)
	}
	if len(o.Sklearn) > 0 {
		fmt.Fprintf(&md, "scikit-learn's KernelPCA (n_components = %d, γ = 1/(2σ²)) is fitted once on all the points (bench/sklearn_fit.py); "+
			"its memory is its process's peak resident memory beyond that after loading the points. ", k)
	}
	fmt.Fprintf(&md, "Errors: max over the top %d of |Δλⱼ|/λⱼ; the sine of the largest principal angle between the exact top-%d eigenvector space and the model's "+
		"(its eigenvectors, or its scores of the n points), and between the top-j* ones. Memory: the model's Bytes, and the peak resident memory of the fit "+
		"beyond what the process held before it. Seconds on the machine that ran it.\n\n", k, k)
	fmt.Fprintf(&md, "| method | r | parameters | points | memory MiB | peak RSS MiB | s | max \\|Δλ\\|/λ | sin θ top %d | sin θ top j* | certificate | ‖K′ − K̃‖₂ |\n", k)
	fmt.Fprintf(&md, "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, row := range r.Rows {
		rank := ""
		if row.Rank > 0 {
			rank = strconv.Itoa(row.Rank)
		}
		sineK, sineBest := "—", "—"
		if row.Sines != nil {
			sineK, sineBest = fmt.Sprintf("%.2g", row.Sines[k-1]), fmt.Sprintf("%.2g (j* = %d)", row.Sines[row.Best-1], row.Best)
		}
		fmt.Fprintf(&md, "| %s | %s | %s | %d | %s | %s | %.3g | %.2g | %s | %s | %s | %s |\n", rowMethod(row.Method), rank, row.Params, row.Points,
			mib(row.Bytes), mib(row.PeakRSS), row.Seconds, row.EigenError, sineK, sineBest, num(row.Bound), num(row.TrueError))
	}
	return []study.Output{
		{Name: "rank-" + o.Dataset, Table: t, Markdown: md.String()},
		{Name: "sines-" + o.Dataset, Table: sines},
	}
}

// mib formats bytes in MiB, "—" for NaN.
func mib(b float64) string {
	if math.IsNaN(b) {
		return "—"
	}
	return fmt.Sprintf("%.1f", b/(1<<20))
}

// num formats a value to three digits, "—" for NaN.
func num(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.3g", v)
}

// headline returns the markdown of the rank-r row of the MAGIC comparison against issue
// 13's targets (which are for r = 50 on all 19,020 points).
func (r *CompareResult) headline(rank int) study.Output {
	i := slices.IndexFunc(r.Rows, func(row Row) bool { return row.Method == MethodRank && row.Rank == rank })
	row := r.Rows[i]
	k := r.Options.Components
	var md strings.Builder
	fmt.Fprintf(&md, "### Rank %d on MAGIC: %d points streamed one at a time\n\n", rank, r.N)
	fmt.Fprintf(&md, "Centred, Gaussian kernel with σ = %.6g (kernel.DefaultBandwidth), a batch start of %d points (of which only the top %d+1 pairs are computed, native.EigenSymTop) "+
		"and the other %d points added one at a time. Measured against a batch kernel PCA of all %d points, whose top pairs come from Lanczos on the formed kernel matrix "+
		"to residuals of %.1g·λ₁.\n\n", r.Sigma, r.Options.M0, rank, r.N-r.Options.M0, r.N, r.Residual)
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	fmt.Fprintf(&md, "| | measured | issue 13's target | |\n|---|--:|--:|---|\n")
	fmt.Fprintf(&md, "| time, batch start and stream | %.3g s | %d s | %s |\n", row.Seconds, targetSeconds, met(row.Seconds <= targetSeconds))
	if math.IsNaN(row.PeakRSS) {
		fmt.Fprintf(&md, "| peak resident memory beyond the data | not measured here | %d MiB | |\n", targetMiB)
	} else {
		fmt.Fprintf(&md, "| peak resident memory beyond the data | %.1f MiB | %d MiB | %s |\n", row.PeakRSS/(1<<20), targetMiB,
			met(row.PeakRSS <= targetMiB*(1<<20)))
	}
	fmt.Fprintf(&md, "| the model's arrays (Bytes) | %.1f MiB | | |\n", row.Bytes/(1<<20))
	fmt.Fprintf(&md, "| top-%d eigenvalues, max \\|Δλⱼ\\|/λⱼ | %.2g | %.0e | %s |\n", k, row.EigenError, targetValues, met(row.EigenError <= targetValues))
	fmt.Fprintf(&md, "| top-%d eigenvalues, max \\|Δλⱼ\\|/λ₁ | %.2g | | |\n", k, row.EigenErrorL1)
	fmt.Fprintf(&md, "| top-%d subspace, sine of the largest principal angle | %.2g | %.0e | %s |\n", k, row.Sines[k-1], targetSine, met(row.Sines[k-1] <= targetSine))
	fmt.Fprintf(&md, "| best-separated top-%d subspace (gap (λ%d − λ%d)/λ₁ = %.2g; top %d: %.2g), sine | %.2g | | |\n", row.Best, row.Best, row.Best+1,
		gap(r.Exact, row.Best), k, gap(r.Exact, k), row.Sines[row.Best-1])
	fmt.Fprintf(&md, "| certificate ErrorBound ≥ ‖K′ − K̃‖₂ | %.3g ≥ %.3g (%.0f×) | | %s |\n", row.Bound, row.TrueError, row.Bound/row.TrueError,
		map[bool]string{true: "holds", false: "**fails**"}[row.TrueError <= row.Bound])
	fmt.Fprintf(&md, "| exact top-%d eigenvalues outside ValueBounds | %d | 0 | |\n", k, row.Outside)
	return study.Output{Name: "headline", Markdown: md.String()}
}

// output returns the window experiment's table (one row per measurement and model) and
// its summary.
func (r *WindowResult) output() study.Output {
	o := r.Options
	t := study.NewTable("points", "model", "label", "sine", "batch_gap", "change", "window", "components")
	for _, p := range r.Points {
		for _, m := range r.Models {
			t.Add(p.Points, m, r.Labels[m], p.Sines[m], p.Gap, o.PerClass, o.Size, o.Components)
		}
	}
	var md strings.Builder
	fmt.Fprintf(&md, "### A stream whose distribution changes: MAGIC's %d gamma rows, then %d hadron rows\n\n", o.PerClass, o.PerClass)
	fmt.Fprintf(&md, "Gaussian kernel σ = %.6g (kernel.DefaultBandwidth of the whole stream), centred. Every %d points, the sine of the largest principal angle, in feature space, "+
		"between each model's top-%d subspace and that of a batch kernel PCA of the last %d points (sines below about 1e-8 are not resolved). "+
		"Mean sine over the measurements before the change, and over those at least w points after it (when the window holds hadrons only):\n\n",
		r.Sigma, o.Every, o.Components, o.Size)
	fmt.Fprintf(&md, "| model | before the change | after it, window refilled | last |\n|---|--:|--:|--:|\n")
	for _, m := range r.Models {
		var before, after []float64
		for _, p := range r.Points {
			switch {
			case p.Points <= o.PerClass:
				before = append(before, p.Sines[m])
			case p.Points >= o.PerClass+o.Size:
				after = append(after, p.Sines[m])
			}
		}
		last := r.Points[len(r.Points)-1].Sines[m]
		fmt.Fprintf(&md, "| %s | %.2g | %.2g | %.2g |\n", r.Labels[m], mean(before), mean(after), last)
	}
	return study.Output{Name: "window", Table: t, Markdown: md.String()}
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// rankMethods are the methods drawn as curves against r, and lineMethods those drawn as
// horizontal lines (no r), in legend order.
var (
	rankMethods = []string{MethodRank, MethodSKPCA, MethodChinSuter}
	lineMethods = []string{MethodExact, MethodSklearn + "dense", MethodSklearn + "arpack"}
)

// drawRank draws the comparison from its table: three panels against r — the top-k
// eigenvalues' largest relative error, the top-k subspace's sine, and the seconds — with
// exact growth and scikit-learn as horizontal lines.
func drawRank(t *study.Table, _ string) (*study.Figure, error) {
	head, err := t.Firsts("dataset", "n", "k")
	if err != nil {
		return nil, err
	}
	ranks, err := t.Floats("r")
	if err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range ranks {
		if !math.IsNaN(r) {
			lo, hi = math.Min(lo, r), math.Max(hi, r)
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("%w: no rank-r rows", study.ErrTable)
	}
	panels := []struct{ column, title, ylabel string }{
		{"eigen_rel_error", "top-" + head["k"] + " eigenvalues", "max |Δλ|/λ"},
		{"sine_top_k", "top-" + head["k"] + " subspace", "sine of the largest angle"},
		{"seconds", "time", "seconds"},
	}
	f := &study.Figure{Title: fmt.Sprintf("%s, n = %s: rank r against batch kernel PCA", head["dataset"], head["n"]), Width: 4.6}
	for pi, p := range panels {
		panel := &study.Figure{Title: p.title, XLabel: "r", YLabel: p.ylabel, LogX: true, LogY: true, Legend: study.Auto}
		for i, m := range rankMethods {
			rows, err := t.Where("method", m)
			if err != nil {
				return nil, err
			}
			if len(rows.Rows) == 0 {
				continue
			}
			x, err := rows.Floats("r")
			if err != nil {
				return nil, err
			}
			y, err := rows.Floats(p.column)
			if err != nil {
				return nil, err
			}
			panel.Curves = append(panel.Curves, study.Curve{Label: label(pi, rowMethod(m)), X: x, Y: y,
				Style: study.Style{Colour: i, Marker: i + 1}})
		}
		for i, m := range lineMethods {
			rows, err := t.Where("method", m)
			if err != nil {
				return nil, err
			}
			if len(rows.Rows) == 0 {
				continue
			}
			y, err := rows.Floats(p.column)
			if err != nil {
				return nil, err
			}
			if math.IsNaN(y[0]) {
				continue
			}
			name := rowMethod(m)
			if m == MethodExact {
				pts, err := rows.Strings("points")
				if err != nil {
					return nil, err
				}
				name += " (n = " + pts[0] + ")"
			}
			st := study.Style{Colour: study.Black, Dash: i + 1}
			if i > 0 {
				st.Colour = study.Grey
			}
			panel.Curves = append(panel.Curves, study.Curve{Label: label(pi, name), X: []float64{lo, hi}, Y: []float64{y[0], y[0]}, Style: st})
		}
		f.Panels = append(f.Panels, panel)
	}
	return f, nil
}

// label returns the legend entry of a curve in the last panel only: the panels share it.
func label(panel int, s string) string {
	if panel != 2 {
		return ""
	}
	return s
}

// drawWindow draws the window experiment from its table: each model's sine against the
// points seen, and the change of class.
func drawWindow(t *study.Table, _ string) (*study.Figure, error) {
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%w: no rows", study.ErrTable)
	}
	models, err := t.Distinct("model")
	if err != nil {
		return nil, err
	}
	change, err := t.Floats("change")
	if err != nil {
		return nil, err
	}
	head, err := t.Firsts("window", "components")
	if err != nil {
		return nil, err
	}
	f := &study.Figure{Title: "MAGIC: gamma rows, then hadron rows", XLabel: "points seen",
		YLabel: fmt.Sprintf("sine, top %s against last %s", head["components"], head["window"]), LogY: true, Legend: study.Outside}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, m := range models {
		rows, err := t.Where("model", m)
		if err != nil {
			return nil, err
		}
		cols, err := rows.FloatColumns("points", "sine")
		if err != nil {
			return nil, err
		}
		x, y := cols[0], cols[1]
		labels, err := rows.Strings("label")
		if err != nil {
			return nil, err
		}
		for _, v := range y {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		f.Curves = append(f.Curves, study.Curve{Label: labels[0], X: x, Y: y, Style: study.Style{Colour: i, Dash: i}})
	}
	if !math.IsInf(lo, 1) {
		f.Curves = append(f.Curves, study.Curve{Label: "change of class", X: []float64{change[0], change[0]}, Y: []float64{lo, hi},
			Style: study.Style{Colour: study.Grey, Dash: 2}})
	}
	return f, nil
}
