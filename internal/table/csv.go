package table

import (
	"encoding/csv"
	"io"
	"slices"
	"strings"
)

// WriteCSV writes p's tables as CSV: a header record per table, the
// title first in every record, a "± <column>" field after a column with
// intervals, a "notes" field of the row's footnotes. Tables differ in
// their number of fields.
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
