package study

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Figure describes a chart: curves on one pair of axes, or several such panels side by
// side. [Figure.WritePNG] draws it in the one style every figure of the studies shares,
// chosen to stay readable when the README shows a figure at a third of the page's width:
// a sans-serif face at 10–12 points on a 5-inch-wide canvas, lines 1.5 points wide,
// colours and dash patterns that differ, and the legend outside the axes or in a corner
// the curves leave free, on a white box.
type Figure struct {
	Title          string
	XLabel, YLabel string
	LogX, LogY     bool
	// YMin and YMax fix the vertical range when YMax > YMin; otherwise it fits the data.
	YMin, YMax float64
	Curves     []Curve
	// Keys, if any, make the legend instead of the curves' labels: for curves that vary
	// in two ways, one key per colour and one per dash pattern say more in fewer lines.
	Keys []Key
	// Legend places the legend.
	Legend Place
	// Panels, if any, are drawn side by side under Title, each with its own axes and
	// legend; the other fields but Width and Columns are then unused.
	Panels []*Figure
	// Columns, if positive, lays the panels out in rows of Columns, top to bottom; 0
	// puts them all in one row. A panel without a legend outside its axes keeps the
	// room of the widest such legend in its column, so that the axes of a column line
	// up.
	Columns int
	// Width is the width of the figure, or of each panel, in inches; 0 for 5, or 6 with
	// the legend outside the axes.
	Width float64
}

// Curve is one data series. Points with a NaN coordinate are left out; on a
// logarithmic axis, values that are not positive are drawn at the curve's smallest
// positive value.
type Curve struct {
	Label string // its legend entry; empty for none
	X, Y  []float64
	Style Style
}

// Key is a legend entry of its own (see Figure.Keys).
type Key struct {
	Label string
	Style Style
}

// Style is how a curve is drawn. The zero value is a solid line in the first colour.
type Style struct {
	// Colour indexes the palette (taken modulo its length), or is Grey or Black.
	Colour int
	// Dash indexes the dash patterns: 0 solid, 1 dashed, 2 dotted, 3 dash-dot, 4 long
	// dashes (taken modulo their number).
	Dash int
	// Marker draws a glyph at every point: 0 none, 1 circle, 2 triangle, 3 square,
	// 4 cross, 5 plus, 6 ring.
	Marker int
	// NoLine draws the glyphs alone, as a scatter plot.
	NoLine bool
}

// Neutral colours, for keys that stand for a dash pattern or a marker, not a colour, and
// for reference curves.
const (
	Grey  = -1
	Black = -2
)

// Place is where a figure's legend goes.
type Place int

// The places of a legend: outside the axes on the right (the zero value), inside the
// axes where the legend's box covers the fewest points of the curves (Auto), or inside
// at a given place.
const (
	Outside Place = iota
	Auto
	TopLeft
	TopRight
	BottomLeft
	BottomRight
	TopCenter
	BottomCenter
)

// palette holds eight colours that stay apart on screen and in print (Tableau's, less
// its grey and olive).
var palette = []color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, // blue
	{R: 0xff, G: 0x7f, B: 0x0e, A: 255}, // orange
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 255}, // green
	{R: 0xd6, G: 0x27, B: 0x28, A: 255}, // red
	{R: 0x94, G: 0x67, B: 0xbd, A: 255}, // purple
	{R: 0x8c, G: 0x56, B: 0x4b, A: 255}, // brown
	{R: 0xe3, G: 0x77, B: 0xc2, A: 255}, // pink
	{R: 0x17, G: 0xbe, B: 0xcf, A: 255}, // cyan
}

// dashes are the dash patterns, in points.
var dashes = [][]vg.Length{nil, {5, 3}, {1.5, 2}, {6, 2.5, 1.5, 2.5}, {11, 4}}

// glyphs are the markers (index 0 is "none").
var glyphs = []draw.GlyphDrawer{nil, draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}}

