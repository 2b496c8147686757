package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/certbench/certbench/results"
)

// WriteMarkdown writes r as GitHub-flavoured Markdown, compact enough for
// a pull request comment: the configuration in a collapsed <details>
// block, then for each unit a heading and a table with one column per
// Column and, after each non-baseline column, a "vs <baseline>" delta
// column (significant deltas in bold), a geomean row, footnotes for
// warnings, and finally a legend and any remaining notes.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(r.Config) > 0 {
		fmt.Fprint(bw, "<details><summary>Configuration</summary>\n\n```\n")
		for _, c := range r.Config {
			fmt.Fprintln(bw, configLine(c))
		}
		fmt.Fprint(bw, "```\n\n</details>\n\n")
	}
	shown := make(map[string]bool)
	for _, t := range r.shownTables() {
		for _, n := range t.writeMarkdown(bw) {
			shown[n] = true
		}
	}
	if len(r.Columns) > 1 {
		fmt.Fprintf(bw, "<sub>Cells: median ± %s confidence interval (exact units: the value). Deltas vs %s: shown if significant (Mann-Whitney U test, p &lt; %v; exact units: any difference), ~ otherwise.</sub>\n",
			percent(r.Options.Confidence), results.EscapeMarkdown(r.Columns[0].Label), r.Options.Alpha)
	} else {
		fmt.Fprintf(bw, "<sub>Cells: median ± %s confidence interval (exact units: the value).</sub>\n", percent(r.Options.Confidence))
	}
	if notes := r.endNotes(shown); len(notes) > 0 {
		fmt.Fprint(bw, "\n**Notes**\n\n")
		for _, n := range notes {
			fmt.Fprintf(bw, "- %s\n", results.EscapeMarkdown(n))
		}
	}
	return bw.Flush()
}

// writeMarkdown writes one table and returns its footnotes.
func (t *Table) writeMarkdown(w io.Writer) []string {
	var fn footnotes
	fmt.Fprintf(w, "### %s\n\n", results.EscapeMarkdown(t.Unit))

	var b strings.Builder
	cells := func(vals ...string) {
		for _, v := range vals {
			b.WriteString(" ")
			b.WriteString(v)
			b.WriteString(" |")
		}
	}
	line := func() {
		fmt.Fprintln(w, b.String())
		b.Reset()
	}

	b.WriteString("|")
	cells(results.EscapeMarkdown(t.RowHeader()))
	for j, col := range t.Columns {
		cells(results.EscapeMarkdown(col.Label))
		if j > 0 {
			cells("vs " + results.EscapeMarkdown(t.Columns[0].Label))
		}
	}
	line()
	b.WriteString("|")
	cells(":--")
	for j := range t.Columns {
		cells("--:")
		if j > 0 {
			cells("--:")
		}
	}
	line()

	withNote := func(s string, warnings []string) string {
		if n := fn.ref(warnings); n != "" {
			return s + " " + n
		}
		return s
	}
	for _, row := range t.Rows {
		b.WriteString("|")
		cells(results.EscapeMarkdown(row.Label))
		for j, c := range row.Cells {
			if c == nil {
				cells("")
				if j > 0 {
					cells("")
				}
				continue
			}
			center, _ := t.cellTexts(c)
			if ci := ciText(c); ci != "" {
				center += " ± " + ci
			}
			cells(withNote(center, cellNotes(c.Warnings)))
			if j == 0 {
				continue
			}
			if d := c.Delta; d != nil {
				delta := d.String()
				if d.Significant {
					delta = "**" + delta + "**"
				}
				cells(withNote(delta+" ("+testText(d)+")", cellNotes(d.Warnings)))
			} else {
				cells("")
			}
		}
		line()
	}
	if t.Geomean != nil {
		b.WriteString("|")
		cells("*" + GeomeanLabel + "*")
		for j, g := range t.Geomean {
			center, ratio := t.geoTexts(j, g)
			if j == 0 {
				cells(withNote(center, g.Warnings))
				continue
			}
			cells(center, withNote(ratio, g.Warnings))
		}
		line()
	}
	fmt.Fprintln(w)
	if len(fn.list) > 0 {
		var notes []string
		for i, n := range fn.list {
			notes = append(notes, superscript(i+1)+" "+results.EscapeMarkdown(n))
		}
		fmt.Fprintf(w, "<sub>%s</sub>\n\n", strings.Join(notes, "<br>"))
	}
	return fn.list
}

// percent formats a level such as 0.95 as "95%".
func percent(level float64) string {
	return strconv.FormatFloat(math.Round(level*1e6)/1e4, 'f', -1, 64) + "%"
}
