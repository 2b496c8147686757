package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/history"
	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// trendCommits is how many of a history's last commits a trend chart
// draws; bandCommits how many of main's last commits, since the series'
// last change point, make the band a head is drawn against.
const trendCommits, bandCommits = 60, 10

// The trend chart's colours.
var (
	trendColor = color.RGBA{0x21, 0x66, 0xac, 0xff} // the per-commit medians
	bandColor  = color.RGBA{0xd6, 0xe4, 0xf2, 0xff}
)

// trendCharts makes a chart per benchmark of h, a panel per unit the
// gate gates by default, over its last trendCommits commits, with the
// change points of history.Changes at its default settings; the last
// file of head, if any, is drawn against main's band.
func trendCharts(h *history.History, head *results.Set) []*Chart {
	cps := history.Changes(h, history.Options{})
	first := max(0, len(h.Commits)-trendCommits)
	var headFile string
	if head != nil && len(head.Files) > 0 {
		headFile = head.Files[len(head.Files)-1]
	}
	caption := fmt.Sprintf("The last %d commits of the history (x axis: short hash and date), a dot per commit at the median of its samples, "+
		"whiskers from its lowest to its highest sample, n in the legend; y axis linear, not from 0. "+
		"Dashed vertical lines: the change points certbench history changes finds, at the first commit of the new level, named by it and the step's size; "+
		"the thick lines are the levels before and after (medians of the commits' medians). ", trendCommits)
	if headFile != "" {
		caption += fmt.Sprintf("The head (%s) is drawn right of the history, against main's band: the lowest to highest median of main's last %d commits since its last change point, their median dashed. ", headFile, bandCommits)
	}
	caption += "Metrics the gate does not gate, or 0 at every commit, are left out."
	var charts []*Chart
	policy := gate.DefaultPolicy()
	for _, bench := range benchmarks(h) {
		var units []string
		for _, k := range h.Keys {
			if _, ok := policy.Threshold("", "", k.Unit); k.Benchmark == bench && ok {
				units = append(units, k.Unit)
			}
		}
		slices.SortStableFunc(units, func(a, b string) int { return results.Rank(a) - results.Rank(b) })
		if slices.Contains(units, results.UnitRetainedPerCert) {
			units = slices.DeleteFunc(units, func(u string) bool { return u == results.UnitRetained })
		}
		var panels []*plot.Plot
		var better []int
		for _, unit := range units {
			k := history.Key{Benchmark: bench, Unit: unit}
			if p, _ := trendPlot(h, k, first, cps, headValues(head, headFile, k)); p != nil {
				panels = append(panels, p)
				better = append(better, results.Better(unit))
			}
		}
		if len(panels) == 0 {
			continue
		}
		charts = append(charts, withBetter(panels, better, &Chart{
			ID:      "trend-" + safeID(bench),
			Title:   strings.TrimPrefix(bench, "Churn/") + ": history",
			Caption: caption,
			plots:   gridOf(panels, 2),
			tileW:   460, tileH: 230,
		}))
	}
	return charts
}

// benchmarks returns the benchmarks of h, in order.
func benchmarks(h *history.History) []string {
	var out []string
	for _, k := range h.Keys {
		if len(out) == 0 || out[len(out)-1] != k.Benchmark {
			out = append(out, k.Benchmark)
		}
	}
	return out
}

// headValues returns the sorted samples of k in file of rs: its
// benchmark, with or without a GOMAXPROCS suffix ("-2").
func headValues(rs *results.Set, file string, k history.Key) []float64 {
	if rs == nil {
		return nil
	}
	var vals []float64
	for _, s := range rs.Series {
		name, ok := strings.CutPrefix(string(s.Name.Full()), k.Benchmark)
		if !ok || s.GetConfig(results.FileKey) != file || (name != "" && (name[0] != '-' || strings.Trim(name[1:], "0123456789") != "")) {
			continue
		}
		for _, m := range s.Metrics {
			if m.Unit == k.Unit {
				vals = append(vals, m.Values...)
			}
		}
	}
	slices.Sort(vals)
	return vals
}

// trendPoint is one commit's (or the head's) median and sample range.
type trendPoint struct {
	x, y, lo, hi float64
	n            int
}

func pointOf(x float64, v []float64) trendPoint {
	return trendPoint{x: x, y: (v[(len(v)-1)/2] + v[len(v)/2]) / 2, lo: v[0], hi: v[len(v)-1], n: len(v)}
}

// trendMark is a change point: its x (between the commits), label and
// the levels before and after it.
type trendMark struct {
	x             float64
	label         string
	color         color.RGBA
	before, after float64
	x0, x2        float64 // the levels' extents: before from x0 to x, after to x2
}

// trendBand is main's band that the head is drawn against.
type trendBand struct{ x0, x1, lo, mid, hi float64 }

// trend draws a series' history.
type trend struct {
	pts    []trendPoint
	marks  []trendMark
	band   *trendBand
	head   *trendPoint
	label  text.Style
	format func(float64) string // of the unit's values
}

