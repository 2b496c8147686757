package peercheck

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/gobench"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// Marker is the hidden first line of the comment, by which a workflow
// finds its earlier comment to edit in place.
const Marker = "<!-- certbench-peer -->"

// WriteMarkdown writes the report as one pull-request comment: the
// verdict first, then the behaviour changes, then the costs.
func (r *Outcome) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	mark := "✅"
	switch {
	case !r.Passed():
		mark = "❌"
	case r.Undecided() != "", r.Conformance == nil && r.Diff == nil && r.Gate == nil && r.GoBench == nil && r.GoBenchSim == nil:
		mark = "⚠️" // not decided, or nothing checked
	}
	fmt.Fprintln(bw, Marker)
	fmt.Fprintf(bw, "### %s certbench on %s: %s\n\n", mark, r.Kind.Name, results.EscapeMarkdown(r.headline()))
	fmt.Fprintf(bw, "Base %s, head %s: one certbench binary with both as stores `%s` and `%s`.\n\n",
		results.EscapeMarkdown(r.Labels[0]), results.EscapeMarkdown(r.Labels[1]), r.Base, r.Head)
	writePage(bw, r.verdictTable())

	r.writeBehaviour(bw)
	r.writeCosts(bw)
	if len(r.Notes) > 0 {
		fmt.Fprintln(bw, "\n#### Notes")
		fmt.Fprintln(bw)
		writeNotes(bw, r.Notes)
	}
	var runs []string
	if r.Gate != nil || r.GoBench != nil {
		runs = append(runs, fmt.Sprintf("%d interleaved rounds", r.Count))
	}
	if r.SimGate != nil || r.GoBenchSim != nil {
		runs = append(runs, fmt.Sprintf("%d samples per side on the simulated CPU", r.SimCount))
	}
	runs = append(runs, r.Elapsed.Round(time.Second).String()+r.phaseText())
	fmt.Fprintf(bw, "\n<sub>certbench peer check: %s.</sub>\n", strings.Join(runs, "; "))
	return bw.Flush()
}

// writeBehaviour writes the behaviour diff and the rules whose outcome
// changed.
func (r *Outcome) writeBehaviour(bw io.Writer) {
	fmt.Fprintln(bw, "\n#### Behaviour changes")
	fmt.Fprintln(bw)
	switch {
	case r.Diff == nil:
		fmt.Fprintln(bw, results.EscapeMarkdown(r.notRun("diff", "Not run", true)))
	case !r.Diff.Differs:
		fmt.Fprintln(bw, "None found: the same generated cases gave the same answers on both stores.")
	default:
		fmt.Fprintf(bw, "`certbench conformance --stores %s --against %s`: each kind of difference once, shrunk to a minimal case.\n\n", r.Base, r.Head)
		fmt.Fprintln(bw, strings.TrimRight(r.Diff.Output, "\n"))
	}
	c := r.Conformance
	if c == nil {
		return
	}
	if len(c.Regressed) > 0 {
		fmt.Fprintf(bw, "\nRules of the contract the base keeps and the head breaks:\n\n")
		for _, rule := range c.Regressed {
			msg := firstLine(c.Messages[rule])
			if msg != "" {
				msg = ": " + results.EscapeMarkdown(msg)
			}
			fmt.Fprintf(bw, "- `%s`%s\n", rule, msg)
		}
	}
	if len(c.BaseVaries) > 0 {
		fmt.Fprintf(bw, "\nRules the head breaks that the base kept in its first run but broke in one of %d more (its answers vary between runs), not counted against the head: %s.\n", c.BaseRuns-1, codeList(c.BaseVaries))
	}
	if len(c.Fixed) > 0 {
		fmt.Fprintf(bw, "\nRules the base breaks and the head keeps: %s.\n", codeList(c.Fixed))
	}
	if len(c.HeadFails) > 0 {
		fmt.Fprintf(bw, "\n<details><summary>All %d rules the head breaks (of %d)</summary>\n\n%s\n\n</details>\n", len(c.HeadFails), c.Rules, codeList(c.HeadFails))
	}
}

