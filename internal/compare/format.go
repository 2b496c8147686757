package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/certbench/certbench/results"
)

// This file holds the formatting shared by the renderers.

// GeomeanLabel is the row label of the geomean summary row.
const GeomeanLabel = "geomean"

// cellTexts returns the formatted center and confidence interval of c
// ("190 ms", "1%"). Each center is scaled on its own (results.Format), so
// that it keeps three significant digits however far the centers of its
// row are apart.
func (t *Table) cellTexts(c *Cell) (center, ci string) {
	return results.Format(c.Center(), t.Unit), c.Summary.PctRangeString()
}

// geoTexts returns the formatted geomean center and ratio of g. Undefined
// values format as "" (center) and "?" (ratio); the baseline column has no
// ratio ("").
func (t *Table) geoTexts(j int, g Geomean) (center, ratio string) {
	if !math.IsNaN(g.Center) {
		center = results.Format(g.Center, t.Unit)
	}
	if j > 0 {
		ratio = results.FormatPercent((g.Ratio - 1) * 100)
	}
	return center, ratio
}

// testText returns the test description of d, "p=0.002 n=6" or "n=6".
func testText(d *Delta) string { return d.Comparison.String() }

// footnotes numbers warning messages in the order they are referenced.
type footnotes struct {
	list []string
	idx  map[string]int
}

// ref returns the superscript references for msgs, space separated,
// assigning new numbers to new messages.
func (f *footnotes) ref(msgs []string) string {
	if f.idx == nil {
		f.idx = make(map[string]int)
	}
	var refs []string
	for _, m := range msgs {
		i, ok := f.idx[m]
		if !ok {
			f.list = append(f.list, m)
			i = len(f.list)
			f.idx[m] = i
		}
		refs = append(refs, superscript(i))
	}
	return strings.Join(refs, " ")
}

var superDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

func superscript(n int) string {
	s := []rune(fmt.Sprint(n))
	for i, r := range s {
		s[i] = superDigits[r-'0']
	}
	return string(s)
}

// RowHeader names the row fields of t for a table header, such as
// "scenario", "scenario/store" or, for rows by .name or .fullname,
// "benchmark". It is "" if t has no rows.
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

// configLine formats a configuration key and its values; several values
// are separated by " | ".
func configLine(c Config) string {
	return c.Key + ": " + strings.Join(c.Values, " | ")
}

// unreferenced returns the report warnings that tables do not show as
// footnotes.
func (r *Report) unreferenced(shown map[string]bool) []string {
	var out []string
	for _, w := range r.Warnings {
		if !shown[w] {
			out = append(out, w)
		}
	}
	return out
}
