package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// fromZero reports whether f went up or down from a base of 0 ("new
// allocations"), which no percentage of the base can say.
func fromZero(f *gate.Finding) bool {
	return f.Base == 0 && f.Head != 0 && f.Status != gate.Unchanged && !finite(f.Percent())
}

// The colours of a finding's status, as the page colours its table.
var (
	regressedColor = color.RGBA{0xb2, 0x22, 0x22, 0xff}
	improvedColor  = color.RGBA{0x2e, 0x8b, 0x2e, 0xff}
	unchangedColor = color.RGBA{0x99, 0x99, 0x99, 0xff}
)

func statusColor(s gate.Status) color.RGBA {
	switch s {
	case gate.Regressed:
		return regressedColor
	case gate.Improved:
		return improvedColor
	}
	return unchangedColor
}

// regression returns g's regressed finding of unit on the comparison row
// label ("scenario=S/store=T", or a benchmark's name); nil if none.
func regression(g *gate.Document, label, unit string) *gate.Finding {
	if g != nil {
		for _, f := range g.Findings {
			if f.Unit == unit && f.Status == gate.Regressed && (label == "scenario="+f.Scenario+"/store="+f.Store || label == f.Benchmark || strings.HasSuffix(f.Benchmark, "/"+label)) {
				return f
			}
		}
	}
	return nil
}

// gateChart draws g's findings as change in percent of the base, a
// panel per metric that changed anywhere; nil if none did.
func gateChart(g *gate.Document) *Chart {
	var panels []*plot.Plot
	rows := 0
	for _, unit := range gateUnits(g) {
		var fs []*gate.Finding
		changed := false
		for _, f := range g.Findings {
			if f.Unit == unit && (fromZero(f) || finite(f.Percent())) {
				fs = append(fs, f)
				changed = changed || fromZero(f) || f.Percent() != 0
			}
		}
		if changed {
			p, _ := changePlot(unit, fs)
			panels = append(panels, p)
			rows = max(rows, len(fs))
		}
	}
	if len(panels) == 0 {
		return nil
	}
	return withBetter(panels, make([]int, len(panels)), &Chart{
		ID:    "gate-changes",
		Title: "The gate: change of head against base, in percent of base",
		Caption: "Each gated metric's change as the gate measured it: head minus base in percent of base (medians; an exact metric's value), " +
			"written as the gate's tables write it (a factor, ×N, from +1,000% up); a bar from 0 and a dot at the value, so that even a change of a few hundredths of a percent shows; " +
			"a panel with a change of +1,000% or more has a logarithmic axis of head / base instead; metrics unchanged everywhere are left out; " +
			"red: regressed (fails the gate, labelled), green: improved, grey: unchanged or not tested; dashed red line: the metric's threshold (max). " +
			"n = the samples of base/head, after each benchmark; no whiskers: the gate's test and p-value are in its table.",
		plots: gridOf(panels, 2),
		tileW: 460, tileH: vg.Length(90 + 20*rows),
	})
}

// gateUnits returns the findings' units in order.
func gateUnits(g *gate.Document) []string {
	var units []string
	for _, f := range g.Findings {
		if !slices.Contains(units, f.Unit) {
			units = append(units, f.Unit)
		}
	}
	return units
}

// changePlot makes a panel of one metric's findings, a benchmark a row,
// the first on top, and returns what it draws.
func changePlot(unit string, fs []*gate.Finding) (*plot.Plot, *changeBars) {
	p := newPlot(results.Title(unit) + " (" + unit + ")")
	var maxText string
	cb := &changeBars{max: math.NaN(), label: text.Style{Color: color.Black, Font: font.From(chartFont, 8), YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}}
	cb.ratio = slices.ContainsFunc(fs, func(f *gate.Finding) bool { return finite(f.Percent()) && f.Percent() >= 1000 })
	names := make([]string, len(fs))
	for i, f := range fs {
		j := len(fs) - 1 - i
		names[j] = fmt.Sprintf("%s (n=%d/%d)", f.Label(), f.BaseN, f.HeadN)
		c := change{color: statusColor(f.Status)}
		if fromZero(f) { // a dot at no change, and what changed
			c.text = results.FromZero(unit)
		} else {
			c.pct, c.text = f.Percent(), results.FormatPercent(f.Percent())
		}
		if f.Status == gate.Regressed {
			c.text += " regressed"
		}
		cb.vals = append(cb.vals, c)
		if th := f.Threshold; th.Relative && !th.Off {
			cb.max, maxText = th.Value, th.String()
		}
	}
	slices.Reverse(cb.vals)
	p.Add(gridLines(color.Gray{Y: 0xdd}, nil), cb)
	p.NominalY(names...)
	p.X.Label.Text = "change, % of base"
	p.X.Tick.Marker = labelTicker{ticker: plot.DefaultTicks{}, format: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "%" }}
	if cb.ratio { // as the tables write +1,000% and up: a factor
		p.X.Label.Text = "head / base"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicker{format: func(v float64) string { return "×" + strconv.FormatFloat(v, 'g', 4, 64) }}
	}
	if finite(cb.max) {
		if l, err := plotter.NewLine(plotter.XYs{{}, {X: 1}}); err == nil {
			l.LineStyle = thresholdLine
			p.Legend.Add("max "+maxText+" (the gate's threshold)", l)
		}
	}
	return p, cb
}