// trendPlot makes the panel of series k from commit first on, and
// returns what it draws; nil if it has no points there or is 0 at every
// one.
func trendPlot(h *history.History, k history.Key, first int, cps []history.ChangePoint, head []float64) (*plot.Plot, *trend) {
	tr := &trend{format: formatOf(k.Unit), label: text.Style{Color: color.Black, Font: font.From(chartFont, 8), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}}
	nonZero := false
	for _, pt := range h.Recent(k, -1) {
		if pt.Commit < first || len(pt.Values) == 0 {
			continue
		}
		p := pointOf(float64(pt.Commit-first), pt.Values)
		tr.pts = append(tr.pts, p)
		nonZero = nonZero || p.lo != 0 || p.hi != 0
	}
	if len(tr.pts) == 0 || !nonZero {
		return nil, nil
	}
	at := func(c string) float64 { return float64(h.Index(c) - first) }
	for _, cp := range cps {
		if cp.Key != k || h.Index(cp.Commit) < first {
			continue
		}
		m := trendMark{x: at(cp.Commit) - 0.5, before: cp.Before, after: cp.After, x0: max(0, at(cp.From)) - 0.4, x2: at(cp.To) + 0.4, color: improvedColor}
		if cp.Worse {
			m.color = regressedColor
		}
		m.label = cp.Commit[:min(7, len(cp.Commit))] + " " + results.FormatSigned(cp.Delta, k.Unit)
		if d, _, _, ok := cp.Relative(); ok {
			m.label = cp.Commit[:min(7, len(cp.Commit))] + " " + results.FormatPercent(100*d)
		}
		tr.marks = append(tr.marks, m)
	}
	// The band: main's last bandCommits commits since its last change point.
	var medians []float64
	for _, pt := range tr.pts[max(0, len(tr.pts)-bandCommits):] {
		if len(tr.marks) == 0 || pt.x > tr.marks[len(tr.marks)-1].x {
			medians = append(medians, pt.y)
		}
	}
	last := tr.pts[len(tr.pts)-1].x
	p := newPlot(results.Title(k.Unit))
	p.Y.Label.Text = axisLabel(k.Unit, p.Title.Text)
	dot := draw.GlyphStyle{Color: trendColor, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
	p.Legend.Add("median of a commit's "+nText(tr.pts)+" samples; whiskers: lowest to highest", glyphThumb(dot))
	if len(tr.marks) > 0 {
		p.Legend.Add("change point and the levels before and after", lineThumb(draw.LineStyle{Color: tr.marks[len(tr.marks)-1].color, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}))
	}
	if len(head) > 0 && len(medians) > 0 {
		hp := pointOf(last+2, head)
		tr.head = &hp
		s := slices.Sorted(slices.Values(medians))
		tr.band = &trendBand{x0: last - float64(len(s)) + 0.6, x1: hp.x + 0.4, lo: s[0], hi: s[len(s)-1], mid: (s[(len(s)-1)/2] + s[len(s)/2]) / 2}
		ring := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}
		p.Legend.Add(fmt.Sprintf("head (n=%d) against main's band (its last %d commits)", hp.n, len(s)), glyphThumb(ring))
	}
	p.Add(gridLines(nil, color.Gray{Y: 0xe6}), tr)
	p.X.Tick.Marker = tr.ticker(h, first)
	p.X.Tick.Label.Font = font.From(chartFont, 7.5)
	y := uniqueTicker{labelTicker{ticker: plot.DefaultTicks{}, format: tr.format}}
	if results.IsBytes(k.Unit) { // KiB, or in a narrow range bytes
		y = uniqueTicker{bytesTicker{}, labelTicker{ticker: plot.DefaultTicks{}, format: func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + " B" }}}
	}
	p.Y.Tick.Marker = y
	return p, tr
}

// nText says how many samples the points have: "n=6", "n=3–6".
func nText(pts []trendPoint) string {
	ns := make([]int, len(pts))
	for i, p := range pts {
		ns[i] = p.n
	}
	return samplesText(ns)
}

// uniqueTicker uses the first of its tickers whose labels differ (in a
// narrow range, such as a series that never changed, a format can print
// ticks alike), else keeps only the first of ticks labelled alike.
type uniqueTicker []plot.Ticker

// Ticks implements plot.Ticker.
func (u uniqueTicker) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range u {
		ticks = t.Ticks(min, max)
		seen, alike := map[string]bool{}, false
		for i, t := range ticks {
			if seen[t.Label] {
				ticks[i].Label, alike = "", true
			}
			seen[t.Label] = t.Label != ""
		}
		if !alike {
			break
		}
	}
	return ticks
}

// lineThumb is a legend thumbnail of a line.
type lineThumb draw.LineStyle

// Thumbnail implements plot.Thumbnailer.
func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}

