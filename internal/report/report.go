package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/history"
	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Options configures Build.
type Options struct {
	// Title is the page title; empty means "certbench report".
	Title string
	// Compare configures the comparison of the results that are not
	// sweep samples: a chart per row, a bar per column.
	Compare compare.Options
	// Gate, if set, is a gate's verdict (ReadGate), shown at the top.
	Gate *gate.Document
	// History, if set, gets a trend chart per benchmark (trend.go), the
	// last results file drawn as the head; the results may then be none.
	History *history.History
	// Flames, if set, are drawn under "Where the cost moved", after the
	// gate's verdict.
	Flames []*cost.Flame
}

// growthUnits are the metrics of a growth chart.
var growthUnits = []string{results.UnitSec, results.UnitBytes, results.UnitAllocs, results.UnitRetained}

// Report is what Build makes: the statistics and the charts.
type Report struct {
	Title  string
	Inputs []string
	Config []compare.Config
	// Compare compares the results that are not sweep samples; nil if
	// none.
	Compare *compare.Tables
	// Curves are the growth curves of the sweep samples.
	Curves []growth.Curve
	// Growth holds a chart per sweep family, Scenarios one per row of
	// Compare, Operators those of operator.go, Trends one per benchmark
	// of Options.History (trend.go).
	Growth, Scenarios, Operators, Trends []*Chart
	Gate                                 *gate.Document
	// GateChart draws Gate's findings; nil without a gate.
	GateChart *Chart
	// Flames are Options.Flames.
	Flames []*cost.Flame

	colors colors
	ticks  map[string]string // short labels of file columns (fileTicks)
}

// Build computes the statistics of rs and makes every chart.
func Build(rs *results.Set, opts Options) (*Report, error) {
	if (rs == nil || len(rs.Series) == 0) && opts.History == nil {
		return nil, errors.New("report: no results")
	}
	if rs == nil {
		rs = &results.Set{}
	}
	r := &Report{Title: cmp.Or(opts.Title, "certbench report"), Inputs: rs.Files, Config: compare.ConfigOf(rs.Series, true), Gate: opts.Gate, Flames: opts.Flames}
	if r.Gate != nil {
		r.GateChart = gateChart(r.Gate)
	}
	if opts.History != nil {
		r.Trends = trendCharts(opts.History, rs)
	}
	sw, other := growth.Split(rs)
	if other != nil {
		rep, err := compare.Build(other, opts.Compare)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		r.Compare = rep
		var labels []string
		for _, c := range rep.Columns {
			r.columnColor(c.Label)
			labels = append(labels, c.Label)
		}
		if r.filesAreColumns() {
			r.ticks = fileTicks(labels)
		}
	}
	if sw != nil {
		curves, err := growth.Curves(sw)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		r.Curves = curves
		for _, c := range curves {
			r.colors.of(c.Store)
		}
		families, _ := growth.Order(curves)
		for _, fam := range families {
			ch, err := r.growthChart(fam)
			if err != nil {
				return nil, err
			}
			if ch != nil {
				r.Growth = append(r.Growth, ch)
			}
		}
	}
	if r.Compare != nil {
		ids := make(map[string]int)
		for _, row := range r.rowLabels() {
			ch := r.scenarioChart(row)
			if ch == nil {
				continue
			}
			// Rows alike but for characters an ID cannot hold get
			// their own ID.
			if ids[ch.ID]++; ids[ch.ID] > 1 {
				ch.ID = fmt.Sprintf("%s-%d", ch.ID, ids[ch.ID])
			}
			r.Scenarios = append(r.Scenarios, ch)
		}
		r.Operators = r.operatorCharts()
	}
	return r, nil
}

// Charts returns every chart: the gate's, growth charts, operator
// charts, trend charts, then scenario charts.
func (r *Report) Charts() []*Chart {
	var gate []*Chart
	if r.GateChart != nil {
		gate = []*Chart{r.GateChart}
	}
	return slices.Concat(gate, r.Growth, r.Operators, r.Trends, r.Scenarios)
}