// thresholdLine draws a gate's threshold.
var thresholdLine = draw.LineStyle{Color: regressedColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}

// change is one finding's bar.
type change struct {
	pct   float64
	color color.Color
	text  string
}

// changeBars draws a bar per finding from no change to its change, a dot
// at the value and the value beside it (inside the bar where the panel
// has no room), and the threshold.
type changeBars struct {
	vals  []change
	max   float64 // the threshold in percent, NaN if none
	ratio bool    // x is head / base (on a logarithmic axis), not percent
	label text.Style
}

// x is where a change of pct percent lies on the axis.
func (cb *changeBars) x(pct float64) float64 {
	if cb.ratio {
		return math.Max(1+pct/100, 1e-3) // -100%: at the floor
	}
	return pct
}

// DataRange implements plot.DataRanger, with room for the labels.
func (cb *changeBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = cb.x(0), cb.x(0)
	for _, c := range cb.vals {
		xmin, xmax = math.Min(xmin, cb.x(c.pct)), math.Max(xmax, cb.x(c.pct))
	}
	if finite(cb.max) {
		xmax = math.Max(xmax, cb.x(cb.max))
	}
	ymin, ymax = -0.5, float64(len(cb.vals))-0.5
	if cb.ratio {
		f := math.Pow(xmax/xmin, 0.2)
		if xmin < 1 {
			xmin /= f
		}
		return xmin, xmax * f, ymin, ymax
	}
	span := math.Max(xmax-xmin, 0.1)
	if xmin < 0 { // room for labels, not below -100% (nothing left)
		xmin = math.Max(xmin-span*0.25, math.Min(xmin, -100))
	}
	return xmin, xmax + span*0.25, ymin, ymax
}

// Plot implements plot.Plotter.
func (cb *changeBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0 := trX(cb.x(0))
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0x44}, Width: vg.Points(0.8)}, x0, c.Min.Y, x0, c.Max.Y)
	if finite(cb.max) {
		xt := trX(cb.x(cb.max))
		c.StrokeLine2(thresholdLine, xt, c.Min.Y, xt, c.Max.Y)
	}
	for i, v := range cb.vals {
		y, h := trY(float64(i)), (trY(1)-trY(0))*0.3
		x := trX(cb.x(v.pct))
		c.FillPolygon(v.color, []vg.Point{{X: x0, Y: y - h}, {X: x, Y: y - h}, {X: x, Y: y + h}, {X: x0, Y: y + h}})
		c.DrawGlyph(draw.GlyphStyle{Color: v.color, Radius: dotRadius, Shape: draw.CircleGlyph{}}, vg.Point{X: x, Y: y})
		st := cb.label
		if v.color == regressedColor {
			st.Color = regressedColor
			st.Font.Weight = xfont.WeightBold
		}
		w, pad := st.Width(v.text), vg.Length(dotRadius+2)
		at := x + pad // beside the dot, away from no change
		st.XAlign = draw.XLeft
		if v.pct < 0 {
			st.XAlign, at = draw.XRight, x-pad
		}
		// No room in the panel: inside the bar in white, or where the bar
		// is too short for it, on the other side of no change.
		if room := (v.pct >= 0 && at+w <= c.Max.X) || (v.pct < 0 && at-w >= c.Min.X); !room {
			inside := x-x0 >= w+2*pad || x0-x >= w+2*pad
			switch {
			case inside && v.pct >= 0:
				st.XAlign, at, st.Color = draw.XRight, x-pad, color.White
			case inside:
				st.XAlign, at, st.Color = draw.XLeft, x+pad, color.White
			case v.pct >= 0:
				st.XAlign, at = draw.XRight, x0-pad
			default:
				st.XAlign, at = draw.XLeft, x0+pad
			}
		}
		c.FillText(st, vg.Point{X: at, Y: y}, v.text)
	}
}
