package experiment

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// kafMethodsIn returns the methods of r in table order.
func kafMethodsIn(r *KAFResult) []string {
	var out []string
	for _, m := range KAFMethods {
		if _, ok := r.Curves[m]; ok {
			out = append(out, m)
		}
	}
	return out
}

// WriteKAFCSV writes the learning curves: one row per step, one column per method.
func WriteKAFCSV(w io.Writer, r *KAFResult) error {
	cw := csv.NewWriter(w)
	methods := kafMethodsIn(r)
	_ = cw.Write(append([]string{"training_samples"}, methods...))
	for i, s := range r.Steps {
		rec := []string{strconv.Itoa(s)}
		for _, m := range methods {
			rec = append(rec, g6(r.Curves[m][i]))
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteKAFMarkdown writes the final test MSE (mean ± sd over trials) and the mean
// dictionary or feature size of every method.
func WriteKAFMarkdown(w io.Writer, r *KAFResult) error {
	o := r.Options
	fmt.Fprintf(w, "### Mackey–Glass one-step prediction: %d trials, %d training and %d test samples, embedding %d, noise σ = %g, η = %g, kernel σ = %.4g\n\n",
		o.Trials, o.Train, o.Test, o.Order, o.Noise, o.Eta, o.Sigma)
	fmt.Fprintf(w, "| method | final test MSE (mean ± sd) | features or dictionary size |\n|---|--:|--:|\n")
	for _, m := range kafMethodsIn(r) {
		mean, sd := meanSD(r.Final[m])
		fmt.Fprintf(w, "| %s | %.4g ± %.2g | %.0f |\n", m, mean, sd, r.Size[m])
	}
	fmt.Fprintln(w)
	return nil
}

// PlotKAF draws the learning curves to w as a PNG.
func PlotKAF(w io.Writer, r *KAFResult) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Mackey–Glass, %d trials: test MSE while learning", r.Options.Trials)
	p.X.Label.Text = "training samples"
	p.Y.Label.Text = "test MSE"
	logY(p)
	palette := []color.RGBA{
		{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, {R: 0xff, G: 0x7f, B: 0x0e, A: 255}, {R: 0x2c, G: 0xa0, B: 0x2c, A: 255},
		{R: 0xd6, G: 0x27, B: 0x28, A: 255}, {R: 0x94, G: 0x67, B: 0xbd, A: 255}, {R: 0x8c, G: 0x56, B: 0x4b, A: 255},
		{R: 0xe3, G: 0x77, B: 0xc2, A: 255}, {R: 0x7f, G: 0x7f, B: 0x7f, A: 255},
	}
	styles := [][]vg.Length{nil, dashed, dotted}
	for i, m := range kafMethodsIn(r) {
		if err := addLine(p, r.Steps, r.Curves[m], palette[i%len(palette)], styles[(i/len(palette))%3], m); err != nil {
			return err
		}
	}
	return save(w, p)
}
