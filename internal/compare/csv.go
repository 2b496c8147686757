package compare

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"
)

// csvHeader is the header row written by WriteCSV.
var csvHeader = []string{
	"unit", "assumption", "row", "column", "n", "center", "lo", "hi", "ci",
	"baseline", "vs_base", "ratio", "p", "significant", "warnings",
}

// WriteCSV writes r as CSV in long form, one record per table cell, for
// spreadsheets and scripts. The header is
//
//	unit,assumption,row,column,n,center,lo,hi,ci,baseline,vs_base,ratio,p,significant,warnings
//
// where center, lo and hi are raw values in the (tidied) unit, such as
// seconds for sec/op, ci is the formatted interval ("2%"), baseline is the
// label of the column compared with (empty in the baseline column),
// vs_base the formatted delta ("-28.66%" or "~"), ratio the raw
// center/baseline ratio, p the p-value, significant "true" or "false",
// and warnings the cell's warnings joined by "; ". Each table's geomean
// follows its rows with row "geomean" and only center, baseline, vs_base,
// ratio and warnings set. Infinite values are written as "+Inf"/"-Inf".
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, t := range r.Tables {
		assumption := t.Assumption.SummaryLabel()
		base := t.Columns[0].Label
		for _, row := range t.Rows {
			for j, c := range row.Cells {
				if c == nil {
					continue
				}
				_, ci := t.cellTexts(c)
				rec := []string{
					t.Unit, assumption, row.Label, t.Columns[j].Label,
					strconv.Itoa(c.N()), csvFloat(c.Center()),
					csvFloat(c.Summary.Lo), csvFloat(c.Summary.Hi), ci,
					"", "", "", "", "", "",
				}
				warn := c.Warnings
				if d := c.Delta; d != nil {
					rec[9], rec[10], rec[11] = base, d.String(), csvFloat(d.Ratio)
					rec[12], rec[13] = csvFloat(d.Comparison.P), strconv.FormatBool(d.Significant)
					warn = append(warn[:len(warn):len(warn)], d.Warnings...)
				}
				rec[14] = strings.Join(warn, "; ")
				cw.Write(rec)
			}
		}
		for j, g := range t.Geomean {
			rec := make([]string, len(csvHeader))
			rec[0], rec[1], rec[2], rec[3] = t.Unit, assumption, GeomeanLabel, t.Columns[j].Label
			rec[5] = csvFloat(g.Center)
			if j > 0 {
				_, ratio := t.geoTexts(j, g)
				rec[9], rec[10], rec[11] = base, ratio, csvFloat(g.Ratio)
			}
			rec[14] = strings.Join(g.Warnings, "; ")
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvFloat(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
