package experiment

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ikpca/ikpca/native"
)

// chinSuterMethods are the timed methods in table and legend order.
var chinSuterMethods = []string{methodBatch, methodCS, methodKHA, methodOurs, methodCSExact}

// shortNames label the projection plots' legends.
var shortNames = map[string]string{methodCS: "Chin–Suter", methodKHA: "KHA"}

var chinSuterColours = map[string]color.RGBA{
	methodBatch:   {R: 0x40, G: 0x40, B: 0x40, A: 255},
	methodCS:      {R: 0xd6, G: 0x27, B: 0x28, A: 255},
	methodKHA:     {R: 0x1f, G: 0x77, B: 0xb4, A: 255},
	methodOurs:    {R: 0x2c, G: 0xa0, B: 0x2c, A: 255},
	methodCSExact: {R: 0xff, G: 0x7f, B: 0x0e, A: 255},
}

// WriteChinSuterTimingCSV writes the training times, one row per size and method.
func WriteChinSuterTimingCSV(w io.Writer, r *ChinSuterResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"n", "method", "seconds", "backend"})
	for _, row := range r.Timing {
		_ = cw.Write([]string{strconv.Itoa(row.N), row.Method, g6(row.Seconds), r.Backend})
	}
	cw.Flush()
	return cw.Error()
}

