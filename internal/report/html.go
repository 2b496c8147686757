package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/growth"
)

// htmlCell is one cell of a table on the page.
type htmlCell struct {
	Text  string
	Class string // "better", "worse", "num", "label" or ""
	Title string // tooltip
}

// htmlTable is one table on the page.
type htmlTable struct {
	ID, Title, Note string
	Header          []string
	Rows            [][]htmlCell
}

// htmlChart is one chart on the page.
type htmlChart struct {
	ID, Title, Caption string
	SVG                template.HTML
	Width, Height      int
}

// htmlFamily is one sweep family on the page.
type htmlFamily struct {
	Name    string
	Chart   *htmlChart
	Medians htmlTable
}

// htmlGate is the gate's verdict on the page.
type htmlGate struct {
	Passed                   bool
	Summary, Files, Settings string
	Thresholds               []GateThreshold
	Failed, Warnings         []string
	Findings                 *htmlTable
}

type htmlPage struct {
	Title     string
	Inputs    []string
	Gate      *htmlGate
	Config    []compare.Config
	Families  []htmlFamily
	Exponents *htmlTable
	// ChartsTitle heads the bar charts: "Scenarios", or "Benchmarks"
	// when the rows are not scenarios (plain go test -bench results).
	ChartsTitle string
	Scenarios   []htmlChart
	// Operators are the charts of what operators feel.
	Operators []htmlChart
	Tables    []htmlTable
	Legend    string
	Notes     []string
}

// WriteHTML writes the report as one self-contained HTML page: inline CSS
// and inline SVG charts, no scripts, no external resources.
func (r *Report) WriteHTML(w io.Writer) error {
	page := htmlPage{Title: r.Title, Inputs: r.Inputs, Config: r.Config, ChartsTitle: "Scenarios"}
	if g := r.Gate; g != nil {
		hg := &htmlGate{Passed: g.Passed, Summary: g.Summary, Files: g.Base + " vs " + g.Head + ": " + g.counts() + ".",
			Settings: g.settings(), Thresholds: g.Thresholds, Findings: g.gateTable()}
		for _, p := range g.Problems {
			if p.Fatal {
				hg.Failed = append(hg.Failed, p.Message)
			} else {
				hg.Warnings = append(hg.Warnings, p.Message)
			}
		}
		page.Gate = hg
	}
	if r.Compare != nil && len(r.Compare.Tables) > 0 && !strings.Contains(r.Compare.Tables[0].RowHeader(), "scenario") {
		page.ChartsTitle = "Benchmarks"
	}
	for _, fam := range r.families() {
		hf := htmlFamily{Name: fam, Medians: r.medianTable(fam)}
		for _, ch := range r.Growth {
			if ch.ID == "growth-"+safeID(fam) {
				hc, err := toHTML(ch)
				if err != nil {
					return err
				}
				hf.Chart = &hc
			}
		}
		page.Families = append(page.Families, hf)
	}
	if len(r.Curves) > 0 {
		t := r.exponentTable()
		page.Exponents = &t
	}
	for _, ch := range r.Operators {
		hc, err := toHTML(ch)
		if err != nil {
			return err
		}
		page.Operators = append(page.Operators, hc)
	}
	for _, ch := range r.Scenarios {
		hc, err := toHTML(ch)
		if err != nil {
			return err
		}
		page.Scenarios = append(page.Scenarios, hc)
	}
	if r.Compare != nil {
		for _, t := range r.Compare.Tables {
			if t.Hidden == "" {
				page.Tables = append(page.Tables, compareTable(t))
			}
		}
		page.Notes = withoutGeomeanWarnings(r.Compare)
		if n := r.Compare.HiddenNote(); n != "" {
			page.Notes = append(page.Notes, n)
		}
		if len(r.Compare.Columns) > 1 {
			page.Legend = fmt.Sprintf("Cells: median ± %s confidence interval (exact units: the value). "+
				"Changes against %s are shown when significant (Mann-Whitney U test, p < %v; exact units: any difference), ~ otherwise; "+
				"green is better, red is worse. Each change is tested on its own, with no correction for multiple comparisons, as benchstat does: "+
				"certbench gate applies Holm's correction per metric, so it can find unchanged what is marked here.",
				strconv.FormatFloat(r.Compare.Options.Confidence*100, 'g', -1, 64)+"%", r.Compare.Columns[0].Label, r.Compare.Options.Alpha)
		}
	}
	return pageTemplate.Execute(w, page)
}

func toHTML(ch *Chart) (htmlChart, error) {
	b, err := ch.inlineSVG()
	if err != nil {
		return htmlChart{}, fmt.Errorf("report: chart %s: %w", ch.ID, err)
	}
	w, h := chartSize(ch)
	return htmlChart{ID: ch.ID, Title: ch.Title, Caption: ch.Caption, SVG: template.HTML(b), Width: w, Height: h}, nil
}

