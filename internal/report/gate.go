package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
)

// GateSchema is the schema of the gate results ReadGate reads: the output
// of certbench gate --format json (docs/schema/gate.schema.json).
const GateSchema = "certbench.gate/v1"

// GateResult is what the report shows of a gate's verdict, at the top of
// the page: the verdict, the thresholds and the test settings, and the
// comparisons that failed or improved.
type GateResult struct {
	// Passed is the verdict; Summary says it in a line ("FAIL: 1
	// regression"); Failures lists why it failed.
	Passed   bool
	Summary  string
	Failures []string
	// Base and Head name the files gated.
	Base, Head string
	// Thresholds are the policy's largest allowed changes per metric
	// ("+10%"), in the order of results.Units, then the others sorted.
	Thresholds []GateThreshold
	// Overrides is the number of per-benchmark threshold overrides.
	Overrides int
	// Alpha is the significance level per metric, after Correction
	// ("holm" or "none") over that metric's comparisons.
	Alpha      float64
	Correction string
	// MinSamples is the fewest samples a side may have (exact counts
	// aside); Test is "auto", "paired" or "unpaired".
	MinSamples int
	Test       string
	// Findings are every comparison the gate made.
	Findings []GateFinding
	// Problems are the gate's failed checks (Fatal) and warnings.
	Problems []GateProblem
}

// GateThreshold is the largest change of a metric that passes.
type GateThreshold struct {
	Unit, Max string
}

// GateFinding is one comparison of the gate.
type GateFinding struct {
	// Label names the benchmark ("rotate-10-of-100/optimized").
	Label string
	// Unit is the metric, as benchfmt tidies it ("sec/op").
	Unit string
	// Status is "regressed", "improved", "unchanged", "too-few-samples"
	// or "missing"; Fatal says it failed the gate.
	Status string
	Fatal  bool
	// Base and Head are the compared values (NaN when missing); Percent
	// the change in percent.
	Base, Head, Percent float64
	// Threshold is the largest change allowed; Note says how it was
	// decided ("u-test p=0.002 (holm 0.004) < 0.05, beyond +10%").
	Threshold, Note string
}

// GateProblem is a failed check or a warning of the gate.
type GateProblem struct {
	Fatal   bool
	Message string
}

// gateJSON is the part of certbench.gate/v1 the report reads.
type gateJSON struct {
	Schema   string   `json:"schema"`
	Passed   *bool    `json:"passed"`
	Summary  string   `json:"summary"`
	Failures []string `json:"failures"`
	Base     string   `json:"base"`
	Head     string   `json:"head"`
	Policy   struct {
		Max       map[string]string `json:"max"`
		Overrides []json.RawMessage `json:"overrides"`
		Alpha     float64           `json:"alpha"`
		MinSamp   int               `json:"min_samples"`
		Corr      string            `json:"correction"`
		Test      string            `json:"test"`
	} `json:"policy"`
	Findings []struct {
		Benchmark string   `json:"benchmark"`
		Scenario  string   `json:"scenario"`
		Store     string   `json:"store"`
		Unit      string   `json:"unit"`
		Status    string   `json:"status"`
		Fatal     bool     `json:"fatal"`
		Base      *float64 `json:"base"`
		Head      *float64 `json:"head"`
		Percent   *float64 `json:"percent"`
		Threshold string   `json:"threshold"`
		Note      string   `json:"note"`
	} `json:"findings"`
	Problems []struct {
		Fatal   bool   `json:"fatal"`
		Message string `json:"message"`
	} `json:"problems"`
}

