package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// GeomeanLabel is the row label of the geomean summary row.
const GeomeanLabel = "geomean"

// vsBase heads the delta column of each column after the baseline.
const vsBase = "vs base"

// Page returns r for package table to render: the configuration, one
// table per shown unit (a column group per Column: center ± CI, then the
// change vs base and its test), a geomean row, footnotes and notes.
func (r *Tables) Page() *table.Page {
	p := &table.Page{}
	for _, c := range r.Config {
		p.Details = append(p.Details, c.Key+": "+strings.Join(c.Values, " | "))
	}
	shown := make(map[string]bool)
	// Too few samples for an interval in every cell: said once, not
	// footnoted in every table.
	everyCell := r.everyCellShort()
	bytes := r.Table(results.UnitBytes)
	ran := func(row string, j int) bool { // a left-out store has no B/op there either
		if bytes == nil {
			return true
		}
		i := slices.IndexFunc(bytes.Rows, func(r *Row) bool { return r.Label == row })
		return i >= 0 && j < len(bytes.Rows[i].Cells) && bytes.Rows[i].Cells[j] != nil
	}
	for _, t := range r.shownTables() {
		tt := t.table(everyCell, ran)
		for _, n := range tt.Footnotes {
			shown[n] = true
		}
		p.Tables = append(p.Tables, tt)
	}
	p.Notes = r.endNotes(shown)
	if everyCell != "" {
		p.Notes = append(p.Notes[:1], append([]string{"every cell: " + everyCell}, p.Notes[1:]...)...)
	}
	return p
}

// everyCellShort returns the note of too few samples for a confidence
// interval if every cell of every shown table has it, else "".
func (r *Tables) everyCellShort() string {
	note := ""
	for _, t := range r.shownTables() {
		for _, row := range t.Rows {
			for _, c := range row.Cells {
				if c == nil {
					continue
				}
				i := slices.IndexFunc(c.Warnings, ciWarning.MatchString)
				if i < 0 || (note != "" && reportNote(c.Warnings[i]) != note) {
					return ""
				}
				note = reportNote(c.Warnings[i])
			}
		}
	}
	return note
}

// table is t as a table value; a cell's footnote of too few samples is
// left out where every cell has it (shortNote); a cell of a unit that may
// be absent (results.Absent) says why only where column j ran the row
// (ran).
func (t *Table) table(shortNote string, ran func(row string, j int) bool) *table.Table {
	cols := []table.Column{{Name: t.RowHeader()}}
	for j, c := range t.Columns {
		cols = append(cols, table.Column{Group: c.Label, Name: t.Unit, Align: table.Right})
		if j > 0 {
			cols = append(cols, table.Column{Group: c.Label, Name: vsBase, Align: table.Right}, table.Column{Group: c.Label})
		}
	}
	tt := table.New(t.Unit, cols...)
	for _, row := range t.Rows {
		cells := []table.Cell{{Text: row.Label}}
		texts := t.rowTexts(row)
		for j, c := range row.Cells {
			cell, delta, test := table.Cell{}, table.Cell{}, table.Cell{}
			if why := results.Absent(t.Unit); c == nil && why != "" && ran(row.Label, j) {
				cell = tt.Note(table.Cell{Text: "-"}, why)
			}
			if c != nil {
				notes := slices.DeleteFunc(cellNotes(c), func(n string) bool { return n == shortNote })
				cell = tt.Note(table.Cell{Text: texts[j], Interval: ciText(c)}, notes...)
				if d := c.Delta; d != nil {
					delta = tt.Note(table.Cell{Text: d.String(), Class: t.class(d)}, deltaNotes(d.Warnings)...)
					test.Text = "(" + d.Comparison.String() + ")"
				}
			}
			cells = append(cells, cell)
			if j > 0 {
				cells = append(cells, delta, test)
			}
		}
		tt.Add(cells...)
	}
	if t.Geomean != nil {
		cells := []table.Cell{{Text: GeomeanLabel}}
		for j, g := range t.Geomean {
			center := table.Cell{Text: results.Format(g.Center, t.Unit)}
			if j == 0 {
				cells = append(cells, tt.Note(center, g.Warnings...))
				continue
			}
			ratio := tt.Note(table.Cell{Text: results.FormatPercent((g.Ratio - 1) * 100)}, g.Warnings...)
			cells = append(cells, center, ratio, table.Cell{})
		}
		tt.Add(cells...).Summary = true
	} else if t.NoGeomean != "" {
		tt.Notes = append(tt.Notes, "no geomean row: "+t.NoGeomean)
	}
	return tt
}

// rowTexts formats row's centers, each paired with the baseline's
// (results.FormatPair); the baseline takes its most precise pairing.
func (t *Table) rowTexts(row *Row) []string {
	texts := make([]string, len(row.Cells))
	base := row.Cells[0]
	for j, c := range row.Cells {
		switch {
		case c == nil:
		case base == nil || j == 0:
			texts[j] = results.Format(c.Center(), t.Unit)
		default:
			b, h := results.FormatPair(base.Center(), c.Center(), t.Unit)
			texts[j] = h
			if len(b) > len(texts[0]) {
				texts[0] = b
			}
		}
	}
	return texts
}

// class says whether a significant change is for the better or worse.
func (t *Table) class(d *Delta) table.Class {
	switch {
	case !d.Significant || d.Base == d.Value || t.Better == 0:
		return table.Plain
	case (d.Value < d.Base) == (t.Better < 0):
		return table.Better
	}
	return table.Worse
}

// ciText returns a cell's interval ("1%"), or "" if unbounded or around
// a median of 0.
func ciText(c *Cell) string {
	switch ci := c.Summary.PctRangeString(); ci {
	case "∞", "?":
		return ""
	default:
		return ci
	}
}

// percent formats a level such as 0.95 as "95%".
func percent(level float64) string {
	return strconv.FormatFloat(math.Round(level*1e6)/1e4, 'f', -1, 64) + "%"
}

// legend says what the cells and changes are.
func (r *Tables) legend() string {
	s := fmt.Sprintf("cells: median ± %s confidence interval (exact units: the value)", percent(r.Options.Confidence))
	if len(r.Columns) > 1 {
		s += fmt.Sprintf("; changes vs %s: shown if significant (Mann-Whitney U test, p < %v; exact units: any difference), ~ otherwise",
			r.Columns[0].Label, r.Options.Alpha)
	}
	return s
}

// RowHeader names t's row fields ("scenario/store", "benchmark" for
// .name and .fullname); "" if t has no rows.
func (t *Table) RowHeader() string {
	if len(t.Rows) == 0 {
		return ""
	}
	var names []string
	for _, f := range t.Rows[0].Key.Projection().FlattenedFields() {
		switch f.Name {
		case ".name", ".fullname":
			names = append(names, "benchmark")
		default:
			names = append(names, strings.TrimLeft(f.Name, "./"))
		}
	}
	return strings.Join(names, "/")
}
