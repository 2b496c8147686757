package conformance

// Rendering a Comparison: text, Markdown and JSON.

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/results"
)

// Summary is one line saying what ran, what ended it and how many changes were found.
func (r *Comparison) Summary() string {
	s := fmt.Sprintf("compare %s -> %s, seed %#x, %d runs a case, %s configurations in %v: %s; %s",
		r.Base, r.Head, r.Seed, r.Runs, results.FormatInt(r.Configs), r.Elapsed.Round(time.Millisecond), r.extent(), r.found())
	if r.Unconfirmed > 0 {
		s += fmt.Sprintf(" (%d differing answers not confirmed by replays)", r.Unconfirmed)
	}
	return s
}

// extent says how far the search got and which bound ended it: "stopped
// at its 1m time limit after 4 of 200 iterations, 1,426 lookups".
func (r *Comparison) extent() string {
	its := results.FormatInt(r.Iterations)
	if r.Planned > 0 && r.Iterations < r.Planned {
		its += " of " + results.FormatInt(r.Planned)
	}
	s := fmt.Sprintf("%s iterations, %s lookups", its, results.FormatInt(r.Lookups))
	switch r.Stopped {
	case StopTime:
		d := r.TimeLimit.String()
		if strings.HasSuffix(d, "m0s") {
			d = d[:len(d)-2] // "1m", not "1m0s"
		}
		return fmt.Sprintf("stopped at its %s time limit after %s", d, s)
	case StopIterations:
		return "stopped at its iteration limit after " + s
	}
	return s
}

func (r *Comparison) found() string {
	n := len(r.Changes())
	switch {
	case n <= 1:
		return [...]string{"no behaviour change", "1 behaviour change"}[n]
	case len(r.Causes) == 1:
		return fmt.Sprintf("%d behaviour changes of 1 cause", n)
	}
	return fmt.Sprintf("%d behaviour changes of %d causes", n, len(r.Causes))
}

// Summary says the change in one line, "base served X, head serves Y".
func (ch *Change) Summary() string { return ch.line("base", "head") }

func (ch *Change) line(base, head string) string {
	c := &ch.Case
	if ch.Via == viaUpdate {
		k := slices.Concat(ch.Base, ch.Head, []Answer{{}})[0].Config // 0 without answers
		return fmt.Sprintf("Update of configuration %d of %d: %s %s, %s %s", k, len(c.Configs),
			base, updateText(ch.Base, ch.Runs, "accepted", "rejected"), head, updateText(ch.Head, ch.Runs, "accepts", "rejects"))
	}
	answers := func(as []Answer) string {
		return orVaries(mapSlice(as, func(a Answer) string { return a.describe(c) }), ch.Runs)
	}
	on := fmt.Sprintf("%s(%q, %q) on the generation", ch.Via, c.Store, c.SNI)
	if ch.Via == viaCurrent && c.Held < len(c.Configs)-1 {
		on = fmt.Sprintf("Certificate(%q, %q) on the held generation", c.Store, c.SNI)
	}
	return fmt.Sprintf("%s of configuration %d of %d: %s served %s, %s serves %s",
		on, c.Held, len(c.Configs), base, answers(ch.Base), head, answers(ch.Head))
}

func updateText(as []Answer, runs int, accepted, rejected string) string {
	return orVaries(mapSlice(as, func(a Answer) string {
		if a.Kind == AnswerError {
			return rejected + " it (" + errText(a.Err) + ")"
		}
		return accepted + " it"
	}), runs)
}

func orVaries(ws []string, runs int) string {
	s := strings.Join(ws, " or ")
	if len(ws) > 1 {
		s += fmt.Sprintf(" (varies over %d runs)", runs)
	}
	return s
}

// Report describes the change, with the case as a Go literal for Case.Compare.
func (ch *Change) Report() string { return ch.report("base", "head") }

func (ch *Change) report(base, head string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (seen %d times)\n%s\n", ch.Kind, ch.Count, ch.line(base, head))
	if ch.Shrunk {
		fmt.Fprintf(&b, "shrunk from %d to %d certificates; ", ch.Original, countCerts(&ch.Case))
	}
	if ch.Note != "" {
		fmt.Fprintf(&b, "%s; ", ch.Note)
	}
	fmt.Fprintf(&b, "found by seed %#x, iteration %d; replay with:\n%s.Compare(base, head, %d)\n", ch.Seed, ch.Iteration, ch.Case.GoString(), ch.Runs)
	return b.String()
}

// WriteText writes the summary and every cause, with its changes.
func (r *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Summary() + "\n")
	for i, c := range r.Causes {
		fmt.Fprintf(&b, "\ncause %d of %d: %s (seen %d times)\n", i+1, len(r.Causes), c.Cause, c.Count())
		for j, ch := range c.Changes {
			report := strings.TrimSuffix(ch.report(r.Base, r.Head), "\n")
			fmt.Fprintf(&b, "    change %d.%d: %s\n", i+1, j+1, strings.ReplaceAll(report, "\n", "\n        "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the summary, a row per cause and per change under it, and each case collapsed.
func (r *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**Behaviour %s -> %s**: %s (%s, seed %#x).\n", mdCode(r.Base), mdCode(r.Head), r.found(), r.extent(), r.Seed)
	if r.Differs() {
		b.WriteString("\n| # | cause, then each kind of change | what | seen |\n|--:|---|---|--:|\n")
	}
	var cases strings.Builder
	for i, c := range r.Causes {
		fmt.Fprintf(&b, "| %d | **%s** | | %d |\n", i+1, mdCell(c.Cause), c.Count())
		for j, ch := range c.Changes {
			fmt.Fprintf(&b, "| %d.%d | %s | %s | %d |\n", i+1, j+1, mdCell(ch.Kind), mdCell(ch.line(r.Base, r.Head)), ch.Count)
			fmt.Fprintf(&cases, "\n<details><summary>change %d.%d: the case</summary>\n\n```go\n%s.Compare(base, head, %d)\n```\n\n</details>\n", i+1, j+1, ch.Case.GoString(), ch.Runs)
		}
	}
	_, err := io.WriteString(w, b.String()+cases.String())
	return err
}

func mdCell(s string) string {
	return results.EscapeMarkdown(strings.ReplaceAll(s, "\n", " "))
}

func mdCode(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

// WriteJSON writes the comparison as JSON, with each change's summary.
func (r *Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// MarshalJSON writes the change's fields and its summary.
func (ch *Change) MarshalJSON() ([]byte, error) {
	type plain Change
	return json.Marshal(struct {
		*plain
		Summary string `json:"summary"`
	}{(*plain)(ch), ch.Summary()})
}
