package compare

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/perf/benchmath"
)

// What text and Markdown leave out (Hidden tables, intervals that cannot
// be given, benchmath's sample-size warnings) and the one line saying so.

// shownTables returns the tables the renderers show.
func (r *Tables) shownTables() []*Table {
	var out []*Table
	for _, t := range r.Tables {
		if t.Hidden == "" {
			out = append(out, t)
		}
	}
	return out
}

// benchmath's warnings stated once after the tables, not on every cell.
var (
	ciWarning   = regexp.MustCompile(`^need >= (\d+) samples for confidence interval at level ([0-9.]+)$`)
	testWarning = regexp.MustCompile(`^need >= (\d+) samples to detect a difference at alpha level ([0-9.]+)$`)
)

// allEqual is benchmath's warning when every sample of a comparison is
// equal: the table already shows it (± 0%).
const allEqual = "all samples are equal"

// cellNotes returns the footnotes of a cell: its warnings less those
// stated once for the report, and why it has no interval if it has none.
func cellNotes(c *Cell) []string {
	notes := deltaNotes(c.Warnings)
	for _, m := range c.Warnings {
		if ciWarning.MatchString(m) {
			return append(notes, reportNote(m))
		}
	}
	if c.Summary.PctRangeString() == "?" { // "∞" (too few samples) is ciWarning's
		notes = append(notes, "no ± interval: the confidence interval reaches 0, or the median is 0 and the interval is not: no percentage of the median expresses it")
	}
	return notes
}

// deltaNotes returns the warnings a change footnotes: those not stated
// once for the report.
func deltaNotes(msgs []string) []string {
	var out []string
	for _, m := range msgs {
		if m != allEqual && !ciWarning.MatchString(m) && !testWarning.MatchString(m) {
			out = append(out, m)
		}
	}
	return out
}

// reportNote rewrites a warning for the notes after the tables; ""
// drops it.
func reportNote(m string) string {
	if m == allEqual {
		return ""
	}
	if s := ciWarning.FindStringSubmatch(m); s != nil {
		return fmt.Sprintf("no ± interval with fewer than %s samples: a confidence interval at level %s needs %s (measure with --count %s or more)", s[1], s[2], s[1], s[1])
	}
	if s := testWarning.FindStringSubmatch(m); s != nil {
		return fmt.Sprintf("~ where a cell has fewer than %s samples: the U test cannot reach p < %s with fewer (measure with --count %s or more)", s[1], s[2], s[1])
	}
	return m
}

// endNotes returns the notes after the tables: the legend, the warnings
// not shown as footnotes, what is hidden and, if anything was tested,
// CorrectionNote.
func (r *Tables) endNotes(shown map[string]bool) []string {
	notes := []string{r.legend()}
	seen := make(map[string]bool)
	for _, w := range r.Warnings {
		if n := reportNote(w); n != "" && !shown[w] && !ciWarning.MatchString(w) && !seen[n] {
			seen[n] = true
			notes = append(notes, n)
		}
	}
	var hidden []string
	for _, t := range r.Tables {
		if t.Hidden != "" {
			hidden = append(hidden, t.Unit+" ("+t.Hidden+")")
		}
	}
	if len(hidden) > 0 {
		notes = append(notes, "not shown: "+strings.Join(hidden, "; "))
	}
	if r.tested() {
		notes = append(notes, CorrectionNote)
	}
	return notes
}

// CorrectionNote says why certbench gate can call unchanged a change
// compare shows.
const CorrectionNote = "each change is tested on its own (no correction for multiple comparisons, as benchstat); " +
	"certbench gate applies Holm's correction per metric, so it can call unchanged a change shown here"

// tested reports whether a shown change was decided by a test.
func (r *Tables) tested() bool {
	for _, t := range r.shownTables() {
		for _, row := range t.Rows {
			for _, c := range row.Cells {
				if c != nil && c.Delta != nil && t.Assumption != benchmath.AssumeExact {
					return true
				}
			}
		}
	}
	return false
}
