package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strings"

	"github.com/certbench/certbench/growth"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart is one picture: a title over a grid of plots.
type Chart struct {
	// ID names the chart in file names and page anchors
	// ("growth-renew-1", "scenario-renew-1-of-1000").
	ID string
	// Title is drawn at the top of the chart.
	Title string
	// Caption is a sentence about what the chart shows, for the page.
	Caption string

	plots        [][]*plot.Plot
	tileW, tileH vg.Length
}

// chartFont is the font of chart text: Liberation Sans, metrically
// compatible with Arial and Helvetica.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

const titleHeight = 30 // points, the chart title's band

// Size returns the chart's width and height.
func (c *Chart) Size() (w, h vg.Length) {
	cols := 0
	for _, row := range c.plots {
		cols = max(cols, len(row))
	}
	return vg.Length(cols) * c.tileW, vg.Length(len(c.plots))*c.tileH + titleHeight
}

// draw draws the chart on a canvas of its size. It fails, drawing
// nothing, if a panel's axis range is not finite (or not positive on a log
// axis): gonum/plot would spin in the tick code or panic on such a range.
// A panic while drawing is an error too.
func (c *Chart) draw(dc draw.Canvas) (err error) {
	for _, row := range c.plots {
		for _, p := range row {
			if p == nil {
				continue
			}
			if err := checkAxes(p); err != nil {
				return fmt.Errorf("chart %s: %w", c.ID, err)
			}
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chart %s: drawing failed: %v", c.ID, r)
		}
	}()
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	sty := draw.TextStyle{
		Color:   color.Black,
		Font:    font.From(chartFont, 13),
		XAlign:  draw.XCenter,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
	sty.Font.Weight = xfont.WeightBold
	dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - 4}, c.Title)
	body := dc
	body.Max.Y -= titleHeight
	cols := 0
	for _, row := range c.plots {
		cols = max(cols, len(row))
	}
	grid := make([][]*plot.Plot, len(c.plots))
	for j, row := range c.plots {
		grid[j] = make([]*plot.Plot, cols)
		copy(grid[j], row)
	}
	tiles := draw.Tiles{Rows: len(grid), Cols: cols, PadX: 14, PadY: 14, PadLeft: 6, PadRight: 10, PadBottom: 6}
	// Each panel in its own tile (not plot.Align, which would move the
	// titles of panels with narrower axes out of line).
	for j, row := range grid {
		for i, p := range row {
			if p != nil {
				p.Draw(tiles.At(body, i, j))
			}
		}
	}
	return nil
}

// checkAxes reports an axis of p whose range no ticker can mark: not
// finite, or not positive on a log scale. Non-finite data reaches the
// axes through the plotters' data ranges.
func checkAxes(p *plot.Plot) error {
	for _, ax := range []struct {
		name string
		a    *plot.Axis
	}{{"x", &p.X}, {"y", &p.Y}} {
		lo, hi := ax.a.Min, ax.a.Max
		if !finite(lo) || !finite(hi) {
			return fmt.Errorf("panel %q: %s axis from %v to %v: values are not finite numbers", p.Title.Text, ax.name, lo, hi)
		}
		if _, log := ax.a.Scale.(plot.LogScale); log && !(lo > 0) {
			return fmt.Errorf("panel %q: log-scale %s axis from %v to %v: values must be positive", p.Title.Text, ax.name, lo, hi)
		}
	}
	return nil
}

