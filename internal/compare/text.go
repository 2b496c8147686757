package compare

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes r as plain-text tables in the style of benchstat, for a
// fixed-width font: the configuration lines, then for each unit a table
// with one column group per Column showing "center ± CI" and, after the
// baseline, the delta "vs base" with its test "(p=0.002 n=6)", a geomean
// row, and numbered footnotes for warnings. Warnings that belong to no
// table cell are listed at the end as "note:" lines.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, c := range r.Config {
		fmt.Fprintln(bw, configLine(c))
	}
	shown := make(map[string]bool)
	for i, t := range r.shownTables() {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		notes := t.writeText(bw)
		for k, n := range notes {
			fmt.Fprintf(bw, "%s %s\n", superscript(k+1), n)
			shown[n] = true
		}
	}
	for _, n := range r.endNotes(shown) {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	return bw.Flush()
}

// textCell is the text of one column group of one table row.
type textCell struct {
	center, ci, cnote  string
	delta, test, dnote string
}

// writeText writes one table and returns its footnotes.
func (t *Table) writeText(w io.Writer) []string {
	var fn footnotes
	labels := make([]string, 0, len(t.Rows)+1)
	grid := make([][]textCell, 0, len(t.Rows)+1)
	for _, row := range t.Rows {
		labels = append(labels, row.Label)
		line := make([]textCell, len(t.Columns))
		for j, c := range row.Cells {
			if c == nil {
				continue
			}
			tc := &line[j]
			tc.center, _ = t.cellTexts(c)
			tc.ci = ciText(c)
			tc.cnote = fn.ref(cellNotes(c.Warnings))
			if d := c.Delta; d != nil {
				tc.delta, tc.test = d.String(), "("+testText(d)+")"
				tc.dnote = fn.ref(cellNotes(d.Warnings))
			}
		}
		grid = append(grid, line)
	}
	if t.Geomean != nil {
		labels = append(labels, GeomeanLabel)
		line := make([]textCell, len(t.Columns))
		for j, g := range t.Geomean {
			line[j].center, line[j].delta = t.geoTexts(j, g)
			if j == 0 {
				line[j].cnote = fn.ref(g.Warnings)
			} else {
				line[j].dnote = fn.ref(g.Warnings)
			}
		}
		grid = append(grid, line)
	}

	w0 := 0
	for _, l := range labels {
		w0 = max(w0, width(l))
	}

	// Per column group widths.
	type widths struct {
		center, ci, cnote, delta, test, dnote int
		left, right                           int // padding to fit the column label
	}
	ws := make([]widths, len(t.Columns))
	for j := range t.Columns {
		wd := &ws[j]
		for _, line := range grid {
			tc := line[j]
			wd.center = max(wd.center, width(tc.center))
			wd.ci = max(wd.ci, width(tc.ci))
			wd.cnote = max(wd.cnote, width(tc.cnote))
			wd.delta = max(wd.delta, width(tc.delta))
			wd.test = max(wd.test, width(tc.test))
			wd.dnote = max(wd.dnote, width(tc.dnote))
		}
	}
	valueWidth := func(wd *widths) int {
		n := wd.center + 3 + wd.ci // "center ± ci"
		if wd.cnote > 0 {
			n += 1 + wd.cnote
		}
		return n
	}
	deltaWidth := func(wd *widths) int {
		n := wd.delta + 1 + wd.test
		if wd.dnote > 0 {
			n += 1 + wd.dnote
		}
		return n
	}
	const vsBase = "vs base"
	contentWidth := func(j int) int {
		n := valueWidth(&ws[j])
		if j > 0 {
			n += 2 + deltaWidth(&ws[j])
		}
		return n
	}
	for j, col := range t.Columns {
		wd := &ws[j]
		if n := width(t.Unit) - valueWidth(wd); n > 0 {
			wd.center += n
		}
		if j > 0 {
			if n := width(vsBase) - deltaWidth(wd); n > 0 {
				wd.test += n
			}
		}
		if extra := width(col.Label) - contentWidth(j); extra > 0 {
			wd.left, wd.right = extra/2, extra-extra/2
		}
	}

	var b strings.Builder
	line := func() {
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		b.Reset()
	}
	// Header: column labels, then units and "vs base".
	b.WriteString(strings.Repeat(" ", w0))
	for j, col := range t.Columns {
		b.WriteString(" │ ")
		b.WriteString(center(col.Label, ws[j].left+contentWidth(j)+ws[j].right))
	}
	b.WriteString(" │")
	line()
	b.WriteString(strings.Repeat(" ", w0))
	for j := range t.Columns {
		wd := &ws[j]
		b.WriteString(" │ ")
		b.WriteString(strings.Repeat(" ", wd.left))
		b.WriteString(center(t.Unit, valueWidth(wd)))
		if j > 0 {
			b.WriteString("  ")
			b.WriteString(padRight(vsBase, deltaWidth(wd)))
		}
		b.WriteString(strings.Repeat(" ", wd.right))
	}
	b.WriteString(" │")
	line()

	// Body.
	for i, cells := range grid {
		b.WriteString(padRight(labels[i], w0))
		for j, tc := range cells {
			wd := &ws[j]
			b.WriteString("   ")
			b.WriteString(strings.Repeat(" ", wd.left))
			b.WriteString(padLeft(tc.center, wd.center))
			if tc.ci != "" {
				b.WriteString(" ± ")
				b.WriteString(padLeft(tc.ci, wd.ci))
			} else {
				b.WriteString(strings.Repeat(" ", 3+wd.ci))
			}
			if wd.cnote > 0 {
				b.WriteString(" ")
				b.WriteString(padRight(tc.cnote, wd.cnote))
			}
			if j > 0 {
				b.WriteString("  ")
				b.WriteString(padLeft(tc.delta, wd.delta))
				b.WriteString(" ")
				b.WriteString(padRight(tc.test, wd.test))
				if wd.dnote > 0 {
					b.WriteString(" ")
					b.WriteString(padRight(tc.dnote, wd.dnote))
				}
			}
			b.WriteString(strings.Repeat(" ", wd.right))
		}
		line()
	}
	return fn.list
}

func width(s string) int { return utf8.RuneCountInString(s) }

func padLeft(s string, n int) string {
	if d := n - width(s); d > 0 {
		return strings.Repeat(" ", d) + s
	}
	return s
}

func padRight(s string, n int) string {
	if d := n - width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

func center(s string, n int) string {
	d := n - width(s)
	if d <= 0 {
		return s
	}
	return strings.Repeat(" ", d/2) + s + strings.Repeat(" ", d-d/2)
}
