package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/internal/table"
)

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
	Medians template.HTML
}

type htmlPage struct {
	Title       string
	Inputs      []string
	Gate        *GateResult
	GateHTML    template.HTML
	GateChart   *htmlChart
	Config      []compare.Config
	Families    []htmlFamily
	Held        template.HTML // the price of atomicity (held.go)
	Flames      template.HTML // where the cost moved (cost.WriteFlames)
	Exponents   template.HTML
	ChartsTitle string // "Scenarios", or "Benchmarks" for plain results
	Scenarios   []htmlChart
	Operators   []htmlChart
	Trends      []htmlChart
	Tables      template.HTML // compare's page
}

// fragment renders p with package table's HTML renderer.
func fragment(p *table.Page) template.HTML {
	var b strings.Builder
	table.WriteHTML(&b, p) // a strings.Builder does not fail
	return template.HTML(b.String())
}

// WriteHTML writes the report as one self-contained HTML page, its
// tables the gate's and compare's own table values.
func (r *Report) WriteHTML(w io.Writer) error {
	page := htmlPage{Title: r.Title, Inputs: r.Inputs, Config: r.Config, ChartsTitle: "Scenarios", Gate: r.Gate}
	if g := r.Gate; g != nil {
		page.GateHTML = fragment(g.Page)
	}
	if r.GateChart != nil {
		hc, err := toHTML(r.GateChart)
		if err != nil {
			return err
		}
		page.GateChart = &hc
	}
	if len(r.Flames) > 0 {
		var b strings.Builder
		if err := cost.WriteFlames(&b, "svg", "Differential flame graphs of the profiles", r.Flames); err != nil {
			return err
		}
		page.Flames = template.HTML(b.String())
	}
	if r.Compare != nil && len(r.Compare.Tables) > 0 && !strings.Contains(r.Compare.Tables[0].RowHeader(), "scenario") {
		page.ChartsTitle = "Benchmarks"
	}
	for _, fam := range r.families() {
		hf := htmlFamily{Name: fam, Medians: fragment(&table.Page{Tables: []*table.Table{r.medianTable(fam)}})}
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
		page.Exponents = fragment(&table.Page{Tables: []*table.Table{r.exponentTable()}})
	}
	if t := r.HeldTable(); t != nil {
		page.Held = fragment(&table.Page{Tables: []*table.Table{t}})
	}
	for _, chs := range []struct {
		from []*Chart
		to   *[]htmlChart
	}{{r.Operators, &page.Operators}, {r.Trends, &page.Trends}, {r.Scenarios, &page.Scenarios}} {
		for _, ch := range chs.from {
			hc, err := toHTML(ch)
			if err != nil {
				return err
			}
			*chs.to = append(*chs.to, hc)
		}
	}
	if r.Compare != nil {
		cp := r.Compare.Page()
		cp.Details = nil // the page shows the configuration once
		for _, t := range cp.Tables {
			t.ID, t.Title = "table-"+safeID(t.Title), infoOf(t.Title).title+" ("+t.Title+")"
		}
		page.Tables = fragment(cp)
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

// exponentTable lists the fitted exponents by family, unit and store.
func (r *Report) exponentTable() *table.Table {
	stores := r.curveStores()
	cols := []table.Column{{Name: "family"}, {Name: "metric"}}
	for _, st := range stores {
		cols = append(cols, table.Column{Name: st, Align: table.Right})
	}
	t := table.New("Growth exponents k (value ≈ c·N^k)", cols...)
	t.ID = "exponents"
	t.Notes = []string{"Least-squares slope of log(median) on log(N) over every size measured, with its R²; in parentheses, the slope between the two largest sizes."}
	for _, fam := range r.families() {
		for _, unit := range growth.TableUnits {
			row := []table.Cell{{Text: fam}, {Text: unit}}
			found := false
			for _, st := range stores {
				c := growth.Find(r.Curves, fam, st, unit)
				switch {
				case c != nil && growth.AllZero(c):
					found = true
					row = append(row, table.Cell{Text: "0 at every size"})
				case c == nil || c.FitErr != nil:
					row = append(row, table.Cell{Text: "-"})
				default:
					found = true
					txt := fmt.Sprintf("N^%s R²=%.3f", kText(c.Fit.Exponent), c.Fit.R2)
					if len(c.Points) >= 3 && c.LastErr == nil {
						txt += " (N^" + kText(c.Last.Exponent) + ")"
					}
					row = append(row, table.Cell{Text: txt})
				}
			}
			if found {
				t.Add(row...)
			}
		}
	}
	return t
}

// medianTable lists a family's medians per size, by unit and store.
func (r *Report) medianTable(family string) *table.Table {
	var sizes []int
	for _, c := range r.Curves {
		if c.Family == family {
			sizes = append(sizes, c.Sizes()...)
		}
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	cols := []table.Column{{Name: "metric"}, {Name: "store"}}
	for _, s := range sizes {
		cols = append(cols, table.Column{Name: "N = " + formatCount(float64(s)), Align: table.Right})
	}
	cols = append(cols, table.Column{Name: "k", Align: table.Right}, table.Column{Name: "k (last step)", Align: table.Right})
	t := table.New(family+": median [95% CI] (samples) at each N, "+growth.SizeName(family), cols...)
	t.ID = "medians-" + safeID(family)
	for _, unit := range growth.TableUnits {
		info := infoOf(unit)
		for _, st := range r.curveStores() {
			c := growth.Find(r.Curves, family, st, unit)
			if c == nil {
				continue
			}
			row := []table.Cell{{Text: unit}, {Text: st}}
			for _, s := range sizes {
				i := slices.IndexFunc(c.Points, func(p growth.Point) bool { return p.Size == s })
				if i < 0 {
					row = append(row, t.Note(table.Cell{Text: "-"}, "not measured (skipped or over budget)"))
					continue
				}
				p := c.Points[i]
				cell := table.Cell{Text: fmt.Sprintf("%s (%d)", info.format(p.Center), p.N)}
				if finite(p.Lo) && finite(p.Hi) {
					cell.Text = fmt.Sprintf("%s [%s, %s] (%d)", info.format(p.Center), info.format(p.Lo), info.format(p.Hi), p.N)
				}
				row = append(row, cell)
			}
			for _, f := range []struct {
				fit growth.Fit
				err error
			}{{c.Fit, c.FitErr}, {c.Last, c.LastErr}} {
				switch {
				case growth.AllZero(c):
					row = append(row, table.Cell{Text: "0 at every size"})
				case f.err != nil:
					row = append(row, t.Note(table.Cell{Text: "-"}, f.err.Error()))
				default:
					row = append(row, table.Cell{Text: kText(f.fit.Exponent)})
				}
			}
			t.Add(row...)
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

// pageHTML is the page's template, with its style sheet.
//
//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))
