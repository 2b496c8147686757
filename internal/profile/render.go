package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// Format is an output format of the renderers.
type Format string

// The output formats.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

// ParseFormat returns the named format; its error lists the valid names.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Text, Markdown, JSON:
		return f, nil
	case "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown or json)", s)
}

// write renders v in JSON, or pages as text or Markdown (package table),
// a blank line between two pages.
func write(w io.Writer, f Format, v any, pages []*table.Page) error {
	if f == JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	render := table.WriteText
	if f == Markdown {
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
func WriteSummaries(w io.Writer, f Format, sums []*Summary) error {
	var pages []*table.Page
	for _, s := range sums {
		pages = append(pages, s.page())
	}
	return write(w, f, sums, pages)
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
	var b strings.Builder
	per := ""
	if s.Ops > 0 {
		per = "/op"
	}
	fmt.Fprintf(&b, "allocated %s%s in %s objects%s", results.Format(s.AllocBytes, "bytes"), per, results.Format(s.AllocObjects, "count"), per)
	if s.MemBytes > 0 {
		div := float64(max(s.Ops, 1))
		objects := results.Format(float64(s.MemObjects)/div, "count")
		fmt.Fprintf(&b, " (MemStats: %s, %s objects", results.Format(float64(s.MemBytes)/div, "bytes"), objects)
		if objects != results.Format(s.AllocObjects, "count") {
			// runtime: a tiny allocation that fits the current block is counted, not profiled.
			b.WriteString(", which count each tiny allocation (under 16 B, no pointers) packed into a shared 16-byte block; the profile records the block once")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "; store retains %s in %s objects", results.Format(s.RetainedBytes, "bytes"), results.Format(s.RetainedObjects, "count"))
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
// it: an overview table, then in Markdown every summary; in JSON an array
// of Summary. In Markdown and JSON, files are named by base name.
func WriteIndex(w io.Writer, f Format, sums []*Summary) error {
	if f == Markdown || f == JSON {
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
	t := table.New("", table.Column{Name: "scenario"}, table.Column{Name: "store"}, right("ops"), right("B/op"),
		right("allocs/op"), right("retained"), table.Column{Name: "top site"}, right("flat B/op"), table.Column{Name: "profile"})
	for _, s := range sums {
		top, flat := "", ""
		if tab := s.table(AllocSpace, ByFlat); tab != nil && len(tab.Funcs) > 0 {
			top, flat = tab.Funcs[0].Function, results.Format(tab.Funcs[0].Flat, tab.Unit)
		}
		t.Add(cell(s.Scenario), cell(s.Store), cell(strconv.Itoa(s.Ops)), cell(results.Format(s.AllocBytes, "bytes")),
			cell(results.Format(s.AllocObjects, "count")), cell(results.Format(s.RetainedBytes, "bytes")), cell(top), cell(flat), cell(s.File))
	}
	pages := []*table.Page{{Title: "certbench heap profiles", Tables: []*table.Table{t}, Lines: []string{
		"alloc_* values are the allocations of the measured ops, shown per op; inuse_* values are what the store retains afterwards.",
		"Open a profile with go tool pprof -sample_index=alloc_space FILE (or inuse_space).",
	}}}
	if f == Markdown {
		for _, s := range sums {
			pages = append(pages, s.page())
		}
	}
	return write(w, f, sums, pages)
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
func WriteComparisons(w io.Writer, f Format, cs []*Comparison, n int) error {
	var pages []*table.Page
	var tops []*Comparison
	for _, c := range cs {
		pages = append(pages, c.page(n))
		tops = append(tops, c.Top(n))
	}
	return write(w, f, tops, pages)
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
	for name, format := range map[string]Format{IndexMarkdown: Markdown, IndexJSON: JSON} {
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
