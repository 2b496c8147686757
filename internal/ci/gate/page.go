package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// maxSitesShown caps the sites listed per finding.
const maxSitesShown = 10

// sections are the tables of findings, in order; unchanged findings are
// only counted (the JSON lists every finding).
var sections = []struct {
	title    string
	statuses []Status
}{
	{"Regressed", []Status{Regressed}},
	{"Not decided", []Status{TooFewSamples, Missing}},
	{"Improved", []Status{Improved}},
}

// PairedNote is the footnote of a paired finding's change: it is not the
// difference of the medians beside it.
const PairedNote = "paired estimate: the typical per-round change of head over base (Hodges-Lehmann, " +
	"signed-rank test), not the change from the base median to the head median beside it, which " +
	"drift between rounds can move either way"

// columnsNote says what the findings tables' columns are.
const columnsNote = "base, head: medians (an exact metric: its value); change: head - base, " +
	"or a paired estimate where marked; max: the threshold"

// Page returns the verdict for package table to render (gate's text and
// Markdown; report --gate reads it from the JSON).
func (v *Verdict) Page() *table.Page {
	p := &table.Page{Title: "certbench gate: " + v.Summary()}
	p.Lines = append(p.Lines, fmt.Sprintf("base: %s, head: %s. %s", v.Base, v.Head, v.counts()))
	if n := len(v.History); n > 0 {
		var cs []string
		for i, c := range v.History {
			if n <= 10 || i < 3 || i >= n-3 {
				cs = append(cs, c.String())
			} else if i == 3 {
				cs = append(cs, fmt.Sprintf("(%d more)", n-6))
			}
		}
		line := fmt.Sprintf("history: base from %d commit(s) of main, oldest first: %s", n, strings.Join(cs, ", "))
		if n < v.Policy.MinSamples {
			line += fmt.Sprintf(" (fewer than min_samples, %d: a clock, one base value per commit, cannot be decided; docs/gate.md)", v.Policy.MinSamples)
		}
		p.Lines = append(p.Lines, line)
	}
	p.Lines = append(p.Lines, "policy: "+v.Policy.describe())
	if c := v.correctionNote(); c != "" {
		p.Lines = append(p.Lines, "tests: "+c)
	}
	for _, pr := range v.Problems {
		if pr.Fatal {
			p.Lines = append(p.Lines, "failed check: "+pr.Message)
		}
	}
	for _, c := range v.Config {
		p.Details = append(p.Details, c.line())
	}
	explained := false
	for _, s := range sections {
		if fs := v.Select(s.statuses...); len(fs) > 0 {
			t := findingsTable(s.title, fs)
			if len(t.Columns) > 5 && !explained {
				t.Notes, explained = []string{columnsNote}, true
			}
			p.Tables = append(p.Tables, t)
			for _, f := range fs {
				if len(f.Sites) > 0 {
					p.Tables = append(p.Tables, sitesTable(f))
				}
			}
		}
	}
	for _, w := range v.Warnings() {
		p.Notes = append(p.Notes, "warning: "+w)
	}
	return p
}

// findingsTable lists findings: base, head, change, threshold and test,
// or why nothing was decided.
func findingsTable(title string, fs []*Finding) *table.Table {
	decided := fs[0].Status == Regressed || fs[0].Status == Improved
	cols := []table.Column{{Name: "benchmark"}, {Name: "metric"}, {Name: "base", Align: table.Right}, {Name: "head", Align: table.Right}}
	if decided {
		cols = append(cols, table.Column{Name: "change", Align: table.Right}, table.Column{Name: "max", Align: table.Right}, table.Column{Name: "test"})
	} else {
		cols = append(cols, table.Column{Name: "why"})
	}
	t := table.New(title, cols...)
	for _, f := range fs {
		b, h := results.FormatPair(f.Base, f.Head, f.Unit)
		cells := []table.Cell{{Text: f.Label()}, {Text: f.Unit}, {Text: b}, {Text: h}}
		if !decided {
			t.Add(append(cells, table.Cell{Text: f.Note})...)
			continue
		}
		t.Add(append(cells, f.changeCell(t), table.Cell{Text: f.Threshold.String()}, table.Cell{Text: f.testText()})...)
	}
	return t
}

// changeCell is a decided finding's change, or a paired estimate's
// percent alone with PairedNote.
func (f *Finding) changeCell(t *table.Table) table.Cell {
	c := table.Cell{Class: table.Better}
	if f.Status == Regressed {
		c.Class = table.Regressed
	}
	switch {
	case math.IsNaN(f.Base) || math.IsNaN(f.Head):
		c.Text = "-"
	case f.Base == 0 && f.Head > 0:
		c.Text = results.FormatSigned(f.Change(), f.Unit) + " (" + results.FromZero(f.Unit) + ")"
	case f.Method == SignedRank:
		c.Text = results.FormatPercent(f.Percent())
		c = t.Note(c, PairedNote)
	default:
		c.Text = results.FormatSigned(f.Change(), f.Unit) + " (" + results.FormatPercent(f.Percent()) + ")"
	}
	return c
}