// SVG renders the chart as an SVG document.
func (c *Chart) SVG() ([]byte, error) {
	w, h := c.Size()
	cv := vgsvg.New(w, h)
	if err := c.draw(draw.New(cv)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PNG renders the chart as a PNG image at dpi dots per inch (0 means 144,
// sharp on high-density screens).
func (c *Chart) PNG(dpi int) ([]byte, error) {
	if dpi <= 0 {
		dpi = 144
	}
	w, h := c.Size()
	cv := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	if err := c.draw(draw.New(cv)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var (
	svgProlog = regexp.MustCompile(`(?s)\A.*?(<svg\b)`)
	svgXMLNS  = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)
)

// inlineSVG renders the chart for inclusion in an HTML page: without the
// XML prolog and the namespace attributes (HTML does not need them), so
// that the page holds no URL at all.
func (c *Chart) inlineSVG() ([]byte, error) {
	b, err := c.SVG()
	if err != nil {
		return nil, err
	}
	b = svgProlog.ReplaceAll(b, []byte("$1"))
	b = svgXMLNS.ReplaceAll(b, nil)
	return b, nil
}

// palette gives stores their colours, in the order they are first named
// (colour-blind safe, from ColorBrewer's Dark2 and Set1).
var palette = []color.RGBA{
	{0xd9, 0x5f, 0x02, 0xff}, // orange
	{0x1b, 0x9e, 0x77, 0xff}, // teal
	{0x75, 0x70, 0xb3, 0xff}, // purple
	{0xe7, 0x29, 0x8a, 0xff}, // pink
	{0x66, 0xa6, 0x1e, 0xff}, // green
	{0xa6, 0x76, 0x1d, 0xff}, // brown
	{0x37, 0x7e, 0xb8, 0xff}, // blue
	{0x66, 0x66, 0x66, 0xff}, // grey
}

// colors assigns palette colours to store names in order.
type colors struct {
	names []string
}

func (cs *colors) of(name string) color.RGBA {
	for i, n := range cs.names {
		if n == name {
			return palette[i%len(palette)]
		}
	}
	cs.names = append(cs.names, name)
	return palette[(len(cs.names)-1)%len(palette)]
}

// newPlot returns a plot with certbench's fonts and sizes.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(chartFont, 11)
	p.Title.Padding = 6
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(chartFont, 9.5)
		ax.Tick.Label.Font = font.From(chartFont, 8.5)
		ax.Tick.Length = 4
		ax.Padding = 2
	}
	p.Legend.TextStyle.Font = font.From(chartFont, 9)
	p.Legend.ThumbnailWidth = 18
	return p
}

// barValue is one bar: a median and its confidence interval.
type barValue struct {
	center, lo, hi float64
	color          color.Color
}

// bars draws one bar per store from the bottom of the axis to the median,
// with the confidence interval as an error bar and the median's value
// above.
type bars struct {
	vals   []barValue
	log    bool
	format func(float64) string
	label  text.Style
}

func (b *bars) finite(v barValue) (lo, hi float64, ok bool) {
	if math.IsInf(v.lo, 0) || math.IsInf(v.hi, 0) || math.IsNaN(v.lo) || math.IsNaN(v.hi) || v.hi <= v.lo {
		return 0, 0, false
	}
	if b.log && v.lo <= 0 {
		return 0, 0, false
	}
	return v.lo, v.hi, true
}

// DataRange implements plot.DataRanger: room above the tallest bar for its
// label, and on a log axis a floor below the smallest.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(len(b.vals))-0.5
	top, bottom := 0.0, math.Inf(1)
	for _, v := range b.vals {
		if !finite(v.center) {
			// No range: the chart's axis check reports it.
			return xmin, xmax, math.NaN(), math.NaN()
		}
		t := v.center
		if _, hi, ok := b.finite(v); ok {
			t = math.Max(t, hi)
		}
		top = math.Max(top, t)
		if v.center > 0 {
			bottom = math.Min(bottom, v.center)
		}
		if lo, _, ok := b.finite(v); ok && lo > 0 {
			bottom = math.Min(bottom, lo)
		}
	}
	if top <= 0 {
		top = 1
	}
	if b.log {
		if math.IsInf(bottom, 1) {
			bottom = top / 10
		}
		return xmin, xmax, bottom / 3, top * 4
	}
	return xmin, xmax, 0, top * 1.2
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	base := trY(p.Y.Min)
	if !b.log && p.Y.Min < 0 {
		base = trY(0)
	}
	line := draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
	for i, v := range b.vals {
		x0, x1 := trX(float64(i)-0.3), trX(float64(i)+0.3)
		xc := trX(float64(i))
		top := base
		if v.center > 0 {
			top = trY(v.center)
			c.FillPolygon(v.color, []vg.Point{{X: x0, Y: base}, {X: x1, Y: base}, {X: x1, Y: top}, {X: x0, Y: top}})
		}
		labelY := top
		if lo, hi, ok := b.finite(v); ok {
			ylo, yhi := trY(math.Max(lo, p.Y.Min)), trY(math.Min(hi, p.Y.Max))
			capW := (x1 - x0) / 6
			c.StrokeLine2(line, xc, ylo, xc, yhi)
			c.StrokeLine2(line, xc-capW, ylo, xc+capW, ylo)
			c.StrokeLine2(line, xc-capW, yhi, xc+capW, yhi)
			labelY = max(labelY, yhi)
		}
		c.FillText(b.label, vg.Point{X: xc, Y: labelY + 2}, b.format(v.center))
	}
}

// barPlot makes one panel of a scenario chart: a metric of each store.
func barPlot(unit string, stores []string, vals []barValue) *plot.Plot {
	info := infoOf(unit)
	p := newPlot(info.title)
	lo, hi := math.Inf(1), 0.0
	for _, v := range vals {
		if v.center > 0 {
			lo = math.Min(lo, v.center)
		}
		hi = math.Max(hi, v.center)
	}
	b := &bars{vals: vals, format: info.format, log: hi > 0 && hi/lo > 30}
	b.label = text.Style{Color: color.Black, Font: font.From(chartFont, 8), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = color.Gray{Y: 0xdd}
	p.Add(grid, b)
	p.NominalX(stores...)
	p.X.Tick.Label.Font = font.From(chartFont, 9)
	switch {
	case b.log:
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicker{format: info.format, bytes: info.bytes}
		p.Y.Label.Text = "log scale"
	case info.bytes:
		p.Y.Tick.Marker = bytesTicker{}
	default:
		p.Y.Tick.Marker = labelTicker{ticker: plot.DefaultTicks{}, format: info.format}
	}
	return p
}

// growthPoints adapts a curve's positive points to plotter.XYer and
// plotter.YErrorer.
type growthPoints struct {
	xs, ys, lo, hi []float64
}

func (g growthPoints) Len() int                        { return len(g.xs) }
func (g growthPoints) XY(i int) (float64, float64)     { return g.xs[i], g.ys[i] }
func (g growthPoints) YError(i int) (float64, float64) { return g.ys[i] - g.lo[i], g.hi[i] - g.ys[i] }

// growthPlot makes one log-log panel of a growth chart: a unit's median
// at each pool size, one line per store, with the fitted power law.
func growthPlot(unit string, curves []*growth.Curve, cs *colors) (*plot.Plot, error) {
	info := infoOf(unit)
	// Every op of a sweep family is one refresh (or, for startup, one load).
	p := newPlot(strings.Replace(info.title, " per op", " per refresh", 1))
	p.X.Label.Text = "certificates in the pool, N (log scale)"
	p.Y.Label.Text = "log scale"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicker{format: formatCount}
	p.Y.Tick.Marker = logTicker{format: info.format, bytes: info.bytes}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = 4, -2
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe6}
	grid.Horizontal.Color = color.Gray{Y: 0xe6}
	p.Add(grid)

	xmin, xmax, ymin, ymax := math.Inf(1), 0.0, math.Inf(1), 0.0
	plotted, zeros := 0, 0
	for _, c := range curves {
		var g, withCI growthPoints
		for _, pt := range c.Points {
			if !finite(pt.Center) {
				return nil, fmt.Errorf("%s of %s at N=%d: value %v is not a finite number", unit, c.Store, pt.Size, pt.Center)
			}
			if !(pt.Center > 0) {
				continue
			}
			x := float64(pt.Size)
			g.xs, g.ys = append(g.xs, x), append(g.ys, pt.Center)
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, pt.Center), math.Max(ymax, pt.Center)
			if pt.Lo > 0 && !math.IsInf(pt.Lo, 0) && !math.IsInf(pt.Hi, 0) && pt.Hi > pt.Lo {
				withCI.xs, withCI.ys = append(withCI.xs, x), append(withCI.ys, pt.Center)
				withCI.lo, withCI.hi = append(withCI.lo, pt.Lo), append(withCI.hi, pt.Hi)
				ymin, ymax = math.Min(ymin, pt.Lo), math.Max(ymax, pt.Hi)
			}
		}
		if g.Len() == 0 {
			if growth.AllZero(c) {
				// Nothing to draw on a log axis; say so in the legend.
				mark, err := plotter.NewScatter(plotter.XYs{{X: 1, Y: 1}})
				if err != nil {
					return nil, err
				}
				mark.Color, mark.Shape, mark.Radius = cs.of(c.Store), draw.CircleGlyph{}, vg.Points(2.6)
				p.Legend.Add(c.Store+": 0 at every size (not drawn)", mark)
				zeros++
			}
			continue
		}
		plotted++
		col := cs.of(c.Store)
		line, points, err := plotter.NewLinePoints(g)
		if err != nil {
			return nil, err
		}
		line.Color = col
		line.Width = vg.Points(1.6)
		points.Color = col
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2.6)
		p.Add(line, points)
		if withCI.Len() > 0 {
			eb, err := plotter.NewYErrorBars(withCI)
			if err != nil {
				return nil, err
			}
			eb.Color = col
			eb.Width = vg.Points(1)
			eb.CapWidth = vg.Points(5)
			p.Add(eb)
		}
		name := c.Store
		if c.FitErr == nil {
			name = c.Store + ": N^" + kText(c.Fit.Exponent)
			if len(c.Points) >= 3 && c.LastErr == nil {
				name += " (last step N^" + kText(c.Last.Exponent) + ")"
			}
			lo, hi := float64(c.Points[0].Size), float64(c.Points[len(c.Points)-1].Size)
			fit := plotter.XYs{{X: lo, Y: c.Fit.Coefficient * math.Pow(lo, c.Fit.Exponent)}, {X: hi, Y: c.Fit.Coefficient * math.Pow(hi, c.Fit.Exponent)}}
			fl, err := plotter.NewLine(fit)
			if err != nil {
				return nil, err
			}
			fl.Color = col
			fl.Width = vg.Points(0.8)
			fl.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			p.Add(fl)
			ymin, ymax = math.Min(ymin, fit[0].Y), math.Max(ymax, fit[1].Y)
		}
		p.Legend.Add(name, line, points)
	}
	if plotted == 0 {
		return nil, nil
	}
	if !finite(ymin) || !finite(ymax) {
		return nil, fmt.Errorf("%s: values from %v to %v: not finite numbers (a fitted power law?)", unit, ymin, ymax)
	}
	p.X.Min, p.X.Max = xmin/1.6, xmax*1.6
	p.Y.Min, p.Y.Max = ymin/1.6, ymax*1.6
	// Room at the top left for the legend: the points in the left part of
	// the panel must stay below the legend's lines (about 12 pt each, of a
	// data area about 170 pt high).
	leftMax := 0.0
	mid := math.Pow(p.X.Min, 0.12) * math.Pow(p.X.Max, 0.88) // 88% of the way across
	for _, c := range curves {
		for _, pt := range c.Points {
			if float64(pt.Size) <= mid && pt.Center > 0 {
				leftMax = math.Max(leftMax, math.Max(pt.Center, pt.Hi*boolTo(finite(pt.Hi))))
			}
		}
	}
	legend := (12*float64(plotted+zeros) + 8) / 170
	if leftMax > 0 {
		need := math.Exp(math.Log(leftMax/p.Y.Min) / (1 - legend))
		p.Y.Max = math.Max(p.Y.Max, p.Y.Min*need)
	}
	return p, nil
}

func boolTo(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