// The drawing's constants: resolution, sizes in inches and points.
const (
	dpi          = 144
	widthInches  = 5.0
	widthOutside = 6.0 // with the legend outside the axes
	heightInches = 3.4
	titleSize    = 13
	labelSize    = 12
	tickSize     = 11
	legendSize   = 11
	lineWidth    = 1.5
	glyphRadius  = 2.2
	legendInset  = 4 // points between the legend's box and the axes
	legendMargin = 4 // points of white around the legend's entries
)

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func (s Style) colour() color.Color {
	switch s.Colour {
	case Grey:
		return color.Gray{Y: 0x70}
	case Black:
		return color.Black
	}
	return palette[((s.Colour%len(palette))+len(palette))%len(palette)]
}

func (s Style) lineStyle() draw.LineStyle {
	return draw.LineStyle{Color: s.colour(), Width: vg.Points(lineWidth), Dashes: dashes[s.Dash%len(dashes)]}
}

func (s Style) glyphStyle() draw.GlyphStyle {
	shape := glyphs[s.Marker%len(glyphs)]
	if shape == nil {
		shape = draw.CircleGlyph{}
	}
	return draw.GlyphStyle{Color: s.colour(), Radius: vg.Points(glyphRadius), Shape: shape}
}

// thumbnails are what the legend shows for a style.
func (s Style) thumbnails() []plot.Thumbnailer {
	var t []plot.Thumbnailer
	if !s.NoLine {
		t = append(t, &plotter.Line{LineStyle: s.lineStyle()})
	}
	if s.NoLine || s.Marker != 0 {
		t = append(t, &plotter.Scatter{GlyphStyle: s.glyphStyle()})
	}
	return t
}

// WritePNG draws the figure to w as a PNG.
func (f *Figure) WritePNG(w io.Writer) error {
	panels := f.Panels
	if len(panels) == 0 {
		panels = []*Figure{f}
	}
	width := f.Width
	if width == 0 {
		width = widthInches
		for _, p := range panels {
			if p.Legend == Outside && (len(p.Keys) > 0 || slices.ContainsFunc(p.Curves, func(c Curve) bool { return c.Label != "" })) {
				width = widthOutside // room for the legend beside the axes
			}
		}
	}
	cols := len(panels)
	if f.Columns > 0 && f.Columns < cols {
		cols = f.Columns
	}
	rows := (len(panels) + cols - 1) / cols
	W, H := vg.Length(width*float64(cols))*vg.Inch, vg.Length(heightInches*float64(rows))*vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(W, H), vgimg.UseDPI(dpi))
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if len(f.Panels) > 0 && f.Title != "" {
		sty := textStyle(titleSize)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, f.Title)
		dc = draw.Crop(dc, 0, 0, 0, -sty.Rectangle(f.Title).Size().Y-vg.Points(10))
	}
	// The room each column keeps for a legend outside the axes.
	reserve := make([]vg.Length, cols)
	for i, p := range panels {
		reserve[i%cols] = max(reserve[i%cols], p.outsideLegend())
	}
	pw, ph := W/vg.Length(cols), (dc.Max.Y-dc.Min.Y)/vg.Length(rows)
	for i, p := range panels {
		col, row := vg.Length(i%cols), vg.Length(i/cols)
		c := draw.Crop(dc, pw*col, -pw*(vg.Length(cols)-1-col), ph*(vg.Length(rows)-1-row), -ph*row)
		if err := p.draw(c, reserve[i%cols]); err != nil {
			return err
		}
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

func textStyle(size float64) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(sans, vg.Points(size)), Handler: plot.DefaultTextHandler}
}

// legend returns an empty legend in the figures' style.
func legend() plot.Legend {
	leg := plot.NewLegend()
	leg.TextStyle = textStyle(legendSize)
	leg.ThumbnailWidth = vg.Points(26)
	return leg
}

// labels returns the entries of the panel's legend: its Keys', or else its curves'.
func (f *Figure) labels() []string {
	var labels []string
	if len(f.Keys) > 0 {
		for _, k := range f.Keys {
			labels = append(labels, k.Label)
		}
		return labels
	}
	for _, cv := range f.Curves {
		if cv.Label != "" {
			labels = append(labels, cv.Label)
		}
	}
	return labels
}