// WriteChinSuterProjectionsCSV writes the projections of the training points: one row
// per point and component, batch and each method.
func WriteChinSuterProjectionsCSV(w io.Writer, r *ChinSuterResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"component", "x", "batch", "chin_suter", "kha"})
	for _, s := range r.Projections {
		for i := range s.X {
			_ = cw.Write([]string{strconv.Itoa(s.Component), g6(s.X[i]), g6(s.Batch[i]),
				g6(s.Methods[methodCS][i]), g6(s.Methods[methodKHA][i])})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteChinSuterStreamCSV writes the long-stream checkpoints.
func WriteChinSuterStreamCSV(w io.Writer, r *ChinSuterResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"chunk", "n", "sine_top1", "sine_top3", "lambda1_rel_error", "orthogonality", "expansion",
		"budget", "bytes", "residual_components", "residual_mean", "train_s_per_point", "batch_s_at_n", "components"})
	for _, s := range r.Stream {
		_ = cw.Write([]string{strconv.Itoa(s.Chunk), strconv.Itoa(s.N), g6(s.Sine1), g6(s.Sine3), g6(s.Lambda1Rel),
			g6(s.Orthogonality), strconv.Itoa(s.Expansion), strconv.Itoa(s.PreImagesBudget), strconv.Itoa(s.Bytes),
			g6(s.ResidualComponents), g6(s.ResidualMean), g6(s.SecondsPerPoint), g6(s.BatchSecondsAtN), strconv.Itoa(s.Rank)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteChinSuterCostCSV writes the per-point costs.
func WriteChinSuterCostCSV(w io.Writer, r *ChinSuterResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"m", "dgemm_s", "svd_of_F_s", "chin_suter_s", "bordered_s", "paper_s", "chin_suter_components",
		"chin_suter_x_dgemm", "bordered_x_dgemm", "paper_x_dgemm", "chin_suter_flops_m3", "bordered_flops_m3", "paper_flops_m3", "backend"})
	for _, c := range r.Cost {
		_ = cw.Write([]string{strconv.Itoa(c.M), g6(c.Dgemm), g6(c.SVD), g6(c.ChinSuter), g6(c.Bordered), g6(c.Paper),
			strconv.Itoa(c.CSComponents), g6(c.ChinSuter / c.Dgemm), g6(c.Bordered / c.Dgemm), g6(c.Paper / c.Dgemm),
			g6(c.CSFlops), g6(c.BorderedFlops), g6(c.PaperFlops), r.Backend})
	}
	cw.Flush()
	return cw.Error()
}

// WriteChinSuterMarkdown writes the summary tables.
func WriteChinSuterMarkdown(w io.Writer, r *ChinSuterResult) error {
	o := r.Options
	fmt.Fprintf(w, "### Training time on the toy (x ~ U[−1, 1], y = x² + N(0, 0.2²), RBF σ = 1), %s\n\n", r.Backend)
	fmt.Fprintf(w, "Chin–Suter compressed: r = %d, n′ = %d (at most %d pre-images), chunks of c = %d. KHA: %d components, %d passes, η = %g. "+
		"Exact incremental models up to n = %d (on a full-rank kernel matrix their total cost grows as n⁴).\n\n",
		o.Components, o.PreImages, (o.Components+1)*o.PreImages, o.Chunk, o.Components, o.KHAPasses, o.KHARate, o.ExactMax)
	fmt.Fprintf(w, "| n |")
	for _, m := range chinSuterMethods {
		fmt.Fprintf(w, " %s (s) |", m)
	}
	fmt.Fprintf(w, "\n|--:|")
	for range chinSuterMethods {
		fmt.Fprintf(w, "--:|")
	}
	fmt.Fprintln(w)
	for _, n := range o.Sizes {
		fmt.Fprintf(w, "| %d |", n)
		for _, m := range chinSuterMethods {
			cell := "—"
			for _, row := range r.Timing {
				if row.N == n && row.Method == m {
					cell = fmt.Sprintf("%.3g", row.Seconds)
				}
			}
			fmt.Fprintf(w, " %s |", cell)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| fitted exponent |")
	for _, m := range chinSuterMethods {
		if e, ok := r.Exponents[m]; ok {
			fmt.Fprintf(w, " %.2f |", e)
		} else {
			fmt.Fprintf(w, " — |")
		}
	}
	fmt.Fprint(w, "\n\n")

	if len(r.Exact) > 0 {
		fmt.Fprintf(w, "Exact Chin–Suter against batch kernel PCA after the whole stream, one point at a time (subspaces in explicit feature coordinates):\n\n"+
			"| n | components kept | batch λ > 1e-10·λ₁ | max \\|Δλ\\|/λ₁ | top k (gap ≥ 1e-3·λ₁) | sin θ (top k) | ‖YᵀY − I‖₂ (top k) |\n|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, e := range r.Exact {
			fmt.Fprintf(w, "| %d | %d | %d | %.1e | %d | %.1e | %.1e |\n", e.N, e.Kept, e.Batch, e.MaxEigenError, e.TopK, e.Sine, e.Orthogonality)
		}
		fmt.Fprintln(w)
	}
	if len(r.Projections) > 0 {
		fmt.Fprintf(w, "Projections of the %d training points onto the first components, relative RMS difference from batch "+
			"(after aligning signs):\n\n| component | Chin–Suter (compressed) | KHA |\n|--:|--:|--:|\n", r.ProjN)
		for _, s := range r.Projections {
			fmt.Fprintf(w, "| %d | %.3g | %.3g |\n", s.Component, s.RelRMS[methodCS], s.RelRMS[methodKHA])
		}
		fmt.Fprintln(w)
	}

	if len(r.Stream) > 0 {
		fmt.Fprintf(w, "### Compressed Chin–Suter over a stream of %d toy points (r = %d, n′ = %d)\n\n", o.StreamN, o.Components, o.PreImages)
		fmt.Fprintf(w, "| chunk c | n | sin θ top 1 | sin θ top 3 | λ₁ rel. error | ‖α′ᵀK′α′ − I‖₂ | pre-images (budget) | bytes | residual axes / mean | µs per point |\n"+
			"|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, s := range r.Stream {
			fmt.Fprintf(w, "| %d | %d | %.3g | %.3g | %.2g | %.1e | %d (%d) | %d | %.2g / %.2g | %.0f |\n", s.Chunk, s.N, s.Sine1, s.Sine3,
				s.Lambda1Rel, s.Orthogonality, s.Expansion, s.PreImagesBudget, s.Bytes, s.ResidualComponents, s.ResidualMean, s.SecondsPerPoint*1e6)
		}
		fmt.Fprintln(w)
	}

	if len(r.Cost) > 0 {
		fmt.Fprintf(w, "### Per-point cost of the exact updates (10-D Gaussian points, RBF σ = √10, all components kept), %s\n\n", r.Backend)
		fmt.Fprintf(w, "Each step is paired with one m×m×m dgemm (2m³ flops) timed just before it; \"× dgemm\" is the median step "+
			"over the median dgemm, so 2 × (× dgemm) is the dgemm-equivalent cost in units of m³.\n\n")
		fmt.Fprintf(w, "| m | dgemm | Chin–Suter exact | × dgemm (m³-equiv.) | SVD of F alone | ikpca bordered | × dgemm (m³-equiv.) | seed paper (4 rank-one) | × dgemm (m³-equiv.) | Chin–Suter ÷ bordered |\n"+
			"|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, c := range r.Cost {
			fmt.Fprintf(w, "| %d | %s | %s | %.2f (%.1f) | %s | %s | %.2f (%.1f) | %s | %.2f (%.1f) | %.1f |\n", c.M, secs(c.Dgemm),
				secs(c.ChinSuter), c.ChinSuter/c.Dgemm, 2*c.ChinSuter/c.Dgemm, secs(c.SVD),
				secs(c.Bordered), c.Bordered/c.Dgemm, 2*c.Bordered/c.Dgemm,
				secs(c.Paper), c.Paper/c.Dgemm, 2*c.Paper/c.Dgemm, c.ChinSuter/c.Bordered)
		}
		fmt.Fprintf(w, "\nFlops counted from the operations performed: Chin–Suter ≈ 16m³ (K_A·α 2m³, new coefficients 2m³, "+
			"the SVD of F ≈ 12m³ by Golub and Van Loan's count, computed by LAPACK dgesdd with OpenBLAS); ikpca bordered ≈ 2m³ (one dgemm); the seed paper's four rank-one updates ≈ 8m³.\n\n")
	}
	return nil
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

// PlotChinSuterTiming draws the training times against n, log–log.
func PlotChinSuterTiming(w io.Writer, r *ChinSuterResult) error {
	p := plot.New()
	p.Title.Text = "Training time on the toy (" + native.Compiled + ")"
	p.X.Label.Text = "n (points)"
	p.Y.Label.Text = "seconds"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	logY(p)
	p.Legend.Left = true
	for _, m := range chinSuterMethods {
		var xs, ys []float64
		for _, row := range r.Timing {
			if row.Method == m {
				xs, ys = append(xs, float64(row.N)), append(ys, row.Seconds)
			}
		}
		if len(xs) == 0 {
			continue
		}
		label := m
		if e, ok := r.Exponents[m]; ok {
			label = fmt.Sprintf("%s (∝ n^%.2f)", m, e)
		}
		if err := addXY(p, xs, ys, chinSuterColours[m], nil, label); err != nil {
			return err
		}
	}
	return save(w, p)
}

// PlotChinSuterStream draws the principal-angle sines to batch against n for each chunk
// size.
func PlotChinSuterStream(w io.Writer, r *ChinSuterResult) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Compressed Chin–Suter vs batch KPCA (r = %d, n′ = %d)", r.Options.Components, r.Options.PreImages)
	p.X.Label.Text = "n (points streamed)"
	p.Y.Label.Text = "sine of the largest principal angle"
	logY(p)
	chunks := map[int]bool{}
	for _, s := range r.Stream {
		chunks[s.Chunk] = true
	}
	cols := []color.RGBA{chinSuterColours[methodCS], chinSuterColours[methodKHA]}
	i := 0
	for _, c := range uniqueInts(1, r.Options.Chunk) {
		if !chunks[c] {
			continue
		}
		var xs, s1, s3 []float64
		for _, s := range r.Stream {
			if s.Chunk == c {
				xs, s1, s3 = append(xs, float64(s.N)), append(s1, s.Sine1), append(s3, s.Sine3)
			}
		}
		if err := addXY(p, xs, s1, cols[i%2], nil, fmt.Sprintf("top 1, c = %d", c)); err != nil {
			return err
		}
		if err := addXY(p, xs, s3, cols[i%2], dashed, fmt.Sprintf("top 3, c = %d", c)); err != nil {
			return err
		}
		i++
	}
	return save(w, p)
}

// PlotChinSuterProjections draws, for each of the first components, the projections of
// the training points against their first coordinate: batch, Chin–Suter and KHA.
func PlotChinSuterProjections(w io.Writer, r *ChinSuterResult) error {
	k := len(r.Projections)
	if k == 0 {
		return fmt.Errorf("experiment: no projections")
	}
	plots := make([][]*plot.Plot, 1)
	plots[0] = make([]*plot.Plot, k)
	for j, s := range r.Projections {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("component %d (n = %d)", s.Component, r.ProjN)
		p.X.Label.Text = "x"
		p.Y.Label.Text = "projection"
		p.Legend.Top = true
		p.Legend.TextStyle.Font.Size = vg.Points(7)
		for _, m := range []struct {
			name   string
			ys     []float64
			radius vg.Length
			shape  draw.GlyphDrawer
		}{
			{methodBatch, s.Batch, 3, draw.CircleGlyph{}},
			{methodCS, s.Methods[methodCS], 1.6, draw.CrossGlyph{}},
			{methodKHA, s.Methods[methodKHA], 1.6, draw.PlusGlyph{}},
		} {
			xys := make(plotter.XYs, len(s.X))
			for i := range s.X {
				xys[i].X, xys[i].Y = s.X[i], m.ys[i]
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return fmt.Errorf("experiment: %w", err)
			}
			sc.GlyphStyle.Color = chinSuterColours[m.name]
			sc.GlyphStyle.Radius = vg.Points(float64(m.radius))
			sc.GlyphStyle.Shape = m.shape
			p.Add(sc)
			label := m.name
			if m.name != methodBatch {
				label = fmt.Sprintf("%s, rel. RMS %.1g", shortNames[m.name], s.RelRMS[m.name])
			}
			p.Legend.Add(label, sc)
		}
		plots[0][j] = p
	}
	width, height := vg.Length(4*k)*vg.Inch, vg.Length(3.6)*vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: k, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 2,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for j := range k {
		plots[0][j].Draw(canvases[0][j])
	}
	png := vgimg.PngCanvas{Canvas: img}
	_, err := png.WriteTo(w)
	return err
}
