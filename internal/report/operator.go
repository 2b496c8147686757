package report

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The charts of "What operators feel" (docs/measurements.md): handshake
// latency without and under churn, and the peak heap of a refresh. The
// latency axis is logarithmic: what churn costs is a ratio.

// percentileUnits are the handshake percentiles under churn, in axis
// order, with their tick labels.
var percentileUnits = []struct{ unit, label string }{
	{results.UnitHandshakeP50Sec, "p50"},
	{results.UnitHandshakeP90Sec, "p90"},
	{results.UnitHandshakeP99Sec, "p99"},
	{results.UnitHandshakeP999Sec, "p99.9"},
	{results.UnitHandshakeMaxSec, "max"},
}

// p99Index is the position of p99 on the percentile axis.
const p99Index = 2

// operatorCharts makes a latency chart per handshake scenario with a
// churn-free p99, then the peak heap chart.
func (r *Report) operatorCharts() []*Chart {
	if r.Compare == nil {
		return nil
	}
	var charts []*Chart
	if calm := r.Compare.Table(results.UnitCalmP99Sec); calm != nil {
		for _, row := range calm.Rows {
			if ch := r.handshakeChart(row.Label); ch != nil {
				charts = append(charts, ch)
			}
		}
	}
	if ch := r.peakChart(); ch != nil {
		charts = append(charts, ch)
	}
	return charts
}

// storeValue is the median of one unit for one store of a row.
type storeValue struct {
	store string
	v     float64
	n     int // samples
}

// rowValues returns the positive finite medians of unit in the row
// labelled label.
func (r *Report) rowValues(unit, label string) []storeValue {
	t := r.Compare.Table(unit)
	if t == nil {
		return nil
	}
	i := slices.IndexFunc(t.Rows, func(row *compare.Row) bool { return row.Label == label })
	if i < 0 {
		return nil
	}
	var out []storeValue
	for j, c := range t.Rows[i].Cells {
		if c == nil || !finite(c.Summary.Center) || !(c.Summary.Center > 0) {
			continue
		}
		out = append(out, storeValue{store: t.Columns[j].Label, v: c.Summary.Center, n: c.N()})
	}
	return out
}

// valueOf returns the value of store in vs, and whether it is there.
func valueOf(vs []storeValue, store string) (float64, bool) {
	i := slices.IndexFunc(vs, func(s storeValue) bool { return s.store == store })
	if i < 0 {
		return 0, false
	}
	return vs[i].v, true
}

// handshakeChart makes the latency chart of one handshake scenario: the
// percentile curves and the p99 pairs; nil without both p99s.
func (r *Report) handshakeChart(label string) *Chart {
	d := hsChartData{
		calm:   r.rowValues(results.UnitCalmP99Sec, label),
		churn:  r.rowValues(results.UnitHandshakeP99Sec, label),
		ratios: r.rowValues(results.UnitP99ChurnRatio, label),
		pcts:   make([][]storeValue, len(percentileUnits)),
	}
	lo, hi := math.Inf(1), 0.0
	for i, pu := range percentileUnits {
		d.pcts[i] = r.rowValues(pu.unit, label)
		for _, sv := range d.pcts[i] {
			if !slices.Contains(d.stores, sv.store) {
				d.stores = append(d.stores, sv.store)
			}
			lo, hi = math.Min(lo, sv.v), math.Max(hi, sv.v)
		}
	}
	for _, sv := range d.calm {
		lo, hi = math.Min(lo, sv.v), math.Max(hi, sv.v)
	}
	if len(d.stores) == 0 || len(d.calm) == 0 || len(d.churn) == 0 {
		return nil
	}
	order := func(a, b string) int {
		return slices.IndexFunc(r.Compare.Columns, func(c compare.Column) bool { return c.Label == a }) -
			slices.IndexFunc(r.Compare.Columns, func(c compare.Column) bool { return c.Label == b })
	}
	slices.SortStableFunc(d.stores, order)
	ymin, ymax := lo/1.8, hi*2.2
	curves := r.percentileCurves(&d)
	curves.Y.Min, curves.Y.Max = ymin, ymax
	pair := r.churnPairPlot(&d)
	pair.Y.Min, pair.Y.Max = ymin, ymax
	var ns []int
	for _, sv := range d.churn {
		ns = append(ns, sv.n)
	}

	return withBetter([]*plot.Plot{curves, pair}, []int{results.LowerIsBetter, results.LowerIsBetter}, &Chart{
		ID:    "operators-handshake-" + safeID(strings.TrimPrefix(label, "scenario=")),
		Title: label + ": handshake latency, without and under churn",
		Caption: "Left: each store's handshake latency percentiles under churn (median over the samples of each percentile; a percentile curve, " +
			"since the results hold percentiles, not the latencies), with the p99 of the churn-free phase of the same store and process as a ring. " +
			"Right: p99 without churn (ring) and under churn (dot) per store, with both values and the median p99-churn-ratio written above (1 means churn costs nothing). " +
			"Latency axis logarithmic, shared by both panels, so equal ratios are equal distances. " +
			samplesText(ns) + " samples per store; no whiskers (a median over the samples, each a percentile of its own handshakes).",
		plots: [][]*plot.Plot{{curves, pair}},
		tileW: 400, tileH: 300,
	})
}