// outsideLegend returns the width a legend outside the axes takes from the panel, the
// box and the gap to the axes included: 0 for a panel without one.
func (f *Figure) outsideLegend() vg.Length {
	labels := f.labels()
	if f.Legend != Outside || len(labels) == 0 {
		return 0
	}
	lw, _ := legendExtent(legend(), labels)
	return lw + 2*vg.Points(legendMargin) + vg.Points(legendInset)
}

// draw draws one panel to c, keeping at least reserve on the right for a legend outside
// the axes (its own, or room left blank so that it lines up with another panel's).
func (f *Figure) draw(c draw.Canvas, reserve vg.Length) error {
	p := f.newPlot()
	leg := legend()
	labels := f.labels()
	for _, cv := range f.Curves {
		ts, err := f.addCurve(p, cv)
		if err != nil {
			return err
		}
		if len(f.Keys) == 0 && cv.Label != "" {
			leg.Add(cv.Label, ts...)
		}
	}
	for _, k := range f.Keys {
		leg.Add(k.Label, k.Style.thumbnails()...)
	}
	// A logarithmic vertical axis spans whole decades, so that its ends carry labels.
	if f.LogY {
		decades(&p.Y)
	}
	// A logarithmic axis without positive data (every curve empty) shows one decade.
	for _, ax := range []struct {
		a   *plot.Axis
		log bool
	}{{&p.X, f.LogX}, {&p.Y, f.LogY}} {
		if ax.log && !(ax.a.Min > 0 && ax.a.Max > ax.a.Min) {
			ax.a.Min, ax.a.Max = 1, 10
		}
	}
	if f.YMax > f.YMin {
		p.Y.Min, p.Y.Max = f.YMin, f.YMax
	}

	plotC, yLabel := f.yLabel(c)
	if len(labels) == 0 {
		plotC = draw.Crop(plotC, 0, -reserve, 0, 0)
		p.Draw(plotC)
		yLabel(p.DataCanvas(plotC))
		return nil
	}
	lw, lh := legendExtent(leg, labels)
	margin := vg.Points(legendMargin)
	if f.Legend == Outside {
		plotC = draw.Crop(plotC, 0, -max(lw+2*margin+vg.Points(legendInset), reserve), 0, 0)
		p.Draw(plotC)
		data := p.DataCanvas(plotC)
		yLabel(data)
		leg.Top, leg.Left = true, true
		legC := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: plotC.Max.X + vg.Points(legendInset) + margin, Y: data.Min.Y},
			Max: vg.Point{X: c.Max.X - margin, Y: data.Max.Y},
		}}
		leg.Draw(legC)
		return nil
	}
	p.Draw(plotC)
	data := p.DataCanvas(plotC)
	yLabel(data)
	place := f.Legend
	if place == Auto {
		place = f.freePlace(p, data, lw+2*margin, lh+2*margin)
	}
	box := legendBox(data.Rectangle, place, lw+2*margin, lh+2*margin)
	c.SetColor(color.White)
	c.Fill(box.Path())
	c.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 0xb0}, Width: vg.Points(0.5)})
	c.Stroke(box.Path())
	leg.Top, leg.Left = true, true
	inner := vg.Rectangle{Min: box.Min.Add(vg.Point{X: margin, Y: margin}), Max: box.Max.Sub(vg.Point{X: margin, Y: margin})}
	leg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: inner})
	return nil
}