// growthChart makes the growth chart of a sweep family: a log-log panel
// per unit of growthUnits with data, two a row; nil if there is none.
func (r *Report) growthChart(family string) (*Chart, error) {
	title := family + ": growth with the number of " + growth.SizeName(family)
	var panels []*plot.Plot
	var better, ns []int
	_, stores := growth.Order(r.Curves)
	for _, unit := range growthUnits {
		var curves []*growth.Curve
		for _, st := range stores {
			if c := growth.Find(r.Curves, family, st, unit); c != nil {
				curves = append(curves, c)
				for _, pt := range c.Points {
					ns = append(ns, pt.N)
				}
			}
		}
		if len(curves) == 0 {
			continue
		}
		p, err := growthPlot(unit, curves, &r.colors)
		if err != nil {
			return nil, fmt.Errorf("report: growth of %s %s: %w", family, unit, err)
		}
		if p != nil {
			panels = append(panels, p)
			better = append(better, results.Better(unit))
		}
	}
	if len(panels) == 0 {
		return nil, nil
	}
	return withBetter(panels, better, &Chart{
		ID:    "growth-" + safeID(family),
		Title: title,
		Caption: "Median of the " + samplesText(ns) + " samples at each pool size (points), 95% confidence interval of the median (whiskers; none where there are too few samples), " +
			"and the least-squares power law c·N^k (dashed) with its exponent k in the legend; both axes logarithmic.",
		plots: gridOf(panels, 2),
		tileW: 400, tileH: 280,
	}), nil
}

// rowLabels returns the comparison's row labels in the order first seen.
func (r *Report) rowLabels() []string {
	var rows []string
	for _, t := range r.Compare.Tables {
		for _, row := range t.Rows {
			if !slices.Contains(rows, row.Label) {
				rows = append(rows, row.Label)
			}
		}
	}
	return rows
}

// scenarioChart makes the bar chart of one comparison row.
func (r *Report) scenarioChart(label string) *Chart {
	held := false // a held scenario's row
	if t := r.Compare.Table(results.UnitHeldPerGen); t != nil {
		held = slices.ContainsFunc(t.Rows, func(row *compare.Row) bool { return row.Label == label })
	}
	var panels []*plot.Plot
	var units []string
	var better []int
	for _, t := range r.Compare.Tables {
		i := slices.IndexFunc(t.Rows, func(row *compare.Row) bool { return row.Label == label })
		if i < 0 || t.Hidden != "" { // hidden: no information (compare's tables leave it out too)
			continue
		}
		unit := t.Unit
		stores, vals := r.rowBars(t, t.Rows[i], func(*compare.Cell) bool { return true })
		if len(vals) == 0 || unit == results.UnitGoroutines && !slices.ContainsFunc(vals, func(v barValue) bool { return v.center != 0 }) {
			continue // nothing to draw, or nothing left running
		}
		p := barPlot(unit, stores, vals)
		if held && slices.Contains([]string{results.UnitRetainedPerCert, results.UnitRetained, results.UnitGoroutines}, unit) {
			// A held sample's own retained heap and goroutines count the
			// generations its connections hold (docs/measurements.md).
			p.Title.Text += " (held generations included)"
		}
		if f := regression(r.Gate, label, unit); f != nil && r.filesAreColumns() && (finite(f.Percent()) || fromZero(f)) {
			change := results.FromZero(unit)
			if finite(f.Percent()) {
				change = results.FormatPercent(f.Percent())
			}
			p.Title.Text += "\nregressed " + change + " (max " + f.Threshold.String() + ")"
			p.Title.TextStyle.Color = regressedColor
		}
		panels, units, better = append(panels, p), append(units, unit), append(better, t.Better)
	}
	if i := slices.Index(units, results.UnitRetained); i >= 0 && slices.Contains(units, results.UnitRetainedPerCert) {
		panels, better = slices.Delete(panels, i, i+1), slices.Delete(better, i, i+1)
	}
	if len(panels) == 0 {
		return nil
	}
	return barChart(panels, better, &Chart{
		ID:    "scenario-" + safeID(strings.TrimPrefix(label, "scenario=")),
		Title: label,
		Caption: "Median of the n samples under each bar (value written at its top, beside a long whisker) with its 95% confidence interval (whiskers; none with fewer than 6 samples or for exact units): " +
			"bars from 0 on a linear axis, or, in panels whose values differ by more than 30×, dots on a logarithmic axis (noted under the panel), where a bar's length would mean nothing; " +
			"a 0 there, which a logarithmic axis has no place for, is a ring on the axis floor.",
	})
}

