package table

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes p for a fixed-width font, tables in benchstat's
// layout when their columns have groups.
func WriteText(w io.Writer, p *Page) error {
	bw := bufio.NewWriter(w)
	started := false
	for _, l := range append(append([]string{p.Title}, p.Lines...), p.Details...) {
		if l != "" {
			fmt.Fprintln(bw, l)
			started = true
		}
	}
	for _, t := range p.Tables {
		if started {
			fmt.Fprintln(bw)
		}
		started = true
		t.writeText(bw)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	return bw.Flush()
}

// textCol is the layout of one column: the widths of its parts.
type textCol struct {
	text, interval, marks int // 0 if no cell has an interval or marks
	width                 int // the whole column, at least its name
}

func (t *Table) writeText(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintln(w, t.Title)
	}
	cols := t.measure()
	grouped := t.grouped()
	var b strings.Builder
	line := func() {
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		b.Reset()
	}
	if grouped {
		t.textGroups(&b, cols)
		line()
	}
	for j, c := range t.Columns {
		if t.cont(j) {
			continue
		}
		t.sep(&b, j, grouped, true)
		w, end := t.nameSpan(cols, j)
		switch {
		case end > j+1 || c.Align == Left:
			b.WriteString(padRight(c.Name, w))
		case grouped:
			b.WriteString(center(c.Name, w))
		default:
			b.WriteString(padLeft(c.Name, w))
		}
	}
	if grouped {
		b.WriteString(" │")
	}
	line()
	for _, r := range t.Rows {
		for j := range t.Columns {
			t.sep(&b, j, grouped, false)
			b.WriteString(t.textCell(r.cell(j), j, cols[j]))
		}
		line()
	}
	for i, n := range t.Footnotes {
		fmt.Fprintf(w, "%s %s\n", superscript(i+1), n)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// measure sizes each column to fit its cells, its name and its group's
// label (widening a span's last column).
func (t *Table) measure() []textCol {
	cols := make([]textCol, len(t.Columns))
	for j := range t.Columns {
		tc := &cols[j]
		for _, r := range t.Rows {
			cell := r.cell(j)
			tc.text = max(tc.text, width(cell.Text))
			if cell.Interval != "" {
				tc.interval = max(tc.interval, 3+width(cell.Interval))
			}
			if len(cell.Notes) > 0 {
				tc.marks = max(tc.marks, 1+width(marks(cell.Notes)))
			}
		}
		tc.width = tc.text + tc.interval + tc.marks
	}
	for j, c := range t.Columns {
		if w, end := t.nameSpan(cols, j); !t.cont(j) && width(c.Name) > w {
			cols[end-1].width += width(c.Name) - w
		}
	}
	for _, g := range t.groups() {
		if extra := width(t.Columns[g.start].Group) - t.textSpan(cols, g); extra > 0 {
			cols[g.end-1].width += extra
		}
	}
	return cols
}

// textSpan is the width of group g's columns and the space between them.
func (t *Table) textSpan(cols []textCol, g group) int {
	n := cols[g.start].width
	for j := g.start + 1; j < g.end; j++ {
		n += cols[j].width + 2
		if t.cont(j) {
			n--
		}
	}
	return n
}

// nameSpan returns the width of column j and the columns that continue
// it, and the end of that run.
func (t *Table) nameSpan(cols []textCol, j int) (w, end int) {
	w, end = cols[j].width, j+1
	for ; end < len(t.Columns) && t.cont(end); end++ {
		w += 1 + cols[end].width
	}
	return w, end
}

// A group is a run of columns [start, end) with one Group label.
type group struct{ start, end int }

func (t *Table) groups() []group {
	var gs []group
	for j, c := range t.Columns {
		if j > 0 && c.Group == t.Columns[j-1].Group {
			gs[len(gs)-1].end = j + 1
		} else {
			gs = append(gs, group{j, j + 1})
		}
	}
	return gs
}

// sep writes what goes before column j: "│" (headers) or spaces at a
// group's start, one space before a continuing column, else two.
func (t *Table) sep(b *strings.Builder, j int, grouped, header bool) {
	switch {
	case j == 0:
	case grouped && t.Columns[j].Group != t.Columns[j-1].Group:
		if header {
			b.WriteString(" │ ")
		} else {
			b.WriteString("   ")
		}
	case t.cont(j):
		b.WriteString(" ")
	default:
		b.WriteString("  ")
	}
}

// textGroups writes the header line of group labels.
func (t *Table) textGroups(b *strings.Builder, cols []textCol) {
	for _, g := range t.groups() {
		t.sep(b, g.start, true, true)
		b.WriteString(center(t.Columns[g.start].Group, t.textSpan(cols, g)))
	}
	b.WriteString(" │")
}

// textCell lays out a cell's text, "± interval" and marks, each in its
// part of the column.
func (t *Table) textCell(c Cell, j int, tc textCol) string {
	var b strings.Builder
	if t.Columns[j].Align == Right {
		b.WriteString(padLeft(c.Text, tc.text))
	} else {
		b.WriteString(padRight(c.Text, tc.text))
	}
	if tc.interval > 0 {
		if c.Interval != "" {
			b.WriteString(" ± " + padLeft(c.Interval, tc.interval-3))
		} else {
			b.WriteString(strings.Repeat(" ", tc.interval))
		}
	}
	if tc.marks > 0 {
		b.WriteString(" " + padRight(marks(c.Notes), tc.marks-1))
	}
	if t.Columns[j].Align == Right {
		return padLeft(b.String(), tc.width)
	}
	return padRight(b.String(), tc.width)
}

// marks formats footnote numbers as superscripts: "¹ ²".
func marks(notes []int) string {
	s := make([]string, len(notes))
	for i, n := range notes {
		s[i] = superscript(n)
	}
	return strings.Join(s, " ")
}

var superDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

func superscript(n int) string {
	s := []rune(fmt.Sprint(n))
	for i, r := range s {
		s[i] = superDigits[r-'0']
	}
	return string(s)
}

func width(s string) int { return utf8.RuneCountInString(s) }

func padLeft(s string, n int) string {
	return strings.Repeat(" ", max(0, n-width(s))) + s
}

func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-width(s)))
}

func center(s string, n int) string {
	d := max(0, n-width(s))
	return strings.Repeat(" ", d/2) + s + strings.Repeat(" ", d-d/2)
}