// newPlot returns the figure's plot before its curves: the title, the axes' labels,
// fonts and scales, and the grid.
func (f *Figure) newPlot() *plot.Plot {
	p := plot.New()
	p.Title.Text = f.Title
	p.Title.TextStyle.Font = font.From(sans, vg.Points(titleSize))
	p.Title.Padding = vg.Points(4)
	for _, ax := range []struct {
		a     *plot.Axis
		label string
		log   bool
	}{{&p.X, f.XLabel, f.LogX}, {&p.Y, f.YLabel, f.LogY}} {
		if ax.a == &p.X { // the vertical axis's label is drawn by Figure.yLabel
			ax.a.Label.Text = ax.label
		}
		ax.a.Label.TextStyle.Font = font.From(sans, vg.Points(labelSize))
		ax.a.Tick.Label.Font = font.From(sans, vg.Points(tickSize))
		if ax.log {
			ax.a.Scale = plot.LogScale{}
			ax.a.Tick.Marker = decadeTicks{}
		}
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe0}
	grid.Horizontal.Color = color.Gray{Y: 0xe0}
	p.Add(grid)
	return p
}

// legendBox returns the box of a legend w wide and h high at an inside place of the
// data area.
func legendBox(data vg.Rectangle, place Place, w, h vg.Length) vg.Rectangle {
	inset := vg.Points(legendInset)
	var min vg.Point
	switch place {
	case TopLeft, BottomLeft:
		min.X = data.Min.X + inset
	case TopRight, BottomRight:
		min.X = data.Max.X - inset - w
	default:
		min.X = (data.Min.X + data.Max.X - w) / 2
	}
	switch place {
	case BottomLeft, BottomRight, BottomCenter:
		min.Y = data.Min.Y + inset
	default:
		min.Y = data.Max.Y - inset - h
	}
	return vg.Rectangle{Min: min, Max: min.Add(vg.Point{X: w, Y: h})}
}

// freePlace returns the inside place where a legend box of w by h covers the fewest
// points of the curves, sampling each line segment as well as its ends.
func (f *Figure) freePlace(p *plot.Plot, data draw.Canvas, w, h vg.Length) Place {
	trX, trY := p.Transforms(&data)
	places := []Place{TopRight, TopLeft, BottomRight, BottomLeft, TopCenter, BottomCenter}
	boxes := make([]vg.Rectangle, len(places))
	for i, pl := range places {
		boxes[i] = legendBox(data.Rectangle, pl, w, h)
	}
	covered := make([]int, len(places))
	count := func(x, y float64) {
		pt := vg.Point{X: trX(x), Y: trY(y)}
		for i, b := range boxes {
			if pt.X >= b.Min.X && pt.X <= b.Max.X && pt.Y >= b.Min.Y && pt.Y <= b.Max.Y {
				covered[i]++
			}
		}
	}
	const samples = 8 // points per line segment
	for _, cv := range f.Curves {
		xs, ys := positive(cv.X, f.LogX), positive(cv.Y, f.LogY)
		for i := range xs {
			if !finite(xs[i], ys[i]) {
				continue
			}
			count(xs[i], ys[i])
			if cv.Style.NoLine || i+1 == len(xs) || !finite(xs[i+1], ys[i+1]) {
				continue
			}
			for k := 1; k < samples; k++ {
				t := float64(k) / samples
				x, y := xs[i]+t*(xs[i+1]-xs[i]), ys[i]+t*(ys[i+1]-ys[i])
				if f.LogX {
					x = xs[i] * math.Pow(xs[i+1]/xs[i], t)
				}
				if f.LogY {
					y = ys[i] * math.Pow(ys[i+1]/ys[i], t)
				}
				count(x, y)
			}
		}
	}
	best := 0
	for i := range places {
		if covered[i] < covered[best] {
			best = i
		}
	}
	return places[best]
}

func finite(x, y float64) bool {
	return !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0)
}

// yLabel returns the canvas left for the plot once room is made for the vertical axis's
// label on the left of c, and the function that draws the label beside the data canvas.
// (gonum/plot reserves room for a rotated label above the axis's middle as if it were
// anchored there, so a long label pushed the axes down from the title.)
func (f *Figure) yLabel(c draw.Canvas) (draw.Canvas, func(data draw.Canvas)) {
	if f.YLabel == "" {
		return c, func(draw.Canvas) {}
	}
	sty := textStyle(labelSize)
	sty.Rotation = math.Pi / 2
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	h := textStyle(labelSize).Rectangle(f.YLabel).Size().Y
	return draw.Crop(c, h+vg.Points(4), 0, 0, 0), func(data draw.Canvas) {
		c.FillText(sty, vg.Point{X: c.Min.X, Y: (data.Min.Y + data.Max.Y) / 2}, f.YLabel)
	}
}

