package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/results"
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
	// ID names the chart in file names and page anchors.
	ID      string
	Title   string
	Caption string // what the chart shows, for the page

	plots        [][]*plot.Plot
	tileW, tileH vg.Length
	better       map[*plot.Plot]int // each panel's results.Better
}

// betterNote says which way is better on p, or "".
func (c *Chart) betterNote(p *plot.Plot) string {
	switch c.better[p] {
	case results.LowerIsBetter:
		return "lower is better"
	case results.HigherIsBetter:
		return "higher is better"
	}
	return ""
}

// chartFont is Liberation Sans, metrically Arial and Helvetica.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

const (
	titleHeight = 30 // points, the chart title's band
	noteHeight  = 13 // points, a line of note under the title or a panel
	legendGap   = 4  // points between a panel's x axis and its legend
)

// noteStyle is the style of the direction and scale notes.
func noteStyle() draw.TextStyle {
	return draw.TextStyle{
		Color:   color.Gray{Y: 0x55},
		Font:    font.From(chartFont, 8.5),
		XAlign:  draw.XCenter,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
}

// panels returns the chart's panels, row by row.
// Panels is the number of panels (plots) the chart draws.
func (c *Chart) Panels() int { return len(c.panels()) }

func (c *Chart) panels() []*plot.Plot {
	var ps []*plot.Plot
	for _, row := range c.plots {
		for _, p := range row {
			if p != nil {
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// scaleNote says which axes of p are logarithmic, or "".
func scaleNote(p *plot.Plot) string {
	_, xlog := p.X.Scale.(plot.LogScale)
	_, ylog := p.Y.Scale.(plot.LogScale)
	switch {
	case xlog && ylog:
		return "both axes logarithmic"
	case ylog:
		return "y axis logarithmic"
	case xlog:
		return "x axis logarithmic"
	}
	return ""
}

// notes returns the direction and scale notes: those true of every
// panel once, under the title, the others under their panels.
func (c *Chart) notes() (chart string, panel map[*plot.Plot]string) {
	ps := c.panels()
	if len(ps) == 0 {
		return "", nil
	}
	join := func(a, b string) string { return strings.TrimPrefix(a+"; "+b, "; ") }
	for _, note := range []func(*plot.Plot) string{c.betterNote, scaleNote} {
		if !slices.ContainsFunc(ps, func(p *plot.Plot) bool { return note(p) != note(ps[0]) }) {
			if n := note(ps[0]); n != "" {
				chart = join(chart, n)
			}
			continue
		}
		for _, p := range ps {
			if n := note(p); n != "" {
				if panel == nil {
					panel = make(map[*plot.Plot]string)
				}
				panel[p] = join(panel[p], n)
			}
		}
	}
	return chart, panel
}

// legendHeight returns the height of p's legend, 0 if it has no entries.
func legendHeight(p *plot.Plot) vg.Length {
	return p.Legend.Rectangle(draw.Canvas{}).Size().Y
}

// footer returns the height of the band under each panel for its note
// and legend.
func (c *Chart) footer() vg.Length {
	_, panelNotes := c.notes()
	var h vg.Length
	if len(panelNotes) > 0 {
		h += noteHeight
	}
	var leg vg.Length
	for _, p := range c.panels() {
		leg = max(leg, legendHeight(p))
	}
	if leg > 0 {
		h += leg + legendGap
	}
	return h
}

// header returns the height of the title band, with the chart's note.
func (c *Chart) header() vg.Length {
	if note, _ := c.notes(); note != "" {
		return titleHeight + noteHeight
	}
	return titleHeight
}

// cols returns the number of columns of panels.
func (c *Chart) cols() int {
	n := 0
	for _, row := range c.plots {
		n = max(n, len(row))
	}
	return n
}

// Size returns the chart's width and height.
func (c *Chart) Size() (w, h vg.Length) {
	return vg.Length(c.cols()) * c.tileW, vg.Length(len(c.plots))*(c.tileH+c.footer()) + c.header()
}

// panelLayout is where one panel goes on the chart's canvas.
type panelLayout struct {
	plot *plot.Plot
	// bare is the plot without legend and axis labels, which the chart
	// draws itself: gonum/plot centres a log axis's label off centre and
	// draws the legend over the data.
	bare                 *plot.Plot
	area                 draw.Canvas  // where bare is drawn
	data                 vg.Rectangle // bare's data area
	yText                string       // the y axis label, wrapped to the data area's height
	xLabel, yLabel, note vg.Point
	legend               vg.Rectangle // empty without a legend
}

// bare returns a copy of p without its legend and axis labels.
func bare(p *plot.Plot) *plot.Plot {
	b := *p
	b.Legend = plot.NewLegend()
	b.X.Label.Text, b.Y.Label.Text = "", ""
	return &b
}

// xLabelHeight and yLabelWidth return the room an axis label takes, as
// gonum/plot reserves it.
func xLabelHeight(p *plot.Plot) vg.Length {
	if p.X.Label.Text == "" {
		return 0
	}
	return p.X.Label.TextStyle.Height(p.X.Label.Text) + p.X.Label.Padding
}

func yLabelWidth(p *plot.Plot, label string) vg.Length {
	if label == "" {
		return 0
	}
	st := p.Y.Label.TextStyle
	return st.Height(label) + st.FontExtents().Descent + p.Y.Label.Padding
}

// wrap breaks s at spaces into lines no wider than width in st, where
// it can: gonum/plot never shortens a title or label, it runs over.
func wrap(s string, st text.Style, width vg.Length) string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && st.Width(line+" "+w) > width {
				lines = append(lines, line)
				line = w
				continue
			}
			line = strings.TrimPrefix(line+" "+w, " ")
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// layout places the panels on dc, a tile each: the plot, then its note
// and legend.
func (c *Chart) layout(dc draw.Canvas) []panelLayout {
	body := dc
	body.Max.Y -= c.header()
	_, panelNotes := c.notes()
	foot := c.footer()
	tiles := draw.Tiles{Rows: len(c.plots), Cols: c.cols(), PadX: 14, PadY: 14, PadLeft: 6, PadRight: 10, PadBottom: 6}
	var out []panelLayout
	// Not plot.Align, which would move titles of narrower axes out of line.
	for j, row := range c.plots {
		for i, p := range row {
			if p == nil {
				continue
			}
			tile := tiles.At(body, i, j)
			l := panelLayout{plot: p, bare: bare(p), yText: p.Y.Label.Text}
			l.bare.Title.Text = wrap(p.Title.Text, p.Title.TextStyle, tile.Size().X)
			xh := xLabelHeight(p)
			for range 2 { // once more if the label wraps: a line narrows the data area
				l.area = draw.Crop(tile, yLabelWidth(p, l.yText), 0, foot+xh, 0)
				l.data = l.bare.DataCanvas(l.area).Rectangle
				if w := wrap(l.yText, p.Y.Label.TextStyle, l.data.Size().Y); w != l.yText {
					l.yText = w
					continue
				}
				break
			}
			midX, midY := (l.data.Min.X+l.data.Max.X)/2, (l.data.Min.Y+l.data.Max.Y)/2
			ext := p.X.Label.TextStyle.FontExtents()
			l.xLabel = vg.Point{X: midX, Y: l.area.Min.Y - xh + ext.Descent}
			l.yLabel = vg.Point{X: tile.Min.X + p.Y.Label.TextStyle.Height(l.yText) - p.Y.Label.TextStyle.FontExtents().Descent, Y: midY}
			y := l.area.Min.Y - xh
			if len(panelNotes) > 0 {
				l.note = vg.Point{X: midX, Y: y}
				y -= noteHeight
			}
			if h := legendHeight(p); h > 0 {
				w := p.Legend.Rectangle(draw.Canvas{}).Size().X
				top := y - legendGap
				l.legend = vg.Rectangle{Min: vg.Point{X: l.data.Min.X, Y: top - h}, Max: vg.Point{X: l.data.Min.X + w, Y: top}}
			}
			out = append(out, l)
		}
	}
	return out
}

// tickGap is the least room between two x tick labels.
const tickGap = 6 // points

// tickShortfall returns how much wider the narrowest panel's data area
// must be for no two of its x tick labels to come closer than tickGap,
// 0 if none is too narrow.
func (c *Chart) tickShortfall() vg.Length {
	w, h := c.Size()
	var short vg.Length
	for _, l := range c.layout(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}) {
		p := l.plot
		if _, log := p.X.Scale.(plot.LogScale); log {
			continue
		}
		var prev *plot.Tick
		for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			if tk.Label == "" {
				continue
			}
			if prev != nil {
				need := (p.X.Tick.Label.Width(prev.Label)+p.X.Tick.Label.Width(tk.Label))/2 + tickGap
				short = max(short, need*vg.Length((p.X.Max-p.X.Min)/(tk.Value-prev.Value))-l.data.Size().X)
			}
			prev = &tk
		}
	}
	return short
}

// fitTicks widens the tiles until no x tick labels touch, then puts fewer
// panels in a row, so that the chart is no wider than maxW.
func (c *Chart) fitTicks(maxW vg.Length) {
	panels, cols := c.panels(), c.cols()
	for range 3 { // fewer columns change the padding a tile gets
		short := c.tickShortfall()
		if short <= 0 {
			return
		}
		c.tileW += short + 1
		c.plots = gridOf(panels, max(1, min(cols, int(maxW/c.tileW))))
	}
}

// draw draws the chart on a canvas of its size. It fails, drawing
// nothing, on an axis range gonum/plot would spin or panic on; a panic
// while drawing is an error too.
func (c *Chart) draw(dc draw.Canvas) (err error) {
	for _, p := range c.panels() {
		if err := checkAxes(p); err != nil {
			return fmt.Errorf("chart %s: %w", c.ID, err)
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
	mid := (dc.Min.X + dc.Max.X) / 2
	dc.FillText(sty, vg.Point{X: mid, Y: dc.Max.Y - 4}, c.Title)
	chartNote, panelNotes := c.notes()
	if chartNote != "" {
		dc.FillText(noteStyle(), vg.Point{X: mid, Y: dc.Max.Y - titleHeight + 2}, chartNote)
	}
	for _, l := range c.layout(dc) {
		l.bare.Draw(l.area)
		p := l.plot
		if p.X.Label.Text != "" {
			dc.FillText(p.X.Label.TextStyle, l.xLabel, p.X.Label.Text)
		}
		if l.yText != "" {
			st := p.Y.Label.TextStyle
			st.Rotation += math.Pi / 2
			dc.FillText(st, l.yLabel, l.yText)
		}
		if note := panelNotes[p]; note != "" {
			dc.FillText(noteStyle(), l.note, note)
		}
		if l.legend.Size().Y > 0 {
			leg := p.Legend
			leg.Top, leg.Left = true, true
			leg.XOffs, leg.YOffs = 0, 0
			leg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: l.legend})
		}
	}
	return nil
}

// checkAxes reports an axis of p that is not finite, or not positive on
// a log scale.
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

// PNG renders the chart as a PNG image at dpi (0 means 144).
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

// inlineSVG renders the chart for an HTML page: without the XML prolog
// and namespaces, so that the page holds no URL.
func (c *Chart) inlineSVG() ([]byte, error) {
	b, err := c.SVG()
	if err != nil {
		return nil, err
	}
	b = svgProlog.ReplaceAll(b, []byte("$1"))
	b = svgXMLNS.ReplaceAll(b, nil)
	return b, nil
}

// palette gives stores their colours: ColorBrewer's Dark2
// (colour-blind safe).
var palette = []color.RGBA{
	{0xd9, 0x5f, 0x02, 0xff}, // orange
	{0x1b, 0x9e, 0x77, 0xff}, // teal
	{0x75, 0x70, 0xb3, 0xff}, // purple
	{0xe7, 0x29, 0x8a, 0xff}, // pink
	{0x66, 0xa6, 0x1e, 0xff}, // green
	{0xa6, 0x76, 0x1d, 0xff}, // brown
	{0xe6, 0xab, 0x02, 0xff}, // mustard
	{0x66, 0x66, 0x66, 0xff}, // grey
}

// filePalette gives input files shades of blue, a hue no store has, so
// that a file is never taken for a store.
var filePalette = []color.RGBA{
	{0x9e, 0xca, 0xe1, 0xff}, // light blue
	{0x21, 0x66, 0xac, 0xff}, // dark blue
	{0x4e, 0x9a, 0xd0, 0xff}, // mid blue
	{0x08, 0x30, 0x6b, 0xff}, // navy
}

// colors assigns colours to stores and files in the order asked for.
type colors struct {
	names, files []string
}

func (cs *colors) of(name string) color.RGBA {
	return pick(&cs.names, name, palette)
}

// pick returns the colour of name, adding it to names if new.
func pick(names *[]string, name string, pal []color.RGBA) color.RGBA {
	i := slices.Index(*names, name)
	if i < 0 {
		*names = append(*names, name)
		i = len(*names) - 1
	}
	return pal[i%len(pal)]
}

// columnColor returns the colour of a comparison column: a store's or a
// file's.
func (r *Report) columnColor(label string) color.RGBA {
	if r.filesAreColumns() {
		return pick(&r.colors.files, label, filePalette)
	}
	return r.colors.of(label)
}

// filesAreColumns reports whether the comparison's columns are files.
func (r *Report) filesAreColumns() bool {
	return r.Compare != nil && slices.ContainsFunc(strings.Split(r.Compare.Options.Col, ","), func(f string) bool { return strings.TrimSpace(f) == results.FileKey })
}

// tick returns the label a chart shows for a column label.
func (r *Report) tick(label string) string {
	if t, ok := r.ticks[label]; ok {
		return t
	}
	return label
}

// fileTicks shortens file labels for ticks and legends by the leading
// directories all share, unless that makes two equal or one empty.
func fileTicks(labels []string) map[string]string {
	if len(labels) == 0 {
		return nil
	}
	parts := make([][]string, len(labels))
	common := -1
	for i, l := range labels {
		parts[i] = strings.Split(l, "/")
		dirs := parts[i][:len(parts[i])-1]
		if common < 0 {
			common = len(dirs)
		}
		common = min(common, len(dirs))
		for k := 0; k < common; k++ {
			if dirs[k] != parts[0][k] {
				common = k
				break
			}
		}
	}
	if common <= 0 {
		return nil
	}
	ticks := make(map[string]string, len(labels))
	seen := make(map[string]bool, len(labels))
	for i, l := range labels {
		t := strings.Join(parts[i][common:], "/")
		if t == "" || seen[t] {
			return nil
		}
		seen[t] = true
		ticks[l] = t
	}
	return ticks
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

// gridLines returns a grid of vertical and horizontal lines in the
// colours given (nil: none).
func gridLines(vertical, horizontal color.Color) *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = vertical, horizontal
	return g
}

// samplesText says how many samples ns are: "n=6", or "n=3–6" when
// they differ.
func samplesText(ns []int) string {
	if len(ns) == 0 {
		return "n=0"
	}
	lo, hi := slices.Min(ns), slices.Max(ns)
	if lo == hi {
		return "n=" + strconv.Itoa(lo)
	}
	return fmt.Sprintf("n=%d–%d", lo, hi)
}

// barValue is one store's median and interval in a scenario panel.
type barValue struct {
	center, lo, hi float64
	n              int // samples; 0: not known
	color          color.Color
	note           string // instead of a value: why there is none
}

// bars draws a value per store: a bar from 0, or on a log axis (where a
// bar's length means nothing) a dot; the interval a whisker; the value
// at the bar's top or the dot, beside the whisker where that is long.
type bars struct {
	vals   []barValue
	log    bool
	format func(float64) string
	label  text.Style
}

// dotRadius is the radius of a dot on a logarithmic axis.
const dotRadius = 4

// finite returns v's interval if it can be drawn.
func (b *bars) finite(v barValue) (lo, hi float64, ok bool) {
	if !finite(v.lo) || !finite(v.hi) || v.hi <= v.lo || (b.log && v.lo <= 0) {
		return 0, 0, false
	}
	return v.lo, v.hi, true
}

// DataRange implements plot.DataRanger, with room for the labels.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(len(b.vals))-0.5
	top, bottom := 0.0, math.Inf(1)
	for _, v := range b.vals {
		if v.note != "" {
			continue
		}
		if !finite(v.center) {
			// No range: the chart's axis check reports it.
			return xmin, xmax, math.NaN(), math.NaN()
		}
		top = math.Max(top, v.center)
		if v.center > 0 {
			bottom = math.Min(bottom, v.center)
		}
		if lo, hi, ok := b.finite(v); ok {
			top = math.Max(top, hi)
			if lo > 0 {
				bottom = math.Min(bottom, lo)
			}
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
		if v.note != "" {
			c.FillText(b.label, vg.Point{X: xc, Y: base + 4}, v.note)
			continue
		}
		top := base
		if v.center > 0 {
			top = trY(v.center)
			if !b.log {
				c.FillPolygon(v.color, []vg.Point{{X: x0, Y: base}, {X: x1, Y: base}, {X: x1, Y: top}, {X: x0, Y: top}})
			}
		}
		txt := b.format(v.center)
		st, at := b.label, vg.Point{X: xc, Y: top + 2} // above the bar's top
		if b.log && v.center > 0 {
			at.Y += dotRadius
		}
		if lo, hi, ok := b.finite(v); ok {
			ylo, yhi := trY(math.Max(lo, p.Y.Min)), trY(math.Min(hi, p.Y.Max))
			capW := (x1 - x0) / 6
			c.StrokeLine2(line, xc, ylo, xc, yhi)
			c.StrokeLine2(line, xc-capW, ylo, xc+capW, ylo)
			c.StrokeLine2(line, xc-capW, yhi, xc+capW, yhi)
			switch {
			case yhi-at.Y < st.Height(txt)/2: // a short whisker: the label just above it
				at.Y = max(at.Y, yhi+2)
			case b.log: // beside the whisker, at the dot
				st.XAlign, st.YAlign, at = draw.XLeft, draw.YCenter, vg.Point{X: xc + dotRadius + 2, Y: top}
			default: // beside the whisker, on the bar's top
				st.XAlign, at.X = draw.XLeft, xc+3
			}
		}
		switch {
		case b.log && v.center > 0:
			c.DrawGlyph(draw.GlyphStyle{Color: v.color, Radius: dotRadius, Shape: draw.CircleGlyph{}}, vg.Point{X: xc, Y: top})
		case b.log: // no 0 on a log axis: a ring on its floor
			c.DrawGlyph(draw.GlyphStyle{Color: v.color, Radius: dotRadius, Shape: draw.RingGlyph{}}, vg.Point{X: xc, Y: base + dotRadius})
			at.Y = base + 2*dotRadius + 2
		}
		c.FillText(st, at, txt)
	}
}

// axisLabel is a value axis's label: title, "(bytes)" for bytes.
func axisLabel(unit, title string) string {
	if results.IsBytes(unit) {
		return title + " (bytes)"
	}
	return title
}

// barPlot makes a panel of a metric of each store: bars, or dots on a
// log axis when the values differ by more than 30×.
func barPlot(unit string, stores []string, vals []barValue) *plot.Plot {
	p := newPlot(results.Title(unit))
	lo, hi := math.Inf(1), 0.0
	for _, v := range vals {
		if v.center > 0 {
			lo = math.Min(lo, v.center)
		}
		hi = math.Max(hi, v.center)
	}
	b := &bars{vals: vals, format: formatOf(unit), log: hi > 0 && hi/lo > 30}
	b.label = text.Style{Color: color.Black, Font: font.From(chartFont, 8), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}
	p.Add(gridLines(nil, color.Gray{Y: 0xdd}), b)
	ticks := slices.Clone(stores)
	for i, v := range vals {
		if v.n > 0 {
			ticks[i] += "\nn=" + strconv.Itoa(v.n)
		}
	}
	p.NominalX(ticks...)
	p.X.Tick.Label.Font = font.From(chartFont, 9)
	p.Y.Label.Text = axisLabel(unit, p.Title.Text)
	switch {
	case b.log:
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicker{format: b.format, bytes: results.IsBytes(unit)}
	case results.IsBytes(unit):
		p.Y.Tick.Marker = bytesTicker{}
	default:
		p.Y.Tick.Marker = labelTicker{ticker: plot.DefaultTicks{}, format: b.format}
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

// growthPlot makes a log-log panel of a unit's medians by pool size, a
// line per store, with the fitted power law.
func growthPlot(unit string, curves []*growth.Curve, cs *colors) (*plot.Plot, error) {
	title := strings.Replace(results.Title(unit), " per op", " per refresh", 1)
	p := newPlot(title)
	p.X.Label.Text = growth.SizeName(curves[0].Family) + ", N"
	p.Y.Label.Text = axisLabel(unit, title)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicker{format: formatCount}
	p.Y.Tick.Marker = logTicker{format: formatOf(unit), bytes: results.IsBytes(unit)}
	p.Add(gridLines(color.Gray{Y: 0xe6}, color.Gray{Y: 0xe6}))

	xmin, xmax, ymin, ymax := math.Inf(1), 0.0, math.Inf(1), 0.0
	plotted := 0
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
				mark, err := plotter.NewScatter(plotter.XYs{{X: 1, Y: 1}})
				if err != nil {
					return nil, err
				}
				mark.Color, mark.Shape, mark.Radius = cs.of(c.Store), draw.CircleGlyph{}, vg.Points(2.6)
				p.Legend.Add(c.Store+": 0 at every size (not drawn)", mark)
			}
			continue
		}
		plotted++
		fit, err := addGrowthCurve(p, c, g, withCI, cs.of(c.Store))
		if err != nil {
			return nil, err
		}
		if fit != nil {
			ymin, ymax = math.Min(ymin, fit[0].Y), math.Max(ymax, fit[1].Y)
		}
	}
	if plotted == 0 {
		return nil, nil
	}
	if !finite(ymin) || !finite(ymax) {
		return nil, fmt.Errorf("%s: values from %v to %v: not finite numbers (a fitted power law?)", unit, ymin, ymax)
	}
	p.X.Min, p.X.Max = xmin/1.6, xmax*1.6
	p.Y.Min, p.Y.Max = ymin/1.6, ymax*1.6
	return p, nil
}

// addGrowthCurve draws a store's points, error bars and fitted power
// law, returning the fit's ends.
func addGrowthCurve(p *plot.Plot, c *growth.Curve, g, withCI growthPoints, col color.Color) (plotter.XYs, error) {
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
	var fit plotter.XYs
	if c.FitErr == nil {
		name = c.Store + ": N^" + growth.ExponentText(c.Fit.Exponent)
		if len(c.Points) >= 3 && c.LastErr == nil {
			name += " (last step N^" + growth.ExponentText(c.Last.Exponent) + ")"
		}
		lo, hi := float64(c.Points[0].Size), float64(c.Points[len(c.Points)-1].Size)
		fit = plotter.XYs{{X: lo, Y: c.Fit.Coefficient * math.Pow(lo, c.Fit.Exponent)}, {X: hi, Y: c.Fit.Coefficient * math.Pow(hi, c.Fit.Exponent)}}
		fl, err := plotter.NewLine(fit)
		if err != nil {
			return nil, err
		}
		fl.Color = col
		fl.Width = vg.Points(0.8)
		fl.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(fl)
	}
	p.Legend.Add(name, line, points)
	return fit, nil
}
