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
	"text/tabwriter"

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

// WriteSummaries renders summaries: in text and markdown a header line
// with the totals, then each table of top sites; in JSON an array of
// Summary.
func WriteSummaries(w io.Writer, f Format, sums []*Summary) error {
	switch f {
	case JSON:
		return writeJSON(w, sums)
	case Markdown:
		for i, s := range sums {
			if i > 0 {
				fmt.Fprintln(w)
			}
			writeSummaryMarkdown(w, s, 3)
		}
		return nil
	default:
		for i, s := range sums {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := writeSummaryText(w, s); err != nil {
				return err
			}
		}
		return nil
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
	b.WriteString(s.title())
	per := ""
	if s.Ops > 0 {
		fmt.Fprintf(&b, ", %d ops", s.Ops)
		per = "/op"
	}
	fmt.Fprintf(&b, ": allocated %s%s in %s objects%s", results.Format(s.AllocBytes, "bytes"), per, results.Format(s.AllocObjects, "count"), per)
	if s.MemBytes > 0 {
		div := float64(max(s.Ops, 1))
		fmt.Fprintf(&b, " (MemStats: %s, %s objects)", results.Format(float64(s.MemBytes)/div, "bytes"), results.Format(float64(s.MemObjects)/div, "count"))
	}
	fmt.Fprintf(&b, "; store retains %s in %s objects", results.Format(s.RetainedBytes, "bytes"), results.Format(s.RetainedObjects, "count"))
	return b.String()
}

// caption names a table: "alloc_space per op, by flat".
func (t *Table) caption() string {
	c := t.SampleType
	if t.PerOp {
		c += " per op"
	}
	return c + ", by " + string(t.Order)
}

func writeSummaryText(w io.Writer, s *Summary) error {
	fmt.Fprintln(w, s.headline())
	if s.File != "" {
		fmt.Fprintf(w, "profile: %s\n", s.File)
	}
	for _, t := range s.Tables {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "flat\tflat%%\tcum\tcum%%\t  %s\n", t.caption())
		if len(t.Funcs) == 0 {
			fmt.Fprintf(tw, "\t\t\t\t  none\n")
		}
		for _, site := range t.Funcs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t  %s\n",
				results.Format(site.Flat, t.Unit), percent(site.Flat, t.Total),
				results.Format(site.Cum, t.Unit), percent(site.Cum, t.Total), site.Function)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func writeSummaryMarkdown(w io.Writer, s *Summary, level int) {
	h := strings.Repeat("#", level)
	fmt.Fprintf(w, "%s %s\n\n", h, s.title())
	fmt.Fprintf(w, "%s\n", s.headline())
	if s.File != "" {
		fmt.Fprintf(w, "\nProfile: [%s](%s)\n", filepath.Base(s.File), filepath.ToSlash(s.File))
	}
	for _, t := range s.Tables {
		fmt.Fprintf(w, "\n%s\n\n", t.caption())
		fmt.Fprintln(w, "| flat | flat% | cum | cum% | function |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|:---|")
		if len(t.Funcs) == 0 {
			fmt.Fprintln(w, "| | | | | none |")
		}
		for _, site := range t.Funcs {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n",
				results.Format(site.Flat, t.Unit), percent(site.Flat, t.Total),
				results.Format(site.Cum, t.Unit), percent(site.Cum, t.Total), results.CodeSpan(site.Function))
		}
	}
}

// WriteIndex renders the index of a folder of profiles, to be written in
// that folder: in markdown an overview table (file, ops, allocation per op,
// retained heap, top site) followed by every summary; in JSON an array of
// Summary; in text a headline, the top site and the file per profile. In
// markdown and JSON, files are named relative to the folder (base names).
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
	switch f {
	case JSON:
		return writeJSON(w, sums)
	case Markdown:
		fmt.Fprintln(w, "# certbench heap profiles")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "alloc_* values are the allocations of the measured ops, shown per op; inuse_* values are what the store retains afterwards.")
		fmt.Fprintln(w, "Open a profile with `go tool pprof -sample_index=alloc_space FILE` (or inuse_space).")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| scenario | store | ops | B/op | allocs/op | retained | top site (flat B/op) | profile |")
		fmt.Fprintln(w, "|:---|:---|---:|---:|---:|---:|:---|:---|")
		for _, s := range sums {
			top := ""
			if t := s.table(AllocSpace, ByFlat); t != nil && len(t.Funcs) > 0 {
				top = fmt.Sprintf("%s %s", results.CodeSpan(t.Funcs[0].Function), results.Format(t.Funcs[0].Flat, t.Unit))
			}
			file := ""
			if s.File != "" {
				file = fmt.Sprintf("[%s](%s)", s.File, s.File)
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s |\n", results.EscapeMarkdown(s.Scenario), results.EscapeMarkdown(s.Store), s.Ops,
				results.Format(s.AllocBytes, "bytes"), results.Format(s.AllocObjects, "count"),
				results.Format(s.RetainedBytes, "bytes"), top, file)
		}
		for _, s := range sums {
			fmt.Fprintln(w)
			writeSummaryMarkdown(w, s, 2)
		}
		return nil
	default:
		for _, s := range sums {
			fmt.Fprintln(w, s.headline())
			if t := s.table(AllocSpace, ByFlat); t != nil && len(t.Funcs) > 0 {
				per := ""
				if t.PerOp {
					per = "/op"
				}
				fmt.Fprintf(w, "  top site: %s %s%s\n", t.Funcs[0].Function, results.Format(t.Funcs[0].Flat, t.Unit), per)
			}
			if s.File != "" {
				fmt.Fprintf(w, "  profile: %s\n", s.File)
			}
		}
		return nil
	}
}