// compareTable renders one of compare's tables.
func compareTable(t *compare.Table) htmlTable {
	ht := htmlTable{ID: "table-" + safeID(t.Unit), Title: infoOf(t.Unit).title + " (" + t.Unit + ")"}
	header := t.RowHeader()
	if header == "" {
		header = "scenario"
	}
	ht.Header = []string{header}
	for j, col := range t.Columns {
		ht.Header = append(ht.Header, col.Label)
		if j > 0 {
			ht.Header = append(ht.Header, "vs "+t.Columns[0].Label)
		}
	}
	for _, row := range t.Rows {
		cells := []htmlCell{{Text: row.Label, Class: "label"}}
		format := infoOf(t.Unit).format
		for j, c := range row.Cells {
			if c == nil {
				cells = append(cells, htmlCell{})
				if j > 0 {
					cells = append(cells, htmlCell{})
				}
				continue
			}
			cells = append(cells, htmlCell{Text: format(c.Center()) + " ± " + c.Summary.PctRangeString(), Class: "num", Title: fmt.Sprintf("n=%d", c.N())})
			if j == 0 {
				continue
			}
			d := c.Delta
			if d == nil {
				cells = append(cells, htmlCell{})
				continue
			}
			class := "num"
			if d.Significant && d.Base != d.Value && t.Better != 0 {
				if (d.Value < d.Base) == (t.Better < 0) {
					class = "num better"
				} else {
					class = "num worse"
				}
			}
			cells = append(cells, htmlCell{Text: d.String() + " (" + d.Comparison.String() + ")", Class: class})
		}
		ht.Rows = append(ht.Rows, cells)
	}
	if row, why := geomeanRow(t); row != nil {
		ht.Rows = append(ht.Rows, row)
	} else if why != "" {
		ht.Note = "No geomean row: " + why + "."
	}
	return ht
}

// geomeanRow returns the geomean row of t as benchstat prints it: the
// geometric mean of each column's centers and, in the delta columns, of
// the ratios to the baseline. It is only defined when every value is
// positive: otherwise it returns nil and says why (nothing for a table of
// one row, whose geomean is that row).
func geomeanRow(t *compare.Table) (row []htmlCell, why string) {
	if len(t.Rows) < 2 {
		return nil, ""
	}
	var missing, zero []string
	for _, r := range t.Rows {
		switch {
		case slices.Contains(r.Cells, nil):
			missing = append(missing, r.Label)
		case slices.ContainsFunc(r.Cells, func(c *compare.Cell) bool { return !(c.Center() > 0) }):
			zero = append(zero, r.Label)
		}
	}
	// rows names the rows of labels, with the verb for one or several.
	rows := func(labels []string, one, several string) string {
		switch {
		case len(labels) == len(t.Rows):
			return "every row " + one
		case len(labels) > 3:
			return fmt.Sprintf("%d of %d rows %s", len(labels), len(t.Rows), several)
		case len(labels) == 1:
			return fmt.Sprintf("1 of %d rows (%s) %s", len(t.Rows), labels[0], one)
		}
		return fmt.Sprintf("%d of %d rows (%s) %s", len(labels), len(t.Rows), strings.Join(labels, ", "), several)
	}
	var reasons []string
	if len(zero) > 0 {
		reasons = append(reasons, rows(zero, "has a value of 0", "have a value of 0"))
	}
	if len(missing) > 0 {
		reasons = append(reasons, rows(missing, "lacks a result in some column", "lack a result in some column"))
	}
	if len(reasons) > 0 || len(t.Geomean) != len(t.Columns) {
		return nil, strings.Join(append(reasons, "a geometric mean needs a positive value in every cell"), "; ")
	}
	format := infoOf(t.Unit).format
	title := fmt.Sprintf("geometric mean over %d rows", len(t.Rows))
	row = []htmlCell{{Text: compare.GeomeanLabel, Class: "label geo", Title: title}}
	for j, g := range t.Geomean {
		row = append(row, htmlCell{Text: format(g.Center), Class: "num geo", Title: title})
		if j > 0 {
			row = append(row, htmlCell{Text: fmt.Sprintf("%+.2f%%", (g.Ratio-1)*100), Class: "num geo", Title: "geometric mean of the ratios to " + t.Columns[0].Label})
		}
	}
	return row, ""
}

