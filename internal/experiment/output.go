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

// WriteDriftCSV writes Figure 1's numbers: one row per model size m, with the three
// norms of the file-order run, of the mean over random orders, and of the paper's
// algorithm (empty if it did not run).
func WriteDriftCSV(w io.Writer, r *DriftResult) error {
	cw := csv.NewWriter(w)
	header := []string{"m"}
	for _, s := range []string{"single", "mean", "paper"} {
		for _, n := range NormNames {
			header = append(header, s+"_"+n)
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i, m := range r.M {
		row := []string{strconv.Itoa(m)}
		for _, s := range []Series{r.Single, r.Mean, r.Paper} {
			for k := range 3 {
				if s[k] == nil {
					row = append(row, "")
				} else {
					row = append(row, strconv.FormatFloat(s[k][i], 'g', 6, 64))
				}
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteNystromCSV writes Figure 2's numbers: one row per number of landmarks m, with the
// three norms of K − K̃ₘ, absolute and relative to ‖K‖_F.
func WriteNystromCSV(w io.Writer, r *NystromResult) error {
	cw := csv.NewWriter(w)
	header := []string{"m"}
	for _, n := range NormNames {
		header = append(header, n)
	}
	for _, n := range NormNames {
		header = append(header, n+"_relative")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i, m := range r.M {
		row := []string{strconv.Itoa(m)}
		for k := range 3 {
			row = append(row, strconv.FormatFloat(r.Errors[k][i], 'g', 6, 64))
		}
		for k := range 3 {
			row = append(row, strconv.FormatFloat(r.Errors[k][i]/r.Norm, 'g', 6, 64))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// colours of the three norms.
var colours = [3]color.RGBA{{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, {R: 0xd6, G: 0x27, B: 0x28, A: 255}, {R: 0x2c, G: 0xa0, B: 0x2c, A: 255}}

// PlotDrift draws Figure 1 for one data set to w as a PNG: the three norms of the drift
// against m on a logarithmic scale, solid for the mean over random orders, dashed for
// the single file-order run, dotted for the paper's algorithm.
func PlotDrift(w io.Writer, title string, r *DriftResult) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "m (points in the model)"
	p.Y.Label.Text = "‖K' − VΛVᵀ‖"
	logY(p)
	p.Legend.Left = true // the curves rise to the right
	styles := []struct {
		s      Series
		label  string
		dashes []vg.Length
	}{
		{r.Mean, "mean of random orders", nil},
		{r.Single, "one run", []vg.Length{vg.Points(4), vg.Points(3)}},
		{r.Paper, "paper's algorithm", []vg.Length{vg.Points(1), vg.Points(2)}},
	}
	for _, st := range styles {
		for k := range 3 {
			if st.s[k] == nil {
				continue
			}
			if err := addLine(p, r.M, st.s[k], colours[k], st.dashes, NormNames[k]+", "+st.label); err != nil {
				return err
			}
		}
	}
	return save(w, p)
}

// PlotNystrom draws Figure 2 for one data set to w as a PNG: the three norms of
// K − K̃ₘ against m on a logarithmic scale.
func PlotNystrom(w io.Writer, title string, r *NystromResult) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "m (landmarks)"
	p.Y.Label.Text = "‖K − K_nys‖" // the plot fonts lack the combining tilde
	logY(p)
	for k := range 3 {
		if err := addLine(p, r.M, r.Errors[k], colours[k], nil, NormNames[k]); err != nil {
			return err
		}
	}
	return save(w, p)
}

func logY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
}

// addLine adds one curve; values that are not positive (a log scale cannot show them)
// are drawn at the smallest positive value of the curve.
func addLine(p *plot.Plot, m []int, ys []float64, c color.RGBA, dashes []vg.Length, label string) error {
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
	for i, y := range ys {
		pts[i].X = float64(m[i])
		pts[i].Y = math.Max(y, floor)
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	line.Color = c
	line.Width = vg.Points(1.2)
	line.Dashes = dashes
	p.Add(line)
	p.Legend.Add(label, line)
	return nil
}

func save(w io.Writer, p *plot.Plot) error {
	wt, err := p.WriterTo(vg.Length(6.5)*vg.Inch, vg.Length(4.2)*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}
