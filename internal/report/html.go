package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
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
	Gate        *gate.Document
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
	families, _ := growth.Order(r.Curves)
	for _, fam := range families {
		t := growth.FamilyTable(r.Curves, fam)
		t.ID = "medians-" + safeID(fam)
		hf := htmlFamily{Name: fam, Medians: fragment(&table.Page{Tables: []*table.Table{t}})}
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
		t := growth.ExponentTable(r.Curves)
		t.ID = "exponents"
		page.Exponents = fragment(&table.Page{Tables: []*table.Table{t}})
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
			t.ID, t.Title = "table-"+safeID(t.Title), results.Title(t.Title)+" ("+t.Title+")"
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

// pageHTML is the page's template, with its style sheet.
//
//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))
