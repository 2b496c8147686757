package table

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
)

// WriteHTML writes p as an HTML fragment for a page that styles it: a
// cell's class and a right-aligned column's "num" are classes of its
// <td>, a summary row is <tr class="summary">.
func WriteHTML(w io.Writer, p *Page) error {
	bw := bufio.NewWriter(w)
	esc := html.EscapeString
	if p.Title != "" {
		fmt.Fprintf(bw, "<h2>%s</h2>\n", esc(p.Title))
	}
	for _, l := range p.Lines {
		fmt.Fprintf(bw, "<p>%s</p>\n", esc(l))
	}
	if len(p.Details) > 0 {
		fmt.Fprintf(bw, "<details><summary>Configuration</summary><pre>%s</pre></details>\n", esc(strings.Join(p.Details, "\n")))
	}
	for _, t := range p.Tables {
		t.writeHTML(bw)
	}
	if len(p.Notes) > 0 {
		fmt.Fprintln(bw, `<ul class="notes">`)
		for _, n := range p.Notes {
			fmt.Fprintf(bw, "<li>%s</li>\n", esc(n))
		}
		fmt.Fprintln(bw, "</ul>")
	}
	return bw.Flush()
}

func (t *Table) writeHTML(w io.Writer) {
	esc := html.EscapeString
	if t.Title != "" {
		fmt.Fprintf(w, "<h3>%s</h3>\n", esc(t.Title))
	}
	if t.ID != "" {
		fmt.Fprintf(w, "<table id=\"%s\">\n<thead>\n", esc(t.ID))
	} else {
		fmt.Fprintln(w, "<table>\n<thead>")
	}
	if t.grouped() {
		fmt.Fprint(w, "<tr>")
		for _, g := range t.groups() {
			fmt.Fprintf(w, "<th%s>%s</th>", colspan(t.span(g.start, g.end)), esc(t.Columns[g.start].Group))
		}
		fmt.Fprintln(w, "</tr>")
	}
	fmt.Fprint(w, "<tr>")
	for j, c := range t.Columns {
		if !t.cont(j) {
			fmt.Fprintf(w, "<th>%s</th>", esc(c.Name))
		}
	}
	fmt.Fprintln(w, "</tr>\n</thead>\n<tbody>")
	for _, r := range t.Rows {
		if r.Summary {
			fmt.Fprint(w, `<tr class="summary">`)
		} else {
			fmt.Fprint(w, "<tr>")
		}
		for j, c := range t.Columns {
			if t.cont(j) {
				continue
			}
			var parts []string
			for k := j; k < len(t.Columns) && (k == j || t.cont(k)); k++ {
				if s := htmlCell(r.cell(k)); s != "" {
					parts = append(parts, s)
				}
			}
			attr := ""
			if class := strings.TrimSpace(map[Align]string{Right: "num"}[c.Align] + " " + string(r.cell(j).Class)); class != "" {
				attr = ` class="` + class + `"`
			}
			fmt.Fprintf(w, "<td%s>%s</td>", attr, strings.Join(parts, " "))
		}
		fmt.Fprintln(w, "</tr>")
	}
	fmt.Fprintln(w, "</tbody>\n</table>")
	if len(t.Footnotes)+len(t.Notes) > 0 {
		fmt.Fprint(w, `<p class="notes">`)
		var notes []string
		for i, n := range t.Footnotes {
			notes = append(notes, fmt.Sprintf("<sup>%d</sup> %s", i+1, esc(n)))
		}
		for _, n := range t.Notes {
			notes = append(notes, esc(n))
		}
		fmt.Fprintf(w, "%s</p>\n", strings.Join(notes, "<br>\n"))
	}
}

func colspan(n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(` colspan="%d"`, n)
}

// span returns the number of columns in [start, end) that do not
// continue another.
func (t *Table) span(start, end int) int {
	n := 0
	for j := start; j < end; j++ {
		if !t.cont(j) {
			n++
		}
	}
	return n
}

func htmlCell(c Cell) string {
	s := html.EscapeString(c.Text)
	if c.Interval != "" {
		s += ` <span class="ci">± ` + html.EscapeString(c.Interval) + "</span>"
	}
	for _, n := range c.Notes {
		s += fmt.Sprintf("<sup>%d</sup>", n)
	}
	return s
}