// ticker labels about 7 commits evenly, every change point's commit
// and the head, each by short hash and date.
func (tr *trend) ticker(h *history.History, first int) plot.ConstantTicks {
	n := len(h.Commits) - first
	label := func(x int) plot.Tick {
		c := h.Commits[first+x]
		return plot.Tick{Value: float64(x), Label: c.Hash[:min(7, len(c.Hash))] + "\n" + c.Time.UTC().Format("Jan 2")}
	}
	var ticks []plot.Tick
	for _, m := range tr.marks {
		ticks = append(ticks, label(int(m.x+0.5)))
	}
	step := max(1, (n+6)/7)
	for x := 0; x < n; x += step {
		if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Label != "" && math.Abs(t.Value-float64(x)) < float64(step)*0.6 }) {
			ticks = append(ticks, label(x))
		}
	}
	if tr.head != nil {
		ticks = append(ticks, plot.Tick{Value: tr.head.x, Label: "head"})
	}
	if n <= 100 {
		for x := range n {
			if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == float64(x) }) {
				ticks = append(ticks, plot.Tick{Value: float64(x)})
			}
		}
	}
	return ticks
}

// DataRange implements plot.DataRanger, with room above for the change
// points' labels.
func (tr *trend) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.6, tr.pts[len(tr.pts)-1].x+0.6
	ymin, ymax = math.Inf(1), math.Inf(-1)
	add := func(vs ...float64) {
		for _, v := range vs {
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
	}
	for _, p := range tr.pts {
		add(p.lo, p.hi)
	}
	for _, m := range tr.marks {
		add(m.before, m.after)
	}
	if tr.head != nil {
		xmax = tr.head.x + 0.6 + math.Max(2.5, 0.22*tr.head.x) // room for its label
		add(tr.head.lo, tr.head.hi, tr.band.lo, tr.band.hi)
	}
	pad := (ymax - ymin) * 0.08
	if pad == 0 {
		pad = math.Max(math.Abs(ymax)*0.01, 1)
	}
	top := pad
	if len(tr.marks) > 0 {
		top = pad + (ymax-ymin+2*pad)*0.08*float64(min(len(tr.marks), 3))
	}
	return xmin, xmax, ymin - pad, ymax + top
}

// Plot implements plot.Plotter.
func (tr *trend) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if b := tr.band; b != nil {
		x0, x1 := trX(b.x0), trX(b.x1)
		c.FillPolygon(bandColor, []vg.Point{{X: x0, Y: trY(b.lo)}, {X: x1, Y: trY(b.lo)}, {X: x1, Y: trY(b.hi)}, {X: x0, Y: trY(b.hi)}})
		c.StrokeLine2(draw.LineStyle{Color: trendColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}, x0, trY(b.mid), x1, trY(b.mid))
	}
	for i, m := range tr.marks {
		x := trX(m.x)
		dashed := draw.LineStyle{Color: m.color, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		c.StrokeLine2(dashed, x, c.Min.Y, x, c.Max.Y)
		level := draw.LineStyle{Color: color.NRGBA{R: m.color.R, G: m.color.G, B: m.color.B, A: 0x80}, Width: vg.Points(2.5)}
		c.StrokeLine2(level, trX(m.x0), trY(m.before), x, trY(m.before))
		c.StrokeLine2(level, x, trY(m.after), trX(m.x2), trY(m.after))
		st := tr.label
		st.Color = m.color
		c.FillText(st, vg.Point{X: x + 2, Y: c.Max.Y - 1 - vg.Length(i%3)*st.Height("0")}, m.label)
	}
	whisker := draw.LineStyle{Color: color.Gray{Y: 0x88}, Width: vg.Points(0.8)}
	var line []vg.Point
	for _, pt := range tr.pts {
		x := trX(pt.x)
		if pt.hi > pt.lo {
			c.StrokeLine2(whisker, x, trY(pt.lo), x, trY(pt.hi))
		}
		line = append(line, vg.Point{X: x, Y: trY(pt.y)})
	}
	c.StrokeLines(draw.LineStyle{Color: trendColor, Width: vg.Points(0.8)}, line)
	for _, pt := range line {
		c.DrawGlyph(draw.GlyphStyle{Color: trendColor, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}, pt)
	}
	if hp := tr.head; hp != nil {
		x := trX(hp.x)
		if hp.hi > hp.lo {
			c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}, x, trY(hp.lo), x, trY(hp.hi))
		}
		c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}, vg.Point{X: x, Y: trY(hp.y)})
		txt := tr.format(hp.y)
		if tr.band.mid != 0 {
			txt += "\n" + results.FormatPercent(100*(hp.y-tr.band.mid)/math.Abs(tr.band.mid)) + " vs band"
		}
		// Right of the head, in the room DataRange keeps.
		st := tr.label
		st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
		at := vg.Point{X: x + vg.Points(6), Y: trY(hp.y)}
		c.FillText(st, at, txt)
	}
}