// withoutGeomeanWarnings returns the comparison's warnings, worded as
// compare's notes, less those about the rows its geomeans leave out: the page shows a geomean row
// only where no row is left out, and says in the table's note why not
// otherwise.
func withoutGeomeanWarnings(rep *compare.Report) []string {
	var geo []string
	for _, t := range rep.Tables {
		for _, g := range t.Geomean {
			geo = append(geo, g.Warnings...)
		}
	}
	var notes []string
	for _, w := range rep.Warnings {
		if slices.Contains(geo, w) {
			continue
		}
		// As compare prints them: what a warning means and what to do,
		// never a bare "all samples are equal" (the tables show ± 0%).
		if n := compare.NoteFor(w); n != "" && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	return notes
}

// exponentTable lists the fitted exponents: one row per family and unit,
// one column per store.
func (r *Report) exponentTable() htmlTable {
	stores := r.curveStores()
	t := htmlTable{ID: "exponents", Title: "Growth exponents k (value ≈ c·N^k)",
		Note:   "Least-squares slope of log(median) on log(N) over every size measured; in parentheses, the slope between the two largest sizes.",
		Header: append([]string{"family", "metric"}, stores...)}
	for _, fam := range r.families() {
		for _, unit := range growth.TableUnits {
			row := []htmlCell{{Text: fam, Class: "label"}, {Text: unit, Class: "label"}}
			found := false
			for _, st := range stores {
				c := growth.Find(r.Curves, fam, st, unit)
				if c != nil && growth.AllZero(c) {
					found = true
					row = append(row, htmlCell{Text: "0 at every size", Class: "num"})
					continue
				}
				if c == nil || c.FitErr != nil {
					row = append(row, htmlCell{Text: "-", Class: "num"})
					continue
				}
				found = true
				txt := "N^" + kText(c.Fit.Exponent)
				if len(c.Points) >= 3 && c.LastErr == nil {
					txt += " (N^" + kText(c.Last.Exponent) + ")"
				}
				row = append(row, htmlCell{Text: txt, Class: "num", Title: fmt.Sprintf("R²=%.3f over %d sizes", c.Fit.R2, c.Fit.Points)})
			}
			if found {
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

// medianTable lists a family's medians per size: one row per unit and
// store.
func (r *Report) medianTable(family string) htmlTable {
	var sizes []int
	for _, c := range r.Curves {
		if c.Family != family {
			continue
		}
		for _, s := range c.Sizes() {
			if !slices.Contains(sizes, s) {
				sizes = append(sizes, s)
			}
		}
	}
	slices.Sort(sizes)
	t := htmlTable{ID: "medians-" + safeID(family), Title: family + ": median (samples) per pool size",
		Header: []string{"metric", "store"}}
	for _, s := range sizes {
		t.Header = append(t.Header, "N = "+formatCount(float64(s)))
	}
	t.Header = append(t.Header, "k", "k (last step)")
	for _, unit := range growth.TableUnits {
		info := infoOf(unit)
		for _, st := range r.curveStores() {
			c := growth.Find(r.Curves, family, st, unit)
			if c == nil {
				continue
			}
			row := []htmlCell{{Text: unit, Class: "label"}, {Text: st, Class: "label"}}
			for _, s := range sizes {
				i := slices.IndexFunc(c.Points, func(p growth.Point) bool { return p.Size == s })
				if i < 0 {
					row = append(row, htmlCell{Text: "-", Class: "num", Title: "not measured (skipped or over budget)"})
					continue
				}
				p := c.Points[i]
				title := fmt.Sprintf("n=%d", p.N)
				if finite(p.Lo) && finite(p.Hi) {
					title += fmt.Sprintf(", 95%% CI %s to %s", info.format(p.Lo), info.format(p.Hi))
				}
				row = append(row, htmlCell{Text: fmt.Sprintf("%s (%d)", info.format(p.Center), p.N), Class: "num", Title: title})
			}
			for _, f := range []struct {
				fit growth.Fit
				err error
			}{{c.Fit, c.FitErr}, {c.Last, c.LastErr}} {
				switch {
				case growth.AllZero(c):
					// As in the exponent table.
					row = append(row, htmlCell{Text: "0 at every size", Class: "num"})
				case f.err != nil:
					row = append(row, htmlCell{Text: "-", Class: "num", Title: f.err.Error()})
				default:
					row = append(row, htmlCell{Text: kText(f.fit.Exponent), Class: "num"})
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// kText formats an exponent with two decimals, without "-0.00".
func kText(k float64) string {
	if math.Abs(k) < 0.005 {
		k = 0
	}
	return strconv.FormatFloat(k, 'f', 2, 64)
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; color: #222; margin: 0 auto; padding: 1.5em 2em 4em; max-width: 1280px; line-height: 1.4; }
h1 { font-size: 1.7em; margin: 0 0 .2em; }
h2 { font-size: 1.35em; margin-top: 2em; border-bottom: 2px solid #ddd; padding-bottom: .2em; }
h3 { font-size: 1.1em; margin: 1.6em 0 .4em; }
p.meta, details { color: #555; font-size: .9em; }
nav ul { columns: 3; font-size: .9em; padding-left: 1.2em; }
nav a, a.anchor { color: #1b5e9e; text-decoration: none; }
figure { margin: .5em 0 1.5em; }
figure svg { max-width: 100%; height: auto; display: block; }
figure svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif !important; }
figcaption { font-size: .85em; color: #555; margin-top: .3em; max-width: 60em; }
table { border-collapse: collapse; margin: .6em 0 1.4em; font-size: .88em; }
th, td { border: 1px solid #d4d4d4; padding: .25em .6em; }
th { background: #f3f3f3; text-align: center; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.label { text-align: left; white-space: nowrap; }
td.better { background: #e3f4e3; color: #155d15; }
td.worse { background: #fbe3e3; color: #8a1414; }
td.geo { border-top: 2px solid #999; font-weight: bold; }
caption { text-align: left; font-weight: bold; padding: .2em 0; }
p.note { font-size: .85em; color: #555; margin-top: -.8em; }
pre { background: #f6f6f6; padding: .6em; font-size: .85em; }
section.gate { border: 2px solid; border-radius: 4px; padding: .2em 1em .6em; margin: 1em 0; }
section.gate.pass { border-color: #2e8b2e; background: #f3fbf3; }
section.gate.fail { border-color: #b22222; background: #fdf3f3; }
section.gate h2 { margin-top: .4em; border: none; }
section.gate table { background: #fff; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">Results from {{range $i, $f := .Inputs}}{{if $i}}, {{end}}<code>{{$f}}</code>{{end}}.</p>
{{with .Gate}}<section id="gate" class="gate {{if .Passed}}pass{{else}}fail{{end}}">
<h2>Gate: {{.Summary}}</h2>
<p>{{.Files}}</p>
<table id="gate-thresholds"><caption>Thresholds: the largest change that passes</caption>
<thead><tr>{{range .Thresholds}}<th>{{.Unit}}</th>{{end}}</tr></thead>
<tbody><tr>{{range .Thresholds}}<td class="num">{{.Max}}</td>{{end}}</tr></tbody>
</table>
<p class="note">{{.Settings}}</p>
{{with .Failed}}<h3>Failed checks</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Findings}}{{template "table" .}}{{end}}
{{with .Warnings}}<details><summary>Warnings ({{len .}})</summary><ul>{{range .}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
</section>
{{end}}
{{if .Config}}<details><summary>Configuration</summary>
<pre>{{range .Config}}{{.Key}}: {{range $i, $v := .Values}}{{if $i}} | {{end}}{{$v}}{{end}}
{{end}}</pre></details>{{end}}
<nav><ul>
{{if .Gate}}<li><a href="#gate">Gate verdict</a></li>{{end}}
{{if .Families}}<li><a href="#growth">Growth with pool size</a></li>{{range .Families}}<li><a href="#growth-{{.Name}}">{{.Name}}</a></li>{{end}}{{end}}
{{if .Operators}}<li><a href="#operators">What operators feel</a></li>{{end}}
{{if .Scenarios}}<li><a href="#scenarios">{{.ChartsTitle}}</a></li>{{range .Scenarios}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}{{end}}
{{if .Tables}}<li><a href="#tables">Comparison tables</a></li>{{end}}
</ul></nav>
{{if .Families}}
<section id="growth">
<h2>Growth with pool size</h2>
<p>Each scenario family measured at several pool sizes N (certbench sweep). A store whose refresh is linear in the pool has k ≈ 1; quadratic k ≈ 2; a cost independent of the pool k ≈ 0. Constant costs (such as generating a default certificate on every refresh) flatten the small sizes, so the slope between the two largest sizes is shown too.</p>
{{with .Exponents}}{{template "table" .}}{{end}}
{{range .Families}}
<h3 id="growth-{{.Name}}">{{.Name}}</h3>
{{with .Chart}}<figure>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>{{end}}
{{template "table" .Medians}}
{{end}}
</section>
{{end}}
{{if .Operators}}
<section id="operators">
<h2>What operators feel</h2>
{{range .Operators}}
<figure id="{{.ID}}">{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}
</section>
{{end}}
{{if .Scenarios}}
<section id="scenarios">
<h2>{{.ChartsTitle}}</h2>
{{with index .Scenarios 0}}<p>{{.Caption}}</p>{{end}}
{{range .Scenarios}}
<figure id="{{.ID}}">{{.SVG}}</figure>
{{end}}
</section>
{{end}}
{{if .Tables}}
<section id="tables">
<h2>Comparison tables</h2>
{{range .Tables}}{{template "table" .}}{{end}}
{{if .Legend}}<p class="note">{{.Legend}}</p>{{end}}
{{if .Notes}}<h3>Notes</h3><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</section>
{{end}}
</body>
</html>
{{define "table"}}<table id="{{.ID}}">
<caption>{{.Title}}</caption>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}{{if .Title}} title="{{.Title}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}{{end}}
`))