// writeCosts writes the gates' verdicts on certbench's scenarios and on
// the proxy's own benchmarks, and the head-only and removed benchmarks.
func (r *Outcome) writeCosts(bw io.Writer) {
	fmt.Fprintln(bw, "\n#### Costs: certbench's scenarios")
	fmt.Fprintln(bw)
	switch {
	case r.Gate == nil:
		fmt.Fprintln(bw, results.EscapeMarkdown(r.notRun("gate", "Not run", true)))
	case r.SimGate != nil:
		var ops []string
		for _, sc := range slices.Sorted(maps.Keys(r.SimOps)) {
			if slices.ContainsFunc(r.SimGate.Findings, func(f *gate.Finding) bool { return f.Scenario == sc }) {
				ops = append(ops, fmt.Sprintf("%s %d", sc, r.SimOps[sc]))
			}
		}
		first := ""
		if len(ops) > 0 {
			first = "; the same first ops a sample on both sides: " + strings.Join(ops, ", ")
		}
		fmt.Fprintf(bw, "**CPU: instructions/op on the simulated CPU** (valgrind's callgrind, %d samples per side%s), which other tenants of the machine cannot disturb.\n\n", r.SimCount, first)
		if len(r.Noisy) > 0 {
			fmt.Fprintf(bw, "Not exact here: %s vary between samples by more than their threshold. They are gated as noisy: at the clock's sec/op threshold instead, by the same U test, so a smaller change is not seen. %s\n\n",
				strings.Join(r.Noisy, "; "), cmp.Or(noisyCause[r.Kind.Name], "Its cause is not known to certbench: the samples are in scenarios/sim-base.txt and sim-head.txt."))
		}
		writePage(bw, r.SimGate.Page())
		fmt.Fprintf(bw, "\n**Allocations, retained heap and held generations, counted natively** (%d rounds beside the simulated CPU; nothing timed, as the simulated CPU counts the CPU).\n\n", r.Count)
		writePage(bw, r.Gate.Page())
	default:
		why, instead := "valgrind is not installed", "with valgrind installed"
		if !r.NoValgrind {
			why, instead = "the clock, without --simulate", "without the clock, without --simulate"
		}
		fmt.Fprintf(bw, "The CPU half is the clock (%s). On a shared runner the clock's noise hides CPU changes smaller than about 10%% (results/simulated-cpu.md); %s, peer check gates instructions/op on the simulated CPU instead.\n\n", why, instead)
		writePage(bw, r.Gate.Page())
	}
	if t := r.heldTable(); t != nil {
		fmt.Fprintln(bw)
		writePage(bw, t)
	}
	fmt.Fprintln(bw, "\n#### Costs: the proxy's own benchmarks")
	fmt.Fprintln(bw)
	var pkgs []string
	if gr := r.GoBenchRun; gr != nil {
		for _, p := range gr.Packages {
			pkgs = append(pkgs, "`"+p.ImportPath+"`")
		}
	}
	if r.GoBenchSim != nil {
		fmt.Fprintf(bw, "`go test -bench` of %s on the simulated CPU, %d samples a side: each benchmark's instructions and allocations per op counted only while its timer runs (its set-up and testing's calibration left out), exact.\n\n",
			strings.Join(pkgs, ", "), r.SimCount)
		writePage(bw, r.GoBenchSim.Page())
	}
	switch {
	case r.GoBench != nil:
		fmt.Fprintf(bw, "\n`go test -bench` of %s on the clock, %d interleaved rounds at -test.benchtime=%s", strings.Join(pkgs, ", "), r.Count, r.GoBenchRun.Benchtime)
		if r.GoBenchSim != nil {
			fmt.Fprint(bw, ": the benchmarks the simulated CPU could not count (notes below)")
		}
		fmt.Fprint(bw, ".\n\n")
		writePage(bw, r.GoBench.Page())
	case r.GoBenchSim == nil:
		fmt.Fprintln(bw, results.EscapeMarkdown(r.notRun("gobench", "Not gated", true)))
	}
	if t := r.headOnlyTable(); t != nil {
		fmt.Fprintln(bw)
		writePage(bw, t)
	}
	if gr := r.GoBenchRun; gr != nil {
		var removed []string
		for _, p := range gr.Packages {
			for _, b := range p.BaseOnly {
				removed = append(removed, "`"+b+"` ("+p.ImportPath+")")
			}
		}
		if len(removed) > 0 {
			fmt.Fprintf(bw, "\nRemoved at the head (the base has them): %s.\n", strings.Join(removed, ", "))
		}
		if len(gr.Notes) > 0 {
			fmt.Fprintln(bw)
			writeNotes(bw, gr.Notes)
		}
	}
}