// decades widens a logarithmic axis's range to whole powers of ten.
func decades(a *plot.Axis) {
	if a.Min > 0 && a.Max >= a.Min && !math.IsInf(a.Max, 1) {
		a.Min = math.Pow(10, math.Floor(math.Log10(a.Min)))
		a.Max = math.Pow(10, math.Ceil(math.Log10(a.Max)))
		if a.Max == a.Min {
			a.Max *= 10
		}
	}
}

// decadeTicks marks every power of ten in the axis's range with a label and the
// multiples between them without, or labels the multiples too when the range holds
// fewer than two powers of ten. (plot.LogTicks marks whole decades beyond the range,
// whose labels pad the axes, and leaves the lowest decade unlabelled when rounding puts
// its logarithm just above an integer.)
type decadeTicks struct{}

func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 1) {
		return nil // no logarithmic range (an axis without data): no ticks, and no endless loop
	}
	lo, hi := int(math.Floor(math.Log10(min)+1e-9)), int(math.Ceil(math.Log10(max)-1e-9))
	inside := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	powers := 0
	for e := lo; e <= hi; e++ {
		if inside(math.Pow(10, float64(e))) {
			powers++
		}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		for i := 1; i < 10; i++ {
			v := float64(i) * math.Pow(10, float64(e))
			if !inside(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if i == 1 || powers < 2 && (i == 2 || i == 5) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// legendExtent returns the width and height of the legend's entries (plot.Legend's own
// Rectangle places the box on the wrong side for a left-hand legend).
func legendExtent(leg plot.Legend, labels []string) (w, h vg.Length) {
	var eh vg.Length
	em := leg.TextStyle.Width(" ")
	for _, l := range labels {
		w = max(w, leg.ThumbnailWidth+em+leg.TextStyle.Width(l))
		eh = max(eh, leg.TextStyle.Rectangle(l).Max.Y)
	}
	n := vg.Length(len(labels))
	return w + em, n*eh + (n-1)*leg.Padding // an em more: the measured widths fall short
}

// addCurve adds a curve's plotters to p and returns its legend thumbnails.
func (f *Figure) addCurve(p *plot.Plot, cv Curve) ([]plot.Thumbnailer, error) {
	if len(cv.X) != len(cv.Y) {
		return nil, fmt.Errorf("study: curve %q: %d abscissae and %d ordinates", cv.Label, len(cv.X), len(cv.Y))
	}
	xs, ys := positive(cv.X, f.LogX), positive(cv.Y, f.LogY)
	var pts plotter.XYs
	for i := range xs {
		if finite(xs[i], ys[i]) {
			pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
		}
	}
	if len(pts) == 0 {
		return cv.Style.thumbnails(), nil
	}
	var ts []plot.Thumbnailer
	if !cv.Style.NoLine {
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("study: curve %q: %w", cv.Label, err)
		}
		line.LineStyle = cv.Style.lineStyle()
		p.Add(line)
		ts = append(ts, line)
	}
	if cv.Style.NoLine || cv.Style.Marker != 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("study: curve %q: %w", cv.Label, err)
		}
		sc.GlyphStyle = cv.Style.glyphStyle()
		p.Add(sc)
		ts = append(ts, sc)
	}
	return ts, nil
}

// positive returns v with the values that a logarithmic axis cannot show (zero or
// negative) raised to the smallest positive value of v; v itself when log is false.
func positive(v []float64, log bool) []float64 {
	if !log {
		return v
	}
	floor := math.Inf(1)
	for _, x := range v {
		if x > 0 {
			floor = math.Min(floor, x)
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x
		if x <= 0 {
			out[i] = floor
		}
	}
	return out
}