// hsChartData is what a handshake chart draws, per store.
type hsChartData struct {
	calm, churn, ratios []storeValue   // p99 without and under churn, p99-churn-ratio
	pcts                [][]storeValue // by percentileUnits, under churn
	stores              []string       // in the comparison's column order
}

// percentileCurves is panel 1: each store's percentile curve under churn,
// with its churn-free p99 as a ring.
func (r *Report) percentileCurves(d *hsChartData) *plot.Plot {
	curves := latencyPlot("handshake latency under churn, by percentile")
	labels := make([]string, len(percentileUnits))
	for i, pu := range percentileUnits {
		labels[i] = pu.label
	}
	curves.NominalX(labels...)
	curves.X.Label.Text = "percentile of the handshakes"
	curves.X.Min, curves.X.Max = -0.3, float64(len(percentileUnits))-0.7
	for _, st := range d.stores {
		col := r.columnColor(st)
		var xys plotter.XYs
		for i := range percentileUnits {
			if v, ok := valueOf(d.pcts[i], st); ok {
				xys = append(xys, plotter.XY{X: float64(i), Y: v})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue
		}
		line.Color, line.Width = col, vg.Points(1.6)
		points.Color, points.Shape, points.Radius = col, draw.CircleGlyph{}, vg.Points(2.8)
		curves.Add(line, points)
		curves.Legend.Add(r.tick(st)+" under churn", line, points)
		if v, ok := valueOf(d.calm, st); ok {
			ring, err := plotter.NewScatter(plotter.XYs{{X: p99Index, Y: v}})
			if err == nil {
				ring.Color, ring.Shape, ring.Radius = col, draw.RingGlyph{}, vg.Points(4.5)
				ring.GlyphStyle.Color = col
				curves.Add(ring)
				curves.Legend.Add(r.tick(st)+" p99 without churn", ring)
			}
		}
	}
	return curves
}

// churnPairPlot is panel 2: p99 without and under churn, per store.
func (r *Report) churnPairPlot(d *hsChartData) *plot.Plot {
	pair := latencyPlot("handshake p99: without churn → under churn")
	var shown []string
	var pairs []churnPair
	for _, st := range d.stores {
		c, ok1 := valueOf(d.calm, st)
		u, ok2 := valueOf(d.churn, st)
		if !ok1 || !ok2 {
			continue
		}
		ratio, ok := valueOf(d.ratios, st)
		if !ok {
			ratio = u / c
		}
		shown = append(shown, r.tick(st))
		pairs = append(pairs, churnPair{calm: c, churn: u, ratio: ratio, color: r.columnColor(st)})
	}
	pp := &churnPairs{pairs: pairs, label: text.Style{Color: color.Black, Font: font.From(chartFont, 8.5), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}}
	pair.Add(pp)
	pair.NominalX(shown...)
	pair.X.Tick.Label.Font = font.From(chartFont, 9)
	pair.X.Min, pair.X.Max = -0.5, float64(len(shown))-0.5
	ring := draw.GlyphStyle{Color: color.Gray{Y: 0x44}, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
	dot := draw.GlyphStyle{Color: color.Gray{Y: 0x44}, Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}
	pair.Legend.Add("p99 without churn", glyphThumb(ring))
	pair.Legend.Add("p99 under churn (×: median p99-churn-ratio)", glyphThumb(dot))
	return pair
}

// latencyPlot returns a panel with a logarithmic latency axis.
func latencyPlot(title string) *plot.Plot {
	p := newPlot(title)
	p.Y.Label.Text = "handshake latency"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicker{format: formatSeconds}
	p.Add(gridLines(nil, color.Gray{Y: 0xdd}))
	return p
}

// glyphThumb is a legend thumbnail of one glyph.
type glyphThumb draw.GlyphStyle

// Thumbnail implements plot.Thumbnailer.
func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle(g), c.Center())
}