// heldUnits are the held scenarios' units, in the order shown.
var heldUnits = []string{results.UnitHeldPerGen, results.UnitHeldGoroutinesPerGen, results.UnitReleasedHeld, results.UnitReleasedHeldGoroutines}

// heldTable is both sides' medians in the held scenarios, gated or not:
// what a generation a long-lived connection holds costs each side (the
// HeldGenerations rule judges the goroutines; docs/conformance.md); nil if
// none ran.
func (r *Outcome) heldTable() *table.Page {
	if r.Gate == nil {
		return nil
	}
	var rows []*gate.Finding
	for _, f := range r.Gate.Findings {
		if slices.Contains(heldUnits, f.Unit) && f.BaseN > 0 && f.HeadN > 0 {
			rows = append(rows, f)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortStableFunc(rows, func(a, b *gate.Finding) int {
		return cmp.Or(strings.Compare(a.Scenario, b.Scenario), slices.Index(heldUnits, a.Unit)-slices.Index(heldUnits, b.Unit))
	})
	t := table.New("Generations held by long-lived connections (medians; per held generation, and what is left once every holder lets go)",
		table.Column{Name: "scenario"}, table.Column{Name: "metric"}, table.Column{Name: "base " + r.Labels[0], Align: table.Right},
		table.Column{Name: "head " + r.Labels[1], Align: table.Right}, table.Column{Name: "gate"})
	for _, f := range rows {
		t.Add(table.Cell{Text: f.Scenario}, table.Cell{Text: f.Unit}, table.Cell{Text: results.Format(f.Base, f.Unit)},
			table.Cell{Text: results.Format(f.Head, f.Unit)}, table.Cell{Text: string(f.Status)})
	}
	return &table.Page{Tables: []*table.Table{t}}
}

// noisyCause is why a proxy's instruction counts vary, by kind.
var noisyCause = map[string]string{
	"traefik": "Known cause: Traefik's manager generates an RSA-2048 default certificate on every refresh of a store configured without one, and key generation draws random primes: Traefik's real cost.",
}

// headOnlyTable is the medians of the benchmarks only the head has; nil
// if none.
func (r *Outcome) headOnlyTable() *table.Page {
	if r.HeadOnly == nil {
		return nil
	}
	// The units any of them has: instructions/op where the simulated CPU
	// counted one.
	units := slices.DeleteFunc([]string{results.UnitInstructions, results.UnitSec, results.UnitBytes, results.UnitAllocs}, func(u string) bool {
		return !slices.ContainsFunc(r.HeadOnly.Series, func(s *results.Series) bool { return s.Metric(u) != nil })
	})
	t := table.New(fmt.Sprintf("Only at the head, so not gated (the base has nothing to compare): medians of up to %d samples", gobench.HeadOnlyRounds),
		table.Column{Name: "benchmark"})
	for _, u := range units {
		t.Columns = append(t.Columns, table.Column{Name: results.Title(u), Align: table.Right})
	}
	for _, s := range r.HeadOnly.Series {
		cells := []table.Cell{{Text: string(s.Name)}}
		for _, u := range units {
			cell := table.Cell{Text: "-"}
			if m := s.Metric(u); m != nil && len(m.Values) > 0 {
				cell.Text = results.Format(m.Values[len(m.Values)/2], u)
			}
			cells = append(cells, cell)
		}
		t.Add(cells...)
	}
	return &table.Page{Tables: []*table.Table{t}}
}

func writeNotes(bw io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(bw, "- %s\n", results.EscapeMarkdown(n))
	}
}

// headline sums the verdict up in a line.
func (r *Outcome) headline() string {
	var parts []string
	if r.Conformance != nil && len(r.Conformance.Regressed) > 0 {
		parts = append(parts, fmt.Sprintf("head breaks %d rule(s) the base keeps", len(r.Conformance.Regressed)))
	}
	if r.Diff != nil && r.Diff.Differs {
		parts = append(parts, "behaviour changed")
	}
	verdicts := []*gate.Verdict{r.SimGate, r.Gate, r.GoBench}
	if r.costRegressed() {
		parts = append(parts, "cost regressed")
		if worst := changes(gate.Regressed, 3, verdicts...); len(worst) > 0 {
			parts[len(parts)-1] += ": " + strings.Join(worst, "; ")
		}
	}
	if u := r.Undecided(); u != "" {
		parts = append(parts, "cost: not decided, "+u)
	}
	if len(parts) == 0 {
		// Only what ran: a skipped step found nothing.
		switch {
		case r.Diff != nil:
			parts = append(parts, "no behaviour change")
		case r.Conformance != nil:
			parts = append(parts, "no rule newly broken")
		}
		if r.Gate != nil || r.SimGate != nil || r.GoBench != nil || r.GoBenchSim != nil {
			parts = append(parts, "no regression")
		}
	}
	for _, step := range []string{"conformance", "diff", "gate", "gobench"} {
		if r.skipped(step) {
			parts = append(parts, stepNames[step]+" "+r.Skipped[step])
		}
	}
	if best := changes(gate.Improved, 1, verdicts...); len(best) > 0 {
		parts = append(parts, "improved: "+best[0])
	}
	return strings.Join(parts, "; ")
}

// verdictTable is the verdict: one row per check.
func (r *Outcome) verdictTable() *table.Page {
	t := table.New("", table.Column{Name: "check"}, table.Column{Name: "result"})
	for _, row := range r.verdictRows() {
		t.Add(table.Cell{Text: row[0]}, table.Cell{Text: row[1]})
	}
	return &table.Page{Tables: []*table.Table{t}}
}

// verdictRows are the rows of the verdict table.
func (r *Outcome) verdictRows() [][2]string {
	conf := r.notRun("conformance", "⚠️ not run", false)
	switch c := r.Conformance; {
	case c != nil && len(c.Regressed) > 0:
		conf = fmt.Sprintf("❌ head breaks %s, which the base keeps (in %d runs)", strings.Join(c.Regressed, ", "), c.BaseRuns)
	case c != nil:
		conf = fmt.Sprintf("✅ no rule newly broken (the head breaks %d of %d rules; the base breaks them too", len(c.HeadFails), c.Rules)
		if len(c.BaseVaries) > 0 {
			conf += fmt.Sprintf(", %d of them in some runs only", len(c.BaseVaries))
		}
		conf += ")"
		if len(c.Fixed) > 0 {
			conf += fmt.Sprintf("; %d fixed", len(c.Fixed))
		}
	}
	diff := r.notRun("diff", "⚠️ not run", false)
	if d := r.Diff; d != nil {
		diff = map[bool]string{true: "❌ base and head answer differently (below)", false: "✅ no difference found"}[d.Differs]
	}
	rows := [][2]string{{"conformance", conf}, {"behaviour diff", diff}}
	scen := "certbench's scenarios"
	if r.SimGate != nil {
		rows = append(rows, [2]string{scen + ", simulated CPU", r.verdictCell(r.SimGate, "")})
		scen += ", counts"
	}
	rows = append(rows, [2]string{scen, r.verdictCell(r.Gate, "gate")})
	bench := "the proxy's own benchmarks"
	if r.GoBenchSim != nil {
		rows = append(rows, [2]string{bench + ", simulated CPU", r.verdictCell(r.GoBenchSim, "")})
		if r.GoBench == nil {
			return rows
		}
		bench += ", clock"
	}
	rows = append(rows, [2]string{bench, r.verdictCell(r.GoBench, "gobench")})
	return rows
}

// stepNames name the steps of --skip in the headline.
var stepNames = map[string]string{"conformance": "conformance", "diff": "behaviour diff", "gate": "gate on certbench's scenarios", "gobench": "the proxy's benchmarks"}

// skipped reports whether the options skipped step.
func (r *Outcome) skipped(step string) bool { return strings.HasPrefix(r.Skipped[step], skippedBy) }

// notRun says why step has no outcome: "⏭️ skipped (--skip STEP)" when the
// options skipped it, else what and the reason; a sentence if asked.
func (r *Outcome) notRun(step, what string, asSentence bool) string {
	s := what + reason(r.Skipped[step])
	if r.skipped(step) {
		s = "⏭️ " + r.Skipped[step]
		if asSentence {
			s = "S" + strings.TrimPrefix(r.Skipped[step], "s")
		}
	}
	if asSentence {
		return sentence(s)
	}
	return s
}

// verdictCell sums up a gate verdict of step (the reason of a nil one).
func (r *Outcome) verdictCell(v *gate.Verdict, step string) string {
	if v == nil {
		return r.notRun(step, "⚠️ not gated", false)
	}
	n := map[gate.Status]int{}
	for _, f := range v.Findings {
		n[f.Status]++
	}
	s := fmt.Sprintf("%d regressed, %d improved, %d unchanged", n[gate.Regressed], n[gate.Improved], n[gate.Unchanged])
	if k := n[gate.TooFewSamples]; k > 0 {
		s = fmt.Sprintf("not decided: %d metric(s) with too few samples; %s", k, s)
	}
	switch {
	case regressed(v):
		s = "❌ " + s
	case !v.Passed():
		s = "⚠️ " + s
	default:
		s = "✅ " + s
	}
	// The regressions first, then what improved.
	for _, st := range []struct {
		status gate.Status
		title  string
	}{{gate.Regressed, "Regressed"}, {gate.Improved, "Improved"}} {
		if fs := changes(st.status, 3, v); len(fs) > 0 {
			s += ". " + st.title + ": " + strings.Join(fs, "; ")
		}
	}
	return s
}

// changes describes the n largest relative changes of status in the
// verdicts (nil ones skipped), allocations first.
func changes(status gate.Status, n int, vs ...*gate.Verdict) []string {
	var fs []*gate.Finding
	for _, v := range vs {
		if v == nil {
			continue
		}
		for _, f := range v.Findings {
			if f.Status == status {
				fs = append(fs, f)
			}
		}
	}
	rank := func(f *gate.Finding) int {
		return (slices.Index([]string{results.UnitAllocs, results.UnitBytes}, f.Unit) + 3) % 3
	}
	slices.SortStableFunc(fs, func(a, b *gate.Finding) int {
		size := cmp.Compare(math.Abs(b.Percent()), math.Abs(a.Percent())) // largest first
		return cmp.Or(cmp.Compare(rank(a), rank(b)), size)
	})
	var out []string
	for _, f := range fs[:min(n, len(fs))] {
		change := results.FormatPercent(f.Percent())
		if f.Base == 0 && f.Head > 0 {
			change = results.FromZero(f.Unit)
		}
		out = append(out, fmt.Sprintf("%s %s %s → %s (%s)", f.Label(), f.Unit,
			results.Format(f.Base, f.Unit), results.Format(f.Head, f.Unit), change))
	}
	return out
}

// writePage writes a page's Markdown, its headings as bold lines: two
// levels below the comment's they would render smaller than the text.
func writePage(w io.Writer, p *table.Page) {
	var b bytes.Buffer
	if err := table.WriteMarkdown(&b, p); err != nil {
		fmt.Fprintf(w, "(a table failed: %v)\n", err)
		return
	}
	for _, line := range strings.SplitAfter(strings.TrimRight(b.String(), "\n")+"\n", "\n") {
		if text, ok := strings.CutPrefix(line, "#"); ok {
			line = "**" + strings.TrimSpace(strings.TrimLeft(text, "#")) + "**\n"
		}
		io.WriteString(w, line)
	}
}

// sentence ends s with a period.
func sentence(s string) string { return strings.TrimSuffix(s, ".") + "." }

func reason(s string) string {
	if s == "" {
		return ""
	}
	return ": " + firstLine(strings.Split(s, "\n"))
}

func firstLine(lines []string) string {
	if i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) != "" }); i >= 0 {
		return strings.TrimSpace(lines[i])
	}
	return ""
}

func codeList(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = "`" + s + "`"
	}
	return strings.Join(quoted, ", ")
}

// phaseText lists the steps' wall times, in parentheses.
func (r *Outcome) phaseText() string {
	var ps []string
	for _, p := range r.Phases {
		ps = append(ps, p.Name+" "+p.Elapsed.Round(time.Second).String())
	}
	if ps == nil {
		return ""
	}
	return " (" + strings.Join(ps, ", ") + ")"
}
