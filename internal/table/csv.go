package table

import (
	"encoding/csv"
	"io"
	"slices"
	"strings"
)

// WriteCSV writes p's tables as CSV, for spreadsheets: each table starts
// with a header record, and every record's first field is the table's
// title. A column with intervals is followed by a "± <column>" field, and
// a table with footnotes ends each record with a "notes" field holding
// the texts of the row's footnotes, joined by "; "; the table's notes
// follow its rows, one record each ("note: ..."). Tables differ in
// their number of fields (read with csv.Reader.FieldsPerRecord = -1).
func WriteCSV(w io.Writer, p *Page) error {
	cw := csv.NewWriter(w)
	for _, t := range p.Tables {
		hasCI := make([]bool, len(t.Columns))
		for _, r := range t.Rows {
			for j := range t.Columns {
				hasCI[j] = hasCI[j] || r.cell(j).Interval != ""
			}
		}
		head := []string{"table"}
		for j, c := range t.Columns {
			name := strings.TrimSpace(c.Group + " " + c.Name)
			head = append(head, name)
			if hasCI[j] {
				head = append(head, "± "+name)
			}
		}
		if len(t.Footnotes) > 0 {
			head = append(head, "notes")
		}
		cw.Write(head)
		for _, r := range t.Rows {
			rec := []string{t.Title}
			var notes []string
			for j := range t.Columns {
				c := r.cell(j)
				rec = append(rec, c.Text)
				if hasCI[j] {
					rec = append(rec, c.Interval)
				}
				for _, n := range c.Notes {
					if !slices.Contains(notes, t.Footnotes[n-1]) {
						notes = append(notes, t.Footnotes[n-1])
					}
				}
			}
			if len(t.Footnotes) > 0 {
				rec = append(rec, strings.Join(notes, "; "))
			}
			cw.Write(rec)
		}
		for _, n := range t.Notes {
			cw.Write([]string{t.Title, "note: " + n})
		}
	}
	cw.Flush()
	return cw.Error()
}
