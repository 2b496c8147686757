package conformance

// Rendering a Comparison: text, Markdown and JSON.

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Summary is one line saying what ran and how many changes were found.
func (r *Comparison) Summary() string {
	its := fmt.Sprint(r.Iterations)
	if r.Planned > 0 && r.Iterations < r.Planned {
		its += fmt.Sprintf(" (of %d: time limit)", r.Planned)
	}
	s := fmt.Sprintf("compare %s -> %s, seed %#x: %s iterations of %d runs each, %d configurations, %d lookups in %v",
		r.Base, r.Head, r.Seed, its, r.Runs, r.Configs, r.Lookups, r.Elapsed.Round(time.Millisecond))
	switch n := len(r.Changes); n {
	case 0:
		s += "; no behaviour change"
	case 1:
		s += "; 1 behaviour change"
	default:
		s += fmt.Sprintf("; %d behaviour changes", n)
	}
	if r.Unconfirmed > 0 {
		s += fmt.Sprintf(" (%d differing answers not confirmed by replays)", r.Unconfirmed)
	}
	return s
}

// Summary says the change in one line, "base served X, head serves Y".
func (ch *Change) Summary() string { return ch.line("base", "head") }

// line is Summary with the stores' names.
func (ch *Change) line(base, head string) string {
	c := &ch.Case
	if ch.Via == viaUpdate {
		k := updateConfig(ch.Base, ch.Head)
		return fmt.Sprintf("Update of configuration %d of %d: %s %s, %s %s", k, len(c.Configs),
			base, updateText(ch.Base, "it", ch.Runs, true), head, updateText(ch.Head, "it", ch.Runs, false))
	}
	return fmt.Sprintf("%s(%q, %q) on the generation of configuration %d of %d: %s served %s, %s serves %s",
		ch.Via, c.Store, c.SNI, c.Held, len(c.Configs), base, answersText(c, ch.Base, ch.Runs), head, answersText(c, ch.Head, ch.Runs))
}

func updateConfig(as ...[]Answer) int {
	for _, s := range as {
		for _, a := range s {
			return a.Config
		}
	}
	return 0
}

func updateText(as []Answer, it string, runs int, past bool) string {
	var ws []string
	for _, a := range as {
		switch {
		case a.Kind != AnswerError && past:
			ws = append(ws, "accepted "+it)
		case a.Kind != AnswerError:
			ws = append(ws, "accepts "+it)
		case past:
			ws = append(ws, "rejected "+it+" ("+errText(a.Err)+")")
		default:
			ws = append(ws, "rejects "+it+" ("+errText(a.Err)+")")
		}
	}
	return orVaries(ws, runs)
}

func answersText(c *Case, as []Answer, runs int) string {
	var ws []string
	for _, a := range as {
		ws = append(ws, a.describe(c))
	}
	return orVaries(ws, runs)
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
	fmt.Fprintf(&b, "found by seed %#x, iteration %d; replay with:\n", ch.Seed, ch.Iteration)
	fmt.Fprintf(&b, "%s.Compare(base, head, %d)\n", ch.Case.GoString(), ch.Runs)
	return b.String()
}

// WriteText writes the summary and every change.
func (r *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Summary() + "\n")
	for i, ch := range r.Changes {
		fmt.Fprintf(&b, "\nchange %d of %d: %s", i+1, len(r.Changes), indentAfterFirst(ch.report(r.Base, r.Head), "    "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func indentAfterFirst(s, indent string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.ReplaceAll(s, "\n", "\n"+indent) + "\n"
}

// WriteMarkdown writes the summary and a row per change, each case collapsed.
func (r *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**Behaviour %s -> %s**: ", mdCode(r.Base), mdCode(r.Head))
	if len(r.Changes) == 0 {
		fmt.Fprintf(&b, "no change (%d iterations, %d lookups, seed %#x).\n", r.Iterations, r.Lookups, r.Seed)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "%d change(s) (%d iterations, %d lookups, seed %#x).\n\n", len(r.Changes), r.Iterations, r.Lookups, r.Seed)
	b.WriteString("| # | change | what | seen |\n|--:|---|---|--:|\n")
	for i, ch := range r.Changes {
		fmt.Fprintf(&b, "| %d | %s | %s | %d |\n", i+1, mdCell(ch.Kind), mdCell(ch.line(r.Base, r.Head)), ch.Count)
	}
	for i, ch := range r.Changes {
		fmt.Fprintf(&b, "\n<details><summary>change %d: the case</summary>\n\n```go\n%s.Compare(base, head, %d)\n```\n\n</details>\n", i+1, ch.Case.GoString(), ch.Runs)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`).Replace(s)
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
