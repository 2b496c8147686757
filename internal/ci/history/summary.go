package history

import (
	"fmt"
	"io"
	"strings"

	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// A Summary is what certbench history changes prints: a history's change
// points and, from a commit on, its drift.
type Summary struct {
	Store   string        `json:"history"`
	Commits int           `json:"commits"`
	Series  int           `json:"series"`
	Alpha   float64       `json:"alpha"`
	Changes []ChangePoint `json:"changes"`
	Creep   []Drift       `json:"creep,omitempty"`
}

// NewSummary finds the change points of h and, if since is not "", the
// drift of every series from that commit on.
func NewSummary(h *History, store, since string, opt Options) (*Summary, error) {
	r := &Summary{Store: store, Commits: len(h.Commits), Series: len(h.Keys), Alpha: opt.alpha(), Changes: Changes(h, opt)}
	if r.Changes == nil {
		r.Changes = []ChangePoint{}
	}
	if since != "" {
		var err error
		if r.Creep, err = Creep(h, since, r.Changes, opt); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// short abbreviates a commit hash.
func short(c string) string { return c[:min(len(c), 10)] }

// relative formats a shift as "+0.05% [+0.04%, +0.06%]", or in the unit
// when its level before was 0.
func relative(s Shift, unit string) string {
	if d, lo, hi, ok := s.Relative(); ok {
		// Three decimals: near-exact series step by hundredths of a percent.
		return fmt.Sprintf("%+.3f%% [%+.3f%%, %+.3f%%]", 100*d, 100*lo, 100*hi)
	}
	return fmt.Sprintf("%s [%s, %s]", results.FormatSigned(s.Delta, unit), results.FormatSigned(s.Low, unit), results.FormatSigned(s.High, unit))
}

// Page lays the report out for package table: a table of change points
// and one of the drifts that are significant.
func (r *Summary) Page() *table.Page {
	left := func(names ...string) []table.Column {
		cols := make([]table.Column, len(names))
		for i, n := range names {
			cols[i] = table.Column{Name: n}
		}
		return cols
	}
	row := func(t *table.Table, texts ...string) {
		cells := make([]table.Cell, len(texts))
		for i, s := range texts {
			cells[i] = table.Cell{Text: s}
		}
		t.Add(cells...)
	}
	changes := table.New("", left("commit", "benchmark", "unit", "change [95% CI]", "before → after", "around", "note")...)
	for _, c := range r.Changes {
		note := ""
		if c.Worse {
			note = "worse"
		}
		if c.Machine != "" {
			note = strings.TrimSpace(note + " machine: " + c.Machine)
		}
		b, a := results.FormatPair(c.Before, c.After, c.Unit)
		row(changes, short(c.Commit), c.Benchmark, c.Unit, relative(c.Shift, c.Unit),
			b+" → "+a, short(c.From)+".."+short(c.Previous)+" | "+short(c.Commit)+".."+short(c.To), note)
	}
	creep := table.New("", left("since", "benchmark", "unit", "drift [95% CI]", "then → now", "change points", "note")...)
	for _, d := range r.Creep {
		if d.Significant {
			b, a := results.FormatPair(d.Before, d.After, d.Unit)
			row(creep, short(d.Since), d.Benchmark, d.Unit, relative(d.Shift, d.Unit), b+" → "+a, fmt.Sprint(d.Changes), map[bool]string{true: "worse"}[d.Worse])
		}
	}
	s := fmt.Sprintf("%s: %d change points in %d series over %d commits (false discovery rate %g)", r.Store, len(r.Changes), r.Series, r.Commits, r.Alpha)
	if len(r.Creep) > 0 {
		s += fmt.Sprintf("; %d series drifted since %s", len(creep.Rows), short(r.Creep[0].Since))
	}
	p := &table.Page{Title: s}
	for _, t := range []*table.Table{changes, creep} {
		if len(t.Rows) > 0 {
			p.Tables = append(p.Tables, t)
		}
	}
	return p
}

// WriteText writes the report as aligned text.
func (r *Summary) WriteText(w io.Writer) error { return table.WriteText(w, r.Page()) }

// WriteMarkdown writes the report as Markdown tables.
func (r *Summary) WriteMarkdown(w io.Writer) error { return table.WriteMarkdown(w, r.Page()) }
