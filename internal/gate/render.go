package gate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/certbench/certbench/results"
)

// maxSitesShown caps the sites listed per finding by the renderers.
const maxSitesShown = 10

// sections are the groups of findings the renderers list, in order.
var sections = []struct {
	title    string
	statuses []Status
}{
	{"Regressed", []Status{Regressed}},
	{"Not decided", []Status{TooFewSamples, Missing}},
	{"Improved", []Status{Improved}},
}

// WriteText writes the verdict for a log: a headline, then tables of what
// regressed, what improved and what could not be decided, allocation
// sites that grew, and warnings. Unchanged comparisons are only counted.
func (v *Verdict) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "certbench gate: %s\n", v.Summary())
	fmt.Fprintf(bw, "base: %s\nhead: %s\n", v.Base, v.Head)
	fmt.Fprintf(bw, "policy: %s\n", v.Policy.describe())
	if c := v.correctionNote(); c != "" {
		fmt.Fprintf(bw, "tests: %s\n", c)
	}
	for _, s := range sections {
		fs := v.Select(s.statuses...)
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n%s\n", strings.ToUpper(s.title))
		tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		if s.statuses[0] == TooFewSamples {
			fmt.Fprintln(tw, "  benchmark\tmetric\tbase\thead\twhy")
			for _, f := range fs {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", f.Label(), f.Unit, f.baseText(), f.headText(), f.Note)
			}
			tw.Flush()
			continue
		}
		fmt.Fprintln(tw, "  benchmark\tmetric\tbase\thead\tchange\tmax\ttest")
		for _, f := range fs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Label(), f.Unit, f.baseText(), f.headText(), f.changeText(), f.Threshold, f.testText())
		}
		tw.Flush()
		for _, f := range fs {
			if len(f.Sites) == 0 {
				continue
			}
			fmt.Fprintf(bw, "  %s %s grew in (%s, base -> head):\n", f.Label(), f.Unit, sitesKind(f.Sites, " "))
			tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', tabwriter.AlignRight)
			for _, s := range f.Sites[:min(len(f.Sites), maxSitesShown)] {
				b, h := results.FormatPair(s.Base, s.Head, f.Unit)
				fmt.Fprintf(tw, "    %s\t%s\t->\t%s\t\t %s\n", siteGrowth(f.Unit, s.Growth()), b, h, s.Label())
				for _, c := range s.Callees {
					b, h := results.FormatPair(c.Base, c.Head, f.Unit)
					fmt.Fprintf(tw, "    %s\t%s\t->\t%s\t\t   %s\n", siteGrowth(f.Unit, c.Growth()), b, h, c.Function)
				}
			}
			tw.Flush()
		}
	}
	var fatal []string
	for _, p := range v.Problems {
		if p.Fatal {
			fatal = append(fatal, p.Message)
		}
	}
	for _, block := range []struct {
		title string
		msgs  []string
	}{{"FAILED CHECKS", fatal}, {"WARNINGS", v.Warnings()}} {
		if len(block.msgs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n%s\n", block.title)
		for _, m := range block.msgs {
			fmt.Fprintf(bw, "  - %s\n", m)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", v.counts())
	return bw.Flush()
}

// WriteMarkdown writes the verdict as GitHub-flavoured Markdown for a
// pull-request comment or $GITHUB_STEP_SUMMARY: the same content as
// WriteText, with the policy and machine configuration folded away.
func (v *Verdict) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	mark := "✅"
	if !v.Passed() {
		mark = "❌"
	}
	fmt.Fprintf(bw, "### %s certbench gate: %s\n\n", mark, results.EscapeMarkdown(v.Summary()))
	fmt.Fprintf(bw, "Base `%s` vs head `%s`. %s\n", v.Base, v.Head, v.counts())
	if c := v.correctionNote(); c != "" {
		fmt.Fprintf(bw, "\n<sub>Tests: %s.</sub>\n", results.EscapeMarkdown(c))
	}
	for _, s := range sections {
		fs := v.Select(s.statuses...)
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n#### %s\n\n", s.title)
		fmt.Fprintln(bw, "| benchmark | metric | base | head | change | max | test |")
		fmt.Fprintln(bw, "| :-- | :-- | --: | --: | --: | --: | :-- |")
		for _, f := range fs {
			change := f.changeText()
			if f.Status == Regressed {
				change = "**" + change + "**"
			}
			test := f.testText()
			if f.Status != Regressed && f.Status != Improved {
				test = f.Note
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s |\n", results.EscapeMarkdown(f.Label()), f.Unit, f.baseText(), f.headText(), change, f.Threshold, results.EscapeMarkdown(test))
		}
		for _, f := range fs {
			if len(f.Sites) == 0 {
				continue
			}
			fmt.Fprintf(bw, "\n<details open><summary>%s that grew: %s %s (%s)</summary>\n\n", sitesTitle(f.Unit), results.EscapeMarkdown(f.Label()), f.Unit, sitesKind(f.Sites, ", "))
			fmt.Fprintln(bw, "| function | base | head | growth |")
			fmt.Fprintln(bw, "| :-- | --: | --: | --: |")
			for _, s := range f.Sites[:min(len(f.Sites), maxSitesShown)] {
				where := ""
				if w := s.Where(); w != "" {
					where = " (" + results.EscapeMarkdown(w) + ")"
				}
				b, h := results.FormatPair(s.Base, s.Head, f.Unit)
				fmt.Fprintf(bw, "| %s%s | %s | %s | %s |\n", results.CodeSpan(s.Function), where, b, h, siteGrowth(f.Unit, s.Growth()))
				for _, c := range s.Callees {
					b, h := results.FormatPair(c.Base, c.Head, f.Unit)
					fmt.Fprintf(bw, "| &nbsp;&nbsp;↳ %s | %s | %s | %s |\n", results.CodeSpan(c.Function), b, h, siteGrowth(f.Unit, c.Growth()))
				}
			}
			fmt.Fprintln(bw, "\n</details>")
		}
	}
	var fatal, warn []string
	for _, p := range v.Problems {
		if p.Fatal {
			fatal = append(fatal, p.Message)
		} else {
			warn = append(warn, p.Message)
		}
	}
	if len(fatal) > 0 {
		fmt.Fprintf(bw, "\n#### Failed checks\n\n")
		for _, m := range fatal {
			fmt.Fprintf(bw, "- %s\n", results.EscapeMarkdown(m))
		}
	}
	if len(warn) > 0 {
		fmt.Fprintf(bw, "\n#### Warnings\n\n")
		for _, m := range warn {
			fmt.Fprintf(bw, "- %s\n", results.EscapeMarkdown(m))
		}
	}
	if len(v.Findings) > 0 {
		fmt.Fprintf(bw, "\n<details><summary>All %d comparisons</summary>\n\n", len(v.Findings))
		fmt.Fprintln(bw, "| benchmark | metric | base | head | change | max | result |")
		fmt.Fprintln(bw, "| :-- | :-- | --: | --: | --: | --: | :-- |")
		for _, f := range v.Findings {
			note := f.Note
			if f.Method == UTest && strings.HasPrefix(f.pairNote, "unpaired: ") {
				// The warnings say why, once for all the rows.
				note = strings.Replace(note, " ["+f.pairNote+"]", " [unpaired: see the warnings]", 1)
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s: %s |\n", results.EscapeMarkdown(f.Label()), f.Unit, f.baseText(), f.headText(), f.changeText(), f.Threshold, f.Status, results.EscapeMarkdown(note))
		}
		fmt.Fprintln(bw, "\n</details>")
	}
	fmt.Fprintf(bw, "\n<details><summary>Policy and configuration</summary>\n\n```\npolicy: %s\n", v.Policy.describe())
	for _, c := range v.Config {
		flag := ""
		if c.Differs {
			flag = "   <- differs"
		}
		if !c.Differs && len(c.Base) == 1 && slices.Equal(c.Base, c.Head) {
			// One value on both sides: say it once.
			fmt.Fprintf(bw, "%s: %s\n", c.Key, strings.TrimSpace(c.Base[0]))
			continue
		}
		fmt.Fprintf(bw, "%s: base %s, head %s%s\n", c.Key, strings.Join(c.Base, " | "), strings.Join(c.Head, " | "), flag)
	}
	fmt.Fprintln(bw, "```\n\n</details>")
	return bw.Flush()
}

// correctionNote says how significance was decided when statistical
// tests ran, and why certbench compare (and benchstat), which correct for
// nothing, can call significant a change the gate does not; "" when no
// comparison was tested.
func (v *Verdict) correctionNote() string {
	tests := map[string]int{}
	for _, f := range v.Findings {
		if f.Method == UTest || f.Method == SignedRank {
			tests[f.Unit]++
		}
	}
	if len(tests) == 0 {
		return ""
	}
	if v.Policy.Correction == NoCorrection {
		return fmt.Sprintf("each comparison at p < %g on its own, no correction for multiple comparisons (as certbench compare and benchstat)", v.Policy.Alpha)
	}
	most := 0
	for _, n := range tests {
		most = max(most, n)
	}
	return fmt.Sprintf("p < %g per metric after Holm's correction for the number of benchmarks tested on it (up to %d); certbench compare and benchstat correct for nothing, so they can call significant a change the gate finds unchanged",
		v.Policy.Alpha, most)
}

// counts summarizes the findings by status.
func (v *Verdict) counts() string {
	n := map[Status]int{}
	for _, f := range v.Findings {
		n[f.Status]++
	}
	parts := []string{fmt.Sprintf("%d regressed", n[Regressed]), fmt.Sprintf("%d improved", n[Improved]), fmt.Sprintf("%d unchanged", n[Unchanged])}
	if k := n[TooFewSamples] + n[Missing]; k > 0 {
		parts = append(parts, fmt.Sprintf("%d not decided", k))
	}
	return fmt.Sprintf("%d comparisons: %s.", len(v.Findings), strings.Join(parts, ", "))
}

// describe formats the policy on one line.
func (p Policy) describe() string {
	var th []string
	for _, u := range Units {
		if t, ok := p.Max[u]; ok {
			th = append(th, u+" "+t.String())
		} else if u == results.UnitRetainedPerCert {
			if _, ok := p.Max[results.UnitRetained]; ok {
				th = append(th, u+" (as retained-B)")
			}
		}
	}
	s := strings.Join(th, ", ")
	if n := len(p.Overrides); n > 0 {
		s += fmt.Sprintf(" (+%d override(s))", n)
	}
	s += fmt.Sprintf("; alpha %g per metric (%s), >= %d samples unless exact; test %s", p.Alpha, p.Correction, p.MinSamples, p.Test)
	if p.AllowMissing {
		s += ", missing allowed"
	}
	if p.Strict {
		s += ", strict"
	}
	if p.Source != "" {
		s = p.Source + ": " + s
	}
	return s
}

// baseText and headText format a finding's base and head with the digits
// it takes for different values to read differently (results.FormatPair).
func (f *Finding) baseText() string { b, _ := results.FormatPair(f.Base, f.Head, f.Unit); return b }
func (f *Finding) headText() string { _, h := results.FormatPair(f.Base, f.Head, f.Unit); return h }

// ciText formats the confidence interval of a paired finding's change
// in percent: "[+3.1%, +7.0%]".
func (f *Finding) ciText() string {
	return "[" + results.FormatPercent((f.RatioLow-1)*100) + ", " + results.FormatPercent((f.RatioHigh-1)*100) + "]"
}

func (f *Finding) changeText() string {
	if math.IsNaN(f.Base) || math.IsNaN(f.Head) {
		return "-"
	}
	return results.FormatSigned(f.Change(), f.Unit) + " (" + results.FormatPercent(f.Percent()) + ")"
}

// siteGrowth formats a site's growth per op.
func siteGrowth(unit string, d float64) string { return results.FormatSigned(d, unit) }

func (f *Finding) testText() string {
	switch f.Method {
	case Exact:
		return fmt.Sprintf("exact n=%d/%d", f.BaseN, f.HeadN)
	case UTest:
		s := fmt.Sprintf("u-test p=%.3f", f.P)
		if f.AdjustedP != f.P {
			s += fmt.Sprintf(" adj=%.3f", f.AdjustedP)
		}
		return s + fmt.Sprintf(" n=%d/%d", f.BaseN, f.HeadN)
	case NearExact:
		return fmt.Sprintf("near-exact u-test p=%.3f n=%d/%d", f.P, f.BaseN, f.HeadN)
	case SignedRank:
		s := fmt.Sprintf("signed-rank p=%.3f", f.P)
		if f.AdjustedP != f.P {
			s += fmt.Sprintf(" adj=%.3f", f.AdjustedP)
		}
		return s + fmt.Sprintf(" pairs=%d, %g%% CI %s", f.Pairs, PairConfidence*100, f.ciText())
	}
	return fmt.Sprintf("n=%d/%d", f.BaseN, f.HeadN)
}

// JSONSchema is the "schema" value of WriteJSON's output.
const JSONSchema = "certbench.gate/v1"

// WriteJSON writes the verdict as one JSON object. Numbers that are NaN
// or infinite (a missing side, an untested p-value, a change from 0) are
// null.
//
//	{
//	  "schema": "certbench.gate/v1",
//	  "passed": false,
//	  "summary": "FAIL: 1 regression",
//	  "failures": ["1 regression"],
//	  "base": "base.txt", "head": "head.txt",
//	  "policy": {"max": {"allocs/op": "+0%", ...}, "overrides": [...],
//	             "alpha": 0.05, "min_samples": 4, "correction": "holm", "test": "auto",
//	             "allow_missing": false, "strict": false},
//	  "config": [{"key": "cpu", "base": ["..."], "head": ["..."], "differs": false}],
//	  "findings": [{"benchmark": "Churn/scenario=.../store=...",
//	      "scenario": "...", "store": "...", "unit": "allocs/op",
//	      "status": "regressed", "fatal": true, "method": "exact",
//	      "base": 1191, "head": 1201, "change": 10, "percent": 0.84,
//	      "base_n": 6, "head_n": 6, "base_min": 1191, "base_max": 1191,
//	      "head_min": 1201, "head_max": 1201, "p": null, "adjusted_p": null,
//	      "pairs": 0, "ratio": null, "ratio_low": null, "ratio_high": null,
//	      "significant": true, "threshold": "+0%", "note": "exact, beyond +0%",
//	      "sites": [{"function": "...", "base": 0, "head": 10, "growth": 10,
//	          "file": "...", "line": 47, "callees": [{"function": "...", ...}]}]}],
//	  "problems": [{"kind": "mixed-machines", "fatal": false, "message": "..."}]
//	}
func (v *Verdict) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(newJSONVerdict(v))
}

// jsonVerdict is the top-level object of WriteJSON. Its lists are empty,
// never null.
type jsonVerdict struct {
	Schema   string        `json:"schema"`
	Passed   bool          `json:"passed"`
	Summary  string        `json:"summary"`
	Failures []string      `json:"failures"`
	Base     string        `json:"base"`
	Head     string        `json:"head"`
	Policy   jsonPolicy    `json:"policy"`
	Config   []jsonConfig  `json:"config"`
	Findings []jsonFinding `json:"findings"`
	Problems []jsonProblem `json:"problems"`
}

// jsonPolicy is the policy the verdict was judged by.
type jsonPolicy struct {
	Max          map[string]string `json:"max"`
	Overrides    []jsonOverride    `json:"overrides"`
	Alpha        float64           `json:"alpha"`
	MinSamples   int               `json:"min_samples"`
	Correction   Correction        `json:"correction"`
	Test         TestChoice        `json:"test"`
	AllowMissing bool              `json:"allow_missing"`
	Strict       bool              `json:"strict"`
}

// jsonOverride is one Override of the policy.
type jsonOverride struct {
	Scenario string            `json:"scenario"`
	Store    string            `json:"store"`
	Max      map[string]string `json:"max"`
}

// jsonConfig is one ConfigLine.
type jsonConfig struct {
	Key     string   `json:"key"`
	Base    []string `json:"base"`
	Head    []string `json:"head"`
	Differs bool     `json:"differs"`
}

// jsonFinding is one Finding.
type jsonFinding struct {
	Benchmark   string     `json:"benchmark"`
	Scenario    string     `json:"scenario"`
	Store       string     `json:"store"`
	Unit        string     `json:"unit"`
	Status      Status     `json:"status"`
	Fatal       bool       `json:"fatal"`
	Method      Method     `json:"method"`
	Base        *float64   `json:"base"`
	Head        *float64   `json:"head"`
	Change      *float64   `json:"change"`
	Percent     *float64   `json:"percent"`
	BaseN       int        `json:"base_n"`
	HeadN       int        `json:"head_n"`
	BaseMin     *float64   `json:"base_min"`
	BaseMax     *float64   `json:"base_max"`
	HeadMin     *float64   `json:"head_min"`
	HeadMax     *float64   `json:"head_max"`
	P           *float64   `json:"p"`
	AdjustedP   *float64   `json:"adjusted_p"`
	Pairs       int        `json:"pairs"`
	Ratio       *float64   `json:"ratio"`
	RatioLow    *float64   `json:"ratio_low"`
	RatioHigh   *float64   `json:"ratio_high"`
	Significant bool       `json:"significant"`
	Threshold   string     `json:"threshold"`
	Note        string     `json:"note"`
	Sites       []jsonSite `json:"sites"`
}

// jsonSite is one allocation Site; a callee leaves out its file, line
// and callees.
type jsonSite struct {
	Function string     `json:"function"`
	Base     *float64   `json:"base"`
	Head     *float64   `json:"head"`
	Growth   *float64   `json:"growth"`
	File     string     `json:"file,omitempty"`
	Line     int64      `json:"line,omitempty"`
	Callees  []jsonSite `json:"callees,omitempty"`
}

// jsonProblem is one Problem.
type jsonProblem struct {
	Kind    ProblemKind `json:"kind"`
	Fatal   bool        `json:"fatal"`
	Message string      `json:"message"`
}

// newJSONVerdict converts v to its JSON form.
func newJSONVerdict(v *Verdict) jsonVerdict {
	out := jsonVerdict{
		Schema: JSONSchema, Passed: v.Passed(), Summary: v.Summary(), Failures: v.Failures(),
		Base: v.Base, Head: v.Head,
		Policy: newJSONPolicy(&v.Policy),
		Config: []jsonConfig{}, Findings: []jsonFinding{}, Problems: []jsonProblem{},
	}
	if out.Failures == nil {
		out.Failures = []string{}
	}
	for _, c := range v.Config {
		out.Config = append(out.Config, jsonConfig{c.Key, c.Base, c.Head, c.Differs})
	}
	for _, f := range v.Findings {
		out.Findings = append(out.Findings, newJSONFinding(f))
	}
	for _, p := range v.Problems {
		out.Problems = append(out.Problems, jsonProblem{p.Kind, p.Fatal, p.Message})
	}
	return out
}

// newJSONPolicy converts p to its JSON form, thresholds as text.
func newJSONPolicy(p *Policy) jsonPolicy {
	jp := jsonPolicy{
		Max: jsonThresholds(p.Max), Overrides: []jsonOverride{}, Alpha: p.Alpha, MinSamples: p.MinSamples,
		Correction: p.Correction, Test: p.Test, AllowMissing: p.AllowMissing, Strict: p.Strict,
	}
	for _, o := range p.Overrides {
		jp.Overrides = append(jp.Overrides, jsonOverride{o.Scenario, o.Store, jsonThresholds(o.Max)})
	}
	return jp
}

// newJSONFinding converts f to its JSON form with its sites.
func newJSONFinding(f *Finding) jsonFinding {
	jf := jsonFinding{
		Benchmark: f.Benchmark, Scenario: f.Scenario, Store: f.Store, Unit: f.Unit,
		Status: f.Status, Fatal: f.Fatal, Method: f.Method,
		Base: jsonNum(f.Base), Head: jsonNum(f.Head), Change: jsonNum(f.Change()), Percent: jsonNum(f.Percent()),
		BaseN: f.BaseN, HeadN: f.HeadN,
		BaseMin: jsonNum(f.BaseMin), BaseMax: jsonNum(f.BaseMax), HeadMin: jsonNum(f.HeadMin), HeadMax: jsonNum(f.HeadMax),
		P: jsonNum(f.P), AdjustedP: jsonNum(f.AdjustedP), Significant: f.Significant,
		Pairs: f.Pairs, Ratio: jsonNum(f.Ratio), RatioLow: jsonNum(f.RatioLow), RatioHigh: jsonNum(f.RatioHigh),
		Threshold: f.Threshold.String(), Note: f.Note, Sites: []jsonSite{},
	}
	for _, s := range f.Sites {
		js := jsonSite{Function: s.Function, Base: jsonNum(s.Base), Head: jsonNum(s.Head), Growth: jsonNum(s.Growth()), File: s.File, Line: s.Line}
		for _, c := range s.Callees {
			js.Callees = append(js.Callees, jsonSite{Function: c.Function, Base: jsonNum(c.Base), Head: jsonNum(c.Head), Growth: jsonNum(c.Growth())})
		}
		jf.Sites = append(jf.Sites, js)
	}
	return jf
}

// jsonNum is x, or nil (null) when x is NaN or infinite.
func jsonNum(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// jsonThresholds writes each unit's threshold as text.
func jsonThresholds(m map[string]Threshold) map[string]string {
	out := map[string]string{}
	for u, t := range m {
		out[u] = t.String()
	}
	return out
}
