package cost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// write renders v in JSON ("json"), or pages as text ("text") or
// Markdown ("markdown", "md"; package table), a blank line between two
// pages.
func write(w io.Writer, format string, v any, pages []*table.Page) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	render := table.WriteText
	if format == "markdown" || format == "md" {
		render = table.WriteMarkdown
	}
	for i, p := range pages {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := render(w, p); err != nil {
			return err
		}
	}
	return nil
}

// WriteSummaries renders summaries: each one's totals and its tables of
// top sites; in JSON an array of Summary.
func WriteSummaries(w io.Writer, format string, sums []*Summary) error {
	var pages []*table.Page
	for _, s := range sums {
		pages = append(pages, s.page())
	}
	return write(w, format, sums, pages)
}

// title is "scenario on store" or what is known of it.
func (info Info) title() string {
	switch {
	case info.Scenario != "" && info.Store != "":
		return info.Scenario + " on " + info.Store
	case info.Scenario != "" || info.Store != "":
		return info.Scenario + info.Store
	}
	return "profile"
}

// headline is the summary's totals in one line.
func (s *Summary) headline() string {
	per := ""
	if s.Ops > 0 {
		per = "/op"
	}
	if !slices.ContainsFunc(s.Totals, func(t Sum) bool { return t.SampleType == AllocSpace }) {
		var parts []string
		for _, t := range s.Totals {
			parts = append(parts, fmt.Sprintf("%s %s%s", results.Format(t.Value, t.Unit), t.SampleType, per))
		}
		return strings.Join(parts, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "allocated %s%s in %s objects%s", results.Format(s.Total(AllocSpace), "bytes"), per, results.Format(s.Total(AllocObjects), "count"), per)
	if s.MemBytes > 0 {
		div := float64(max(s.Ops, 1))
		objects := results.Format(float64(s.MemObjects)/div, "count")
		fmt.Fprintf(&b, " (MemStats: %s, %s objects", results.Format(float64(s.MemBytes)/div, "bytes"), objects)
		if objects != results.Format(s.Total(AllocObjects), "count") {
			// runtime: a tiny allocation that fits the current block is counted, not profiled.
			b.WriteString(", which count each tiny allocation (under 16 B, no pointers) packed into a shared 16-byte block; the profile records the block once")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "; store retains %s in %s objects", results.Format(s.Total(InuseSpace), "bytes"), results.Format(s.Total(InuseObjects), "count"))
	return b.String()
}

// page is the summary: its totals, its file and its tables.
func (s *Summary) page() *table.Page {
	p := &table.Page{Title: side(s.Info), Lines: []string{s.headline()}}
	if s.File != "" {
		p.Lines = append(p.Lines, "profile: "+s.File)
	}
	for _, t := range s.Tables {
		p.Tables = append(p.Tables, t.table())
	}
	return p
}

// right is a right-aligned column.
func right(name string) table.Column { return table.Column{Name: name, Align: table.Right} }

// table is t as a table value, titled "alloc_space per op, by flat".
func (t *Top) table() *table.Table {
	title := t.SampleType
	if t.PerOp {
		title += " per op"
	}
	tt := table.New(title+", by "+string(t.Order), right("flat"), right("flat%"), right("cum"), right("cum%"), table.Column{Name: "function"})
	for _, f := range t.Funcs {
		tt.Add(cell(results.Format(f.Flat, t.Unit)), cell(percent(f.Flat, t.Total)),
			cell(results.Format(f.Cum, t.Unit)), cell(percent(f.Cum, t.Total)), cell(f.Function))
	}
	if len(t.Funcs) == 0 {
		tt.Add(cell(""), cell(""), cell(""), cell(""), cell("none"))
	}
	return tt
}

func cell(s string) table.Cell { return table.Cell{Text: s} }

// WriteIndex renders the index of a folder of profiles, to be written in
// it: an overview table (a column per sample type, the top site of the
// first), then in Markdown every summary; in JSON an array of Summary. In
// Markdown and JSON, files are named by base name.
func WriteIndex(w io.Writer, format string, sums []*Summary) error {
	if format != "text" {
		local := make([]*Summary, len(sums))
		for i, s := range sums {
			c := *s
			if c.File != "" {
				c.File = filepath.Base(c.File)
			}
			local[i] = &c
		}
		sums = local
	}
	cols := []table.Column{{Name: "scenario"}, {Name: "store"}, right("ops")}
	var types []Sum
	if len(sums) > 0 {
		types = sums[0].Totals
	}
	for _, t := range types {
		cols = append(cols, right(t.SampleType+map[bool]string{true: "/op"}[t.PerOp]))
	}
	cols = append(cols, table.Column{Name: "top site"}, right("flat/op"), table.Column{Name: "profile"})
	t := table.New("", cols...)
	for _, s := range sums {
		row := []table.Cell{cell(s.Scenario), cell(s.Store), cell(strconv.Itoa(s.Ops))}
		for _, tt := range types {
			row = append(row, cell(results.Format(s.Total(tt.SampleType), tt.Unit)))
		}
		top, flat := "", ""
		if len(types) > 0 {
			if tab := s.table(types[0].SampleType, ByFlat); tab != nil && len(tab.Funcs) > 0 {
				top, flat = tab.Funcs[0].Function, results.Format(tab.Funcs[0].Flat, tab.Unit)
			}
		}
		t.Add(append(row, cell(top), cell(flat), cell(s.File))...)
	}
	pages := []*table.Page{{Title: "certbench profiles", Tables: []*table.Table{t}, Lines: []string{
		"alloc_* and the simulated CPU's values are what the measured ops cost, shown per op; inuse_* values are what the store retains afterwards.",
		"Open a profile with go tool pprof -sample_index=TYPE FILE (go tool pprof -http=: FILE draws it as a flame graph).",
	}}}
	if format == "markdown" || format == "md" {
		for _, s := range sums {
			pages = append(pages, s.page())
		}
	}
	return write(w, format, sums, pages)
}

// table returns the summary's table of that sample type and order, or nil.
func (s *Summary) table(sampleType string, order Order) *Top {
	for _, t := range s.Tables {
		if t.SampleType == sampleType && t.Order == order {
			return t
		}
	}
	return nil
}

// WriteComparisons renders each comparison's totals and the n functions
// (all when n <= 0) that grew and shrank most by flat value; in JSON
// [Comparison.Top] of each.
func WriteComparisons(w io.Writer, format string, cs []*Comparison, n int) error {
	var pages []*table.Page
	var tops []*Comparison
	for _, c := range cs {
		pages = append(pages, c.page(n))
		tops = append(tops, c.Top(n))
	}
	return write(w, format, tops, pages)
}

// side describes one side of a comparison: "rotate-10-of-100 on naive, 10 ops".
func side(info Info) string {
	s := info.title()
	if info.Ops > 0 {
		s += fmt.Sprintf(", %d ops", info.Ops)
	}
	return s
}

// page is the comparison as WriteComparisons renders it.
func (c *Comparison) page(n int) *table.Page {
	per := ""
	if c.PerOp {
		per = " per op"
	}
	change := "n/a"
	if c.BaseTotal != 0 {
		change = fmt.Sprintf("%+.1f%%", (c.HeadTotal-c.BaseTotal)/math.Abs(c.BaseTotal)*100)
	}
	p := &table.Page{Title: c.SampleType + per, Lines: []string{fmt.Sprintf("base (%s) %s, head (%s) %s, %s %s",
		side(c.Base), results.Format(c.BaseTotal, c.Unit), side(c.Head), results.Format(c.HeadTotal, c.Unit),
		results.FormatSigned(c.HeadTotal-c.BaseTotal, c.Unit), change)}}
	cum := map[string]float64{}
	for _, s := range c.Cum {
		cum[s.Function] = s.Growth()
	}
	for _, g := range []struct {
		name  string
		sites []Site
	}{{"grew", c.Grew(n, ByFlat)}, {"shrank", c.Shrank(n, ByFlat)}} {
		t := table.New(g.name+" (by flat)", right("flat Δ"), right("base flat"), right("head flat"), right("cum Δ"), table.Column{Name: "function"})
		for _, s := range g.sites {
			t.Add(cell(results.FormatSigned(s.Growth(), c.Unit)), cell(results.Format(s.Base, c.Unit)),
				cell(results.Format(s.Head, c.Unit)), cell(results.FormatSigned(cum[s.Function], c.Unit)), cell(s.Function))
		}
		if len(g.sites) == 0 {
			t.Add(cell(""), cell(""), cell(""), cell(""), cell("none"))
		}
		p.Tables = append(p.Tables, t)
	}
	return p
}

// percent formats v as a percentage of total.
func percent(v, total float64) string {
	if total == 0 {
		return "-"
	}
	return strconv.FormatFloat(v/total*100, 'f', 1, 64) + "%"
}

// The index files WriteIndexFiles writes into a folder of profiles.
const (
	IndexMarkdown = "index.md"
	IndexJSON     = "index.json"
)

// WriteIndexFiles writes dir/index.md and dir/index.json (WriteIndex).
func WriteIndexFiles(dir string, sums []*Summary) error {
	for name, format := range map[string]string{IndexMarkdown: "markdown", IndexJSON: "json"} {
		var buf bytes.Buffer
		if err := WriteIndex(&buf, format, sums); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
