package table

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/certbench/certbench/results"
)

// WriteMarkdown writes p as GitHub-flavoured Markdown: a continuing
// column joins the cell before, classed cells are bold, a summary row's
// label italic.
func WriteMarkdown(w io.Writer, p *Page) error {
	bw := bufio.NewWriter(w)
	level := "###"
	if p.Title != "" {
		fmt.Fprintf(bw, "### %s\n\n", results.EscapeMarkdown(p.Title))
		level = "####"
	}
	for _, l := range p.Lines {
		fmt.Fprintf(bw, "%s\n\n", results.EscapeMarkdown(l))
	}
	if len(p.Details) > 0 {
		fmt.Fprintf(bw, "<details><summary>Configuration</summary>\n\n```\n%s\n```\n\n</details>\n\n", strings.Join(p.Details, "\n"))
	}
	for _, t := range p.Tables {
		t.writeMarkdown(bw, level)
	}
	if len(p.Notes) > 0 {
		fmt.Fprint(bw, "**Notes**\n\n")
		for _, n := range p.Notes {
			fmt.Fprintf(bw, "- %s\n", results.EscapeMarkdown(n))
		}
	}
	return bw.Flush()
}

func (t *Table) writeMarkdown(w io.Writer, level string) {
	if t.Title != "" {
		fmt.Fprintf(w, "%s %s\n\n", level, results.EscapeMarkdown(t.Title))
	}
	var head, rule []string
	for j, c := range t.Columns {
		switch {
		case t.cont(j):
			continue
		case c.Align == Right:
			rule = append(rule, "--:")
		default:
			rule = append(rule, ":--")
		}
		head = append(head, results.EscapeMarkdown(strings.TrimSpace(c.Group+" "+c.Name)))
	}
	mdLine(w, head)
	mdLine(w, rule)
	for _, r := range t.Rows {
		var cells []string
		for j := range t.Columns {
			s := mdCell(r.cell(j))
			if j == 0 && r.Summary && s != "" {
				s = "*" + s + "*"
			}
			if t.cont(j) {
				cells[len(cells)-1] = strings.TrimSpace(cells[len(cells)-1] + " " + s)
				continue
			}
			cells = append(cells, s)
		}
		mdLine(w, cells)
	}
	fmt.Fprintln(w)
	var notes []string
	for i, n := range t.Footnotes {
		notes = append(notes, superscript(i+1)+" "+results.EscapeMarkdown(n))
	}
	for _, n := range t.Notes {
		notes = append(notes, results.EscapeMarkdown(n))
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "<sub>%s</sub>\n\n", strings.Join(notes, "<br>"))
	}
}

func mdLine(w io.Writer, cells []string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}

func mdCell(c Cell) string {
	s := results.EscapeMarkdown(c.Text)
	if c.Class != Plain && s != "" {
		s = "**" + s + "**"
	}
	if c.Interval != "" {
		s += " ± " + results.EscapeMarkdown(c.Interval)
	}
	if len(c.Notes) > 0 {
		s += " " + marks(c.Notes)
	}
	return s
}
