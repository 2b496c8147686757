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

// textWidths are the widths of the parts of one column group.
type textWidths struct {
	center, ci, cnote, delta, test, dnote int
	left, right                           int // padding to fit the column label
}

// value is the width of "center ± ci" and its footnote mark.
func (wd *textWidths) value() int {
	n := wd.center + 3 + wd.ci
	if wd.cnote > 0 {
		n += 1 + wd.cnote
	}
	return n
}

// deltaPart is the width of "delta (test)" and its footnote mark.
func (wd *textWidths) deltaPart() int {
	n := wd.delta + 1 + wd.test
	if wd.dnote > 0 {
		n += 1 + wd.dnote
	}
	return n
}

// content is the width of column group j without label padding; only
// groups after the baseline have a delta part.
func (wd *textWidths) content(j int) int {
	n := wd.value()
	if j > 0 {
		n += 2 + wd.deltaPart()
	}
	return n
}

// vsBase heads the delta part of each column group after the baseline.
const vsBase = "vs base"

// textTable is one table laid out as text: row labels, cell texts and
// column widths.
type textTable struct {
	t      *Table
	labels []string
	grid   [][]textCell
	w0     int // width of the label column
	ws     []textWidths
}

// writeText writes one table and returns its footnotes.
func (t *Table) writeText(w io.Writer) []string {
	var fn footnotes
	tt := &textTable{t: t}
	tt.fill(&fn)
	tt.measure()
	tt.write(w)
	return fn.list
}

// fill turns the rows and the geomean row into cell texts, numbering
// footnotes in reading order.
func (tt *textTable) fill(fn *footnotes) {
	t := tt.t
	tt.labels = make([]string, 0, len(t.Rows)+1)
	tt.grid = make([][]textCell, 0, len(t.Rows)+1)
	for _, row := range t.Rows {
		tt.labels = append(tt.labels, row.Label)
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
		tt.grid = append(tt.grid, line)
	}
	if t.Geomean != nil {
		tt.labels = append(tt.labels, GeomeanLabel)
		line := make([]textCell, len(t.Columns))
		for j, g := range t.Geomean {
			line[j].center, line[j].delta = t.geoTexts(j, g)
			if j == 0 {
				line[j].cnote = fn.ref(g.Warnings)
			} else {
				line[j].dnote = fn.ref(g.Warnings)
			}
		}
		tt.grid = append(tt.grid, line)
	}
}

// measure sizes the label column and each column group so that the cells,
// the unit, "vs base" and the column label all fit.
func (tt *textTable) measure() {
	t := tt.t
	for _, l := range tt.labels {
		tt.w0 = max(tt.w0, width(l))
	}
	tt.ws = make([]textWidths, len(t.Columns))
	for j, col := range t.Columns {
		wd := &tt.ws[j]
		for _, line := range tt.grid {
			tc := line[j]
			wd.center = max(wd.center, width(tc.center))
			wd.ci = max(wd.ci, width(tc.ci))
			wd.cnote = max(wd.cnote, width(tc.cnote))
			wd.delta = max(wd.delta, width(tc.delta))
			wd.test = max(wd.test, width(tc.test))
			wd.dnote = max(wd.dnote, width(tc.dnote))
		}
		if n := width(t.Unit) - wd.value(); n > 0 {
			wd.center += n
		}
		if j > 0 {
			if n := width(vsBase) - wd.deltaPart(); n > 0 {
				wd.test += n
			}
		}
		if extra := width(col.Label) - wd.content(j); extra > 0 {
			wd.left, wd.right = extra/2, extra-extra/2
		}
	}
}

// write writes the two header lines and one line per row, trimming
// trailing spaces.
func (tt *textTable) write(w io.Writer) {
	var b strings.Builder
	line := func() {
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		b.Reset()
	}
	tt.writeLabels(&b)
	line()
	tt.writeUnits(&b)
	line()
	for i, cells := range tt.grid {
		b.WriteString(padRight(tt.labels[i], tt.w0))
		for j, tc := range cells {
			tt.writeCell(&b, j, tc)
		}
		line()
	}
}

// writeLabels writes the header line of column labels.
func (tt *textTable) writeLabels(b *strings.Builder) {
	b.WriteString(strings.Repeat(" ", tt.w0))
	for j, col := range tt.t.Columns {
		wd := &tt.ws[j]
		b.WriteString(" │ ")
		b.WriteString(center(col.Label, wd.left+wd.content(j)+wd.right))
	}
	b.WriteString(" │")
}

// writeUnits writes the header line of units and "vs base".
func (tt *textTable) writeUnits(b *strings.Builder) {
	b.WriteString(strings.Repeat(" ", tt.w0))
	for j := range tt.t.Columns {
		wd := &tt.ws[j]
		b.WriteString(" │ ")
		b.WriteString(strings.Repeat(" ", wd.left))
		b.WriteString(center(tt.t.Unit, wd.value()))
		if j > 0 {
			b.WriteString("  ")
			b.WriteString(padRight(vsBase, wd.deltaPart()))
		}
		b.WriteString(strings.Repeat(" ", wd.right))
	}
	b.WriteString(" │")
}

// writeCell writes column group j of one body row.
func (tt *textTable) writeCell(b *strings.Builder, j int, tc textCell) {
	wd := &tt.ws[j]
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
