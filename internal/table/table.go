// Package table is the one table model of certbench's outputs: an
// analysis formats each figure once as a Cell and hands a Page of Tables
// to the renderers (text as benchstat aligns it, Markdown, CSV, HTML), so
// two outputs of one results file cannot disagree.
package table

import "slices"

// Align is a column's alignment.
type Align uint8

// The alignments: Left for labels, Right for numbers.
const (
	Left Align = iota
	Right
)

// Class says what a cell's value means; renderers mark it (Markdown:
// bold; HTML: the class attribute).
type Class string

// The classes.
const (
	Plain     Class = ""
	Better    Class = "better"    // a significant change for the better
	Worse     Class = "worse"     // a significant change for the worse
	Regressed Class = "regressed" // a change a gate fails on
)

// A Column is one column of a Table.
type Column struct {
	// Group labels a run of consecutive columns, as benchstat labels a
	// file's value and delta columns.
	Group string `json:"group,omitempty"`
	// Name heads the column; a column with no Name and its
	// predecessor's Group continues that column.
	Name  string `json:"name"`
	Align Align  `json:"align"`
}

// A Cell is one formatted figure or label.
type Cell struct {
	// Text is the value as shown: "190 ms", "-28.66%", "~".
	Text string `json:"text"`
	// Interval is shown as "± Interval"; "" for none.
	Interval string `json:"interval,omitempty"`
	// Notes are the numbers of the table's Footnotes the cell refers to.
	Notes []int `json:"notes,omitempty"`
	Class Class `json:"class,omitempty"`
}

// A Row is one row of a Table, a cell per column (missing cells empty).
type Row struct {
	Cells []Cell `json:"cells"`
	// Summary marks a row that summarizes the others (a geomean).
	Summary bool `json:"summary,omitempty"`
}

// A Table is a titled grid of cells with its footnotes and notes.
type Table struct {
	Title string `json:"title,omitempty"`
	// ID, if set, is the HTML table's id.
	ID      string   `json:"id,omitempty"`
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
	// Footnotes are numbered from 1 (Footnote); Notes follow, unnumbered.
	Footnotes []string `json:"footnotes,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

// New returns an empty table with the given title and columns.
func New(title string, cols ...Column) *Table {
	return &Table{Title: title, Columns: cols}
}

// Add appends a row of cells and returns it, for setting Summary.
func (t *Table) Add(cells ...Cell) *Row {
	t.Rows = append(t.Rows, Row{Cells: cells})
	return &t.Rows[len(t.Rows)-1]
}

// Footnote returns the number of footnote text, adding it if new.
func (t *Table) Footnote(text string) int {
	if i := slices.Index(t.Footnotes, text); i >= 0 {
		return i + 1
	}
	t.Footnotes = append(t.Footnotes, text)
	return len(t.Footnotes)
}

// Note returns c with footnotes for texts added to its Notes.
func (t *Table) Note(c Cell, texts ...string) Cell {
	for _, s := range texts {
		c.Notes = append(c.Notes, t.Footnote(s))
	}
	return c
}

// cont reports whether column j continues the one before it: no Name,
// the same Group.
func (t *Table) cont(j int) bool {
	return j > 0 && t.Columns[j].Name == "" && t.Columns[j].Group == t.Columns[j-1].Group
}

// grouped reports whether any column has a Group.
func (t *Table) grouped() bool {
	return slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Group != "" })
}

// cell returns row r's cell in column j (empty if the row is short).
func (r Row) cell(j int) Cell {
	if j < len(r.Cells) {
		return r.Cells[j]
	}
	return Cell{}
}

// A Page is what an analysis hands to a renderer.
type Page struct {
	Title string `json:"title,omitempty"`
	// Details are lines of context (configuration) that Markdown and
	// HTML fold away.
	Details []string `json:"details,omitempty"`
	// Lines are short paragraphs before the tables.
	Lines  []string `json:"lines,omitempty"`
	Tables []*Table `json:"tables"`
	// Notes apply to the page as a whole.
	Notes []string `json:"notes,omitempty"`
}
