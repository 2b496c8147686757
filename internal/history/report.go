package history

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/certbench/certbench/results"
)

// A Report is what certbench history changes prints: a history's change
// points and, from a commit on, its drift.
type Report struct {
	Store   string        `json:"history"`
	Commits int           `json:"commits"`
	Series  int           `json:"series"`
	Alpha   float64       `json:"alpha"`
	Changes []ChangePoint `json:"changes"`
	Creep   []Drift       `json:"creep,omitempty"`
}

// NewReport finds the change points of h and, if since is not "", the
// drift of every series from that commit on.
func NewReport(h *History, store, since string, opt Options) (*Report, error) {
	r := &Report{Store: store, Commits: len(h.Commits), Series: len(h.Keys), Alpha: opt.alpha(), Changes: Changes(h, opt)}
	if r.Changes == nil {
		r.Changes = []ChangePoint{}
	}
	if since != "" {
		var err error
		if r.Creep, err = Creep(h, since, r.Changes, opt); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// short abbreviates a commit hash.
func short(c string) string { return c[:min(len(c), 10)] }

// relative formats a shift as "+0.05% [+0.04%, +0.06%]", or in the unit
// when its level before was 0.
func relative(s Shift, unit string) string {
	if d, lo, hi, ok := s.Relative(); ok {
		// Three decimals: near-exact series step by hundredths of a percent.
		return fmt.Sprintf("%+.3f%% [%+.3f%%, %+.3f%%]", 100*d, 100*lo, 100*hi)
	}
	return fmt.Sprintf("%s [%s, %s]", results.FormatSigned(s.Delta, unit), results.FormatSigned(s.Low, unit), results.FormatSigned(s.High, unit))
}

// rows returns the report's tables: a header row, then a row per
// change point; and the same for the drifts that are significant.
func (r *Report) rows() (changes, creep [][]string) {
	changes = [][]string{{"commit", "benchmark", "unit", "change [95% CI]", "before → after", "around", "note"}}
	for _, c := range r.Changes {
		note := ""
		if c.Worse {
			note = "worse"
		}
		if c.Machine != "" {
			note = strings.TrimSpace(note + " machine: " + c.Machine)
		}
		b, a := results.FormatPair(c.Before, c.After, c.Unit)
		changes = append(changes, []string{short(c.Commit), c.Benchmark, c.Unit, relative(c.Shift, c.Unit),
			b + " → " + a, short(c.From) + ".." + short(c.Previous) + " | " + short(c.Commit) + ".." + short(c.To), note})
	}
	creep = [][]string{{"since", "benchmark", "unit", "drift [95% CI]", "then → now", "change points", "note"}}
	for _, d := range r.Creep {
		if !d.Significant {
			continue
		}
		note := ""
		if d.Worse {
			note = "worse"
		}
		b, a := results.FormatPair(d.Before, d.After, d.Unit)
		creep = append(creep, []string{short(d.Since), d.Benchmark, d.Unit, relative(d.Shift, d.Unit), b + " → " + a, fmt.Sprint(d.Changes), note})
	}
	return changes, creep
}

// summary is the report's first line.
func (r *Report) summary(drifted int) string {
	s := fmt.Sprintf("%d change points in %d series over %d commits (false discovery rate %g)", len(r.Changes), r.Series, r.Commits, r.Alpha)
	if len(r.Creep) > 0 {
		s += fmt.Sprintf("; %d series drifted since %s", drifted, short(r.Creep[0].Since))
	}
	return s
}

// WriteText writes the report as aligned text.
func (r *Report) WriteText(w io.Writer) error { return r.write(w, false) }

// WriteMarkdown writes the report as Markdown tables.
func (r *Report) WriteMarkdown(w io.Writer) error { return r.write(w, true) }

func (r *Report) write(w io.Writer, md bool) error {
	changes, creep := r.rows()
	if md {
		fmt.Fprintf(w, "**History %s**: %s\n", results.CodeSpan(r.Store), r.summary(len(creep)-1))
	} else {
		fmt.Fprintf(w, "%s: %s\n", r.Store, r.summary(len(creep)-1))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range [][][]string{changes, creep} {
		if len(t) == 1 {
			continue
		}
		fmt.Fprintln(tw)
		for j, row := range t {
			if !md {
				fmt.Fprintln(tw, strings.Join(row, "\t"))
				continue
			}
			for k := range row {
				row[k] = results.EscapeMarkdown(row[k])
			}
			fmt.Fprintf(tw, "| %s |\n", strings.Join(row, " | "))
			if j == 0 {
				fmt.Fprintf(tw, "|%s\n", strings.Repeat("---|", len(row)))
			}
		}
	}
	return tw.Flush()
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