// ReadGate reads a gate result, as certbench gate --format json writes
// it. It refuses anything else, saying what it found.
func ReadGate(r io.Reader) (*GateResult, error) {
	var g gateJSON
	dec := json.NewDecoder(io.LimitReader(r, 64<<20))
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("not a gate result (certbench gate --format json): %v", err)
	}
	switch {
	case g.Schema == "":
		return nil, errors.New("not a gate result (certbench gate --format json): no \"schema\"")
	case g.Schema != GateSchema:
		return nil, fmt.Errorf("gate result of schema %q, want %q", g.Schema, GateSchema)
	case g.Passed == nil:
		return nil, errors.New("gate result without \"passed\"")
	}
	out := &GateResult{
		Passed: *g.Passed, Summary: g.Summary, Failures: g.Failures, Base: g.Base, Head: g.Head,
		Overrides: len(g.Policy.Overrides), Alpha: g.Policy.Alpha, Correction: g.Policy.Corr,
		MinSamples: g.Policy.MinSamp, Test: g.Policy.Test,
	}
	var known, other []string
	for u := range g.Policy.Max {
		if _, ok := results.Info(u); ok {
			known = append(known, u)
		} else {
			other = append(other, u)
		}
	}
	order := func(u string) int {
		return slices.IndexFunc(results.Units(), func(i results.UnitInfo) bool { return i.Unit == u || i.Tidy == u })
	}
	slices.SortFunc(known, func(a, b string) int { return order(a) - order(b) })
	slices.Sort(other)
	for _, u := range append(known, other...) {
		out.Thresholds = append(out.Thresholds, GateThreshold{Unit: u, Max: g.Policy.Max[u]})
	}
	num := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	for _, f := range g.Findings {
		label := f.Benchmark
		if f.Scenario != "" && f.Store != "" {
			label = f.Scenario + "/" + f.Store
		}
		out.Findings = append(out.Findings, GateFinding{
			Label: label, Unit: f.Unit, Status: f.Status, Fatal: f.Fatal,
			Base: num(f.Base), Head: num(f.Head), Percent: num(f.Percent),
			Threshold: f.Threshold, Note: f.Note,
		})
	}
	for _, p := range g.Problems {
		out.Problems = append(out.Problems, GateProblem{Fatal: p.Fatal, Message: p.Message})
	}
	return out, nil
}

// counts says how many comparisons ended how: "12 comparisons: 3
// regressed, 1 improved, 8 unchanged".
func (g *GateResult) counts() string {
	n := map[string]int{}
	for _, f := range g.Findings {
		n[f.Status]++
	}
	s := fmt.Sprintf("%d comparisons: %d regressed, %d improved, %d unchanged", len(g.Findings), n["regressed"], n["improved"], n["unchanged"])
	if k := n["too-few-samples"] + n["missing"]; k > 0 {
		s += fmt.Sprintf(", %d not decided", k)
	}
	return s
}

// settings says how the gate decides, in a sentence.
func (g *GateResult) settings() string {
	var b strings.Builder
	fmt.Fprintf(&b, "A change fails when it is beyond its threshold and significant: p < %g per metric", g.Alpha)
	switch g.Correction {
	case "holm":
		b.WriteString(" after Holm's correction for the number of benchmarks compared on that metric")
	case "none":
		b.WriteString(", each benchmark tested alone (no correction for multiple comparisons)")
	}
	fmt.Fprintf(&b, "; at least %d samples a side unless a count is exact; test %s", g.MinSamples, g.Test)
	if g.Overrides > 0 {
		fmt.Fprintf(&b, "; %d per-benchmark override(s) of the thresholds", g.Overrides)
	}
	b.WriteString(".")
	return b.String()
}

// gateTable lists the comparisons of g that regressed, could not be
// decided or improved.
func (g *GateResult) gateTable() *htmlTable {
	t := &htmlTable{ID: "gate-findings", Title: "Regressed, not decided and improved",
		Header: []string{"benchmark", "metric", "base", "head", "change", "max", "result"}}
	for _, status := range []string{"regressed", "too-few-samples", "missing", "improved"} {
		for _, f := range g.Findings {
			if f.Status != status {
				continue
			}
			class := "num"
			switch {
			case f.Fatal:
				class = "num worse"
			case status == "improved":
				class = "num better"
			}
			change := gateChange(f.Base, f.Head, f.Percent, f.Unit)
			base, head := results.FormatPair(f.Base, f.Head, f.Unit)
			t.Rows = append(t.Rows, []htmlCell{
				{Text: f.Label, Class: "label"}, {Text: f.Unit, Class: "label"},
				{Text: base, Class: "num"}, {Text: head, Class: "num"},
				{Text: change, Class: class}, {Text: f.Threshold, Class: "num"},
				{Text: strings.ReplaceAll(f.Status, "-", " ") + ": " + f.Note},
			})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// gateChange is a finding's change as the gate prints it, the difference
// and its percent ("+24 B (+2.00%)"); a change from zero, which has no
// percent, says so ("+24 B (from 0)"). It is "-" when a side is missing.
func gateChange(base, head, percent float64, unit string) string {
	if !finite(base) || !finite(head) {
		return "-"
	}
	d := results.FormatSigned(head-base, unit)
	switch {
	case finite(percent):
		return d + " (" + results.FormatPercent(percent) + ")"
	case base == 0 && head != 0:
		return d + " (from 0)"
	}
	return d
}