// table returns the summary's table of that sample type and order, or nil.
func (s *Summary) table(sampleType string, order Order) *Table {
	for _, t := range s.Tables {
		if t.SampleType == sampleType && t.Order == order {
			return t
		}
	}
	return nil
}

// WriteComparisons renders comparisons: for each, the totals and the n
// functions (all when n <= 0) that grew and that shrank most, by flat
// value (in JSON by cumulative value too: [Comparison.Top]).
func WriteComparisons(w io.Writer, f Format, cs []*Comparison, n int) error {
	if f == JSON {
		out := make([]*Comparison, 0, len(cs))
		for _, c := range cs {
			out = append(out, c.Top(n))
		}
		return writeJSON(w, out)
	}
	for i, c := range cs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := writeComparison(w, f, c, n); err != nil {
			return err
		}
	}
	return nil
}

// side describes one side of a comparison: "rotate-10-of-100 on naive, 10 ops".
func side(info Info) string {
	s := info.title()
	if info.Ops > 0 {
		s += fmt.Sprintf(", %d ops", info.Ops)
	}
	return s
}

func writeComparison(w io.Writer, f Format, c *Comparison, n int) error {
	per := ""
	if c.PerOp {
		per = " per op"
	}
	change := "n/a"
	if c.BaseTotal != 0 {
		change = fmt.Sprintf("%+.1f%%", (c.HeadTotal-c.BaseTotal)/math.Abs(c.BaseTotal)*100)
	}
	head := fmt.Sprintf("%s%s: base (%s) %s, head (%s) %s, %s %s",
		c.SampleType, per, side(c.Base), results.Format(c.BaseTotal, c.Unit),
		side(c.Head), results.Format(c.HeadTotal, c.Unit),
		results.FormatSigned(c.HeadTotal-c.BaseTotal, c.Unit), change)
	groups := []struct {
		name   string
		deltas []Site
	}{{"grew", c.Grew(n, ByFlat)}, {"shrank", c.Shrank(n, ByFlat)}}
	cum := map[string]float64{}
	for _, s := range c.Cum {
		cum[s.Function] = s.Growth()
	}
	if f == Markdown {
		fmt.Fprintf(w, "### %s%s\n\n%s\n", c.SampleType, per, head)
		for _, g := range groups {
			fmt.Fprintf(w, "\n%s (by flat)\n\n", g.name)
			if len(g.deltas) == 0 {
				fmt.Fprintln(w, "none")
				continue
			}
			fmt.Fprintln(w, "| flat Δ | base flat | head flat | cum Δ | function |")
			fmt.Fprintln(w, "|---:|---:|---:|---:|:---|")
			for _, d := range g.deltas {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", results.FormatSigned(d.Growth(), c.Unit),
					results.Format(d.Base, c.Unit), results.Format(d.Head, c.Unit),
					results.FormatSigned(cum[d.Function], c.Unit), results.CodeSpan(d.Function))
			}
		}
		return nil
	}
	fmt.Fprintln(w, head)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, g := range groups {
		fmt.Fprintf(tw, "flat Δ\tbase flat\thead flat\tcum Δ\t  %s (by flat)\n", g.name)
		if len(g.deltas) == 0 {
			fmt.Fprintf(tw, "\t\t\t\t  none\n")
		}
		for _, d := range g.deltas {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t  %s\n", results.FormatSigned(d.Growth(), c.Unit),
				results.Format(d.Base, c.Unit), results.Format(d.Head, c.Unit),
				results.FormatSigned(cum[d.Function], c.Unit), d.Function)
		}
	}
	return tw.Flush()
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

// WriteIndexFiles writes dir/index.md and dir/index.json, the index of the
// profiles of sums (see WriteIndex), as "certbench profile --all" leaves
// them for a CI artifact.
func WriteIndexFiles(dir string, sums []*Summary) error {
	for _, idx := range []struct {
		name   string
		format Format
	}{{IndexMarkdown, Markdown}, {IndexJSON, JSON}} {
		var buf bytes.Buffer
		if err := WriteIndex(&buf, idx.format, sums); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, idx.name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