// sitesTable lists the sites (or functions) of a regression that grew,
// each line's library callees indented below it.
func sitesTable(f *Finding) *table.Table {
	t := table.New(fmt.Sprintf("%s that grew: %s %s (%s, base -> head)", sitesTitle(f.Unit), f.Label(), f.Unit, sitesKind(f.Sites)),
		table.Column{Name: "growth", Align: table.Right}, table.Column{Name: "base", Align: table.Right},
		table.Column{Name: "head", Align: table.Right}, table.Column{Name: "function"})
	add := func(s cost.Site, name string) {
		b, h := results.FormatPair(s.Base, s.Head, f.Unit)
		t.Add(table.Cell{Text: results.FormatSigned(s.Growth(), f.Unit)}, table.Cell{Text: b}, table.Cell{Text: h}, table.Cell{Text: name})
	}
	for _, s := range f.Sites[:min(len(f.Sites), maxSitesShown)] {
		add(s, s.Label())
		for _, c := range s.Callees {
			add(c, "  ↳ "+c.Function)
		}
	}
	if f.Flame != "" {
		t.Notes = append(t.Notes, "where the cost moved, as differential flame graphs: "+f.Flame)
	}
	return t
}

// line formats a configuration key: its one value, or each side's.
func (c ConfigLine) line() string {
	if !c.Differs && len(c.Base) == 1 && slices.Equal(c.Base, c.Head) {
		return c.Key + ": " + strings.TrimSpace(c.Base[0])
	}
	s := fmt.Sprintf("%s: base %s, head %s", c.Key, strings.Join(c.Base, " | "), strings.Join(c.Head, " | "))
	if c.Differs {
		s += "   <- differs"
	}
	return s
}

// correctionNote says how significance was decided; "" if nothing was
// tested.
func (v *Verdict) correctionNote() string {
	tests := map[string]int{}
	for _, f := range v.Findings {
		if f.Method == UTest || f.Method == SignedRank {
			tests[f.Unit]++
		}
	}
	if len(tests) == 0 {
		return ""
	}
	if v.Policy.Correction == NoCorrection {
		return fmt.Sprintf("each comparison at p < %g on its own, no correction for multiple comparisons (as certbench compare and benchstat)", v.Policy.Alpha)
	}
	most := 0
	for _, n := range tests {
		most = max(most, n)
	}
	return fmt.Sprintf("p < %g per metric after Holm's correction for the number of benchmarks tested on it (up to %d); certbench compare and benchstat correct for nothing, so they can call significant a change the gate finds unchanged",
		v.Policy.Alpha, most)
}

// counts summarizes the findings by status.
func (v *Verdict) counts() string {
	n := map[Status]int{}
	for _, f := range v.Findings {
		n[f.Status]++
	}
	parts := []string{fmt.Sprintf("%d regressed", n[Regressed]), fmt.Sprintf("%d improved", n[Improved]), fmt.Sprintf("%d unchanged", n[Unchanged])}
	if k := n[TooFewSamples] + n[Missing]; k > 0 {
		parts = append(parts, fmt.Sprintf("%d not decided", k))
	}
	return fmt.Sprintf("%d comparisons: %s.", len(v.Findings), strings.Join(parts, ", "))
}

// describe formats the policy on one line.
func (p Policy) describe() string {
	var th []string
	for _, u := range Units {
		if t, ok := p.Max[u]; ok {
			th = append(th, u+" "+t.String())
		} else if u == results.UnitRetainedPerCert {
			if _, ok := p.Max[results.UnitRetained]; ok {
				th = append(th, u+" (as retained-B)")
			}
		}
	}
	s := strings.Join(th, ", ")
	if n := len(p.Overrides); n > 0 {
		s += fmt.Sprintf(" (+%d override(s))", n)
	}
	s += fmt.Sprintf("; alpha %g per metric (%s), >= %d samples unless exact; test %s", p.Alpha, p.Correction, p.MinSamples, p.Test)
	if p.AllowMissing {
		s += ", missing allowed"
	}
	if p.Strict {
		s += ", strict"
	}
	if p.Source != "" {
		s = p.Source + ": " + s
	}
	return s
}

// testText says how a finding was decided ("u-test p=0.002 holm=0.004
// n=6/6"); it starts the finding's Note.
func (f *Finding) testText() string {
	adj := "" // only Holm's correction adjusts p
	if f.AdjustedP != f.P {
		adj = fmt.Sprintf(" %s=%.3f", Holm, f.AdjustedP)
	}
	switch f.Method {
	case Exact:
		return fmt.Sprintf("exact n=%d/%d", f.BaseN, f.HeadN)
	case UTest:
		return fmt.Sprintf("u-test p=%.3f%s n=%d/%d", f.P, adj, f.BaseN, f.HeadN)
	case NearExact:
		return fmt.Sprintf("near-exact u-test p=%.3f n=%d/%d", f.P, f.BaseN, f.HeadN)
	case SignedRank:
		return fmt.Sprintf("signed-rank p=%.3f%s pairs=%d, %g%% CI [%s, %s]", f.P, adj, f.Pairs, PairConfidence*100,
			results.FormatPercent((f.RatioLow-1)*100), results.FormatPercent((f.RatioHigh-1)*100))
	}
	return fmt.Sprintf("n=%d/%d", f.BaseN, f.HeadN)
}