// churnPair is one store's p99 without and under churn.
type churnPair struct {
	calm, churn, ratio float64
	color              color.Color
}

// churnPairs draws per store a ring (churn-free p99) joined to a dot
// (under churn), the values and ratio above.
type churnPairs struct {
	pairs []churnPair
	label text.Style
}

// Plot implements plot.Plotter.
func (cp *churnPairs) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, pr := range cp.pairs {
		x := trX(float64(i))
		yc, yu := trY(pr.calm), trY(pr.churn)
		c.StrokeLine2(draw.LineStyle{Color: pr.color, Width: vg.Points(1.4)}, x, yc, x, yu)
		c.DrawGlyph(draw.GlyphStyle{Color: pr.color, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}, vg.Point{X: x, Y: yc})
		c.DrawGlyph(draw.GlyphStyle{Color: pr.color, Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}, vg.Point{X: x, Y: yu})
		top := max(yc, yu) + vg.Points(7)
		c.FillText(cp.label, vg.Point{X: x, Y: top + cp.label.Height("×")}, formatSeconds(pr.calm)+" → "+formatSeconds(pr.churn))
		c.FillText(cp.label, vg.Point{X: x, Y: top}, "×"+results.Format(pr.ratio, results.UnitP99ChurnRatio))
	}
}

// peakChart makes a barPlot panel per scenario with peak-B.
func (r *Report) peakChart() *Chart {
	t := r.Compare.Table(results.UnitPeak)
	if t == nil {
		return nil
	}
	var panels []*plot.Plot
	for _, row := range t.Rows {
		stores, vals := r.rowBars(t, row, func(c *compare.Cell) bool { return finite(c.Summary.Center) })
		if len(vals) == 0 {
			continue
		}
		p := barPlot(results.UnitPeak, stores, vals)
		p.Title.Text = strings.TrimPrefix(row.Label, "scenario=")
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil
	}
	return barChart(panels, slices.Repeat([]int{results.Better(results.UnitPeak)}, len(panels)), &Chart{
		ID:    "operators-peak-heap",
		Title: "Peak heap of a refresh, per scenario",
		Caption: "The largest live heap reached while one refresh runs (peak-B: an untimed refresh at GOGC=10, the live heap read at the end of every GC cycle, " +
			"less the live heap before: low by at most about one collection's worth, 10% of the process's live heap; 0 where the refreshes allocated nothing), median of the n samples under each bar with its 95% confidence interval (whiskers). " +
			"A store without a bar: " + results.Absent(results.UnitPeak) + ". " +
			"Bars from 0 on a linear axis when the stores are within 30× of each other, else dots on a logarithmic axis (noted under the panel).",
	})
}