// barChart lays barPlot panels out on ch, four a row, fewer where the
// stores' names need wider panels, and returns it.
func barChart(panels []*plot.Plot, better []int, ch *Chart) *Chart {
	ch.plots, ch.tileW, ch.tileH = gridOf(panels, 4), 230, 185
	ch.fitTicks(4 * 230)
	return withBetter(panels, better, ch)
}

// rowBars returns the tick and bar of each cell of row that keep
// accepts.
func (r *Report) rowBars(t *compare.Table, row *compare.Row, keep func(*compare.Cell) bool) (stores []string, vals []barValue) {
	for j, c := range row.Cells {
		switch {
		case c != nil && keep(c):
			stores = append(stores, r.tick(t.Columns[j].Label))
			vals = append(vals, barValue{center: c.Summary.Center, lo: c.Summary.Lo, hi: c.Summary.Hi, n: c.N(), color: r.columnColor(t.Columns[j].Label)})
		case c == nil && results.Absent(t.Unit) != "": // peak-B: at most B/op
			b, ran := valueOf(r.rowValues(results.UnitBytes, row.Label), t.Columns[j].Label)
			if !ran {
				continue // the store did not run the row (no B/op either)
			}
			note := "not read"
			if t.Unit == results.UnitPeak {
				note += "\n(at most its B/op,\n" + results.Format(b, results.UnitBytes) + ")"
			}
			stores, vals = append(stores, r.tick(t.Columns[j].Label)), append(vals, barValue{note: note})
		}
	}
	if !slices.ContainsFunc(vals, func(v barValue) bool { return v.note == "" }) {
		return nil, nil // nothing to draw
	}
	return stores, vals
}

// withBetter records better[i] as the direction of panels[i] and
// returns ch.
func withBetter(panels []*plot.Plot, better []int, ch *Chart) *Chart {
	ch.better = make(map[*plot.Plot]int, len(panels))
	for i, p := range panels {
		ch.better[p] = better[i]
	}
	return ch
}

// gridOf lays panels out in rows of at most cols.
func gridOf(panels []*plot.Plot, cols int) [][]*plot.Plot {
	cols = min(cols, len(panels))
	var grid [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, panels[i:min(i+cols, len(panels))])
		grid = append(grid, row)
	}
	return grid
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeID makes s usable as a file name and an HTML id.
func safeID(s string) string {
	return strings.Trim(unsafeID.ReplaceAllString(s, "_"), "_")
}

// WritePNGs writes every chart as <dir>/<chart ID>.png at dpi (0 means
// 144) and returns the paths written.
func (r *Report) WritePNGs(dir string, dpi int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, ch := range r.Charts() {
		b, err := ch.PNG(dpi)
		if err != nil {
			return paths, fmt.Errorf("report: chart %s: %w", ch.ID, err)
		}
		path := filepath.Join(dir, ch.ID+".png")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// finite reports whether v is a finite number.
func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// chartSize returns a chart's size in CSS pixels (1 pt = 4/3 px).
func chartSize(ch *Chart) (w, h int) {
	cw, chh := ch.Size()
	px := func(l vg.Length) int { return int(math.Round(l.Points() * 4 / 3)) }
	return px(cw), px(chh)
}
