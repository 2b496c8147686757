package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/cost"
)

// Status is the outcome of one comparison.
type Status string

// The statuses of a Finding (docs/gate.md).
const (
	Regressed     Status = "regressed"
	Improved      Status = "improved"
	Unchanged     Status = "unchanged"
	TooFewSamples Status = "too-few-samples"
	Missing       Status = "missing"
)

// Method is how a Finding was decided.
type Method string

// The methods: the rules of docs/gate.md, and none for a finding not
// compared (missing, too few samples).
const (
	Exact       Method = "exact"
	UTest       Method = "u-test"
	SignedRank  Method = "signed-rank"
	NearExact   Method = "near-exact"
	NotCompared Method = "none"
)

// A Finding is the comparison of one metric of one benchmark.
type Finding struct {
	// Benchmark is the name without "Benchmark" and GOMAXPROCS;
	// Scenario and Store are its keys (empty if it has none).
	Benchmark string `json:"benchmark"`
	Scenario  string `json:"scenario"`
	Store     string `json:"store"`
	Unit      string `json:"unit"`
	Status    Status `json:"status"`
	// Fatal reports whether the finding fails the gate.
	Fatal  bool   `json:"fatal"`
	Method Method `json:"method"`
	// Base and Head are an exact metric's values, else the medians; NaN
	// when missing. The Min and Max fields are the samples' ranges.
	Base, Head                         float64 `json:"-"`
	BaseN, HeadN                       int     `json:"-"`
	BaseMin, BaseMax, HeadMin, HeadMax float64 `json:"-"`
	// P is the test's p-value and AdjustedP its corrected value; NaN
	// unless Method is UTest or SignedRank.
	P, AdjustedP float64 `json:"-"`
	// Pairs is the number of rounds paired (SignedRank), else 0.
	Pairs int `json:"pairs"`
	// Ratio is the Hodges-Lehmann estimate of head/base, RatioLow and
	// RatioHigh its PairConfidence interval; NaN unless SignedRank.
	Ratio, RatioLow, RatioHigh float64 `json:"-"`
	// Significant is AdjustedP < Alpha, or for an exact metric any
	// difference.
	Significant bool      `json:"significant"`
	Threshold   Threshold `json:"threshold"`
	// Note says why, in a few words.
	Note string `json:"note"`
	// Sites are the allocation sites that grew (Verdict.AddSites).
	Sites []cost.Site `json:"sites"`
	// Flame, when set, is the file of the regression's differential flame
	// graphs (cost.WriteFlames), as its reader finds it.
	Flame string `json:"flame,omitempty"`

	uP       float64 // the U test's p-value, kept when the paired test is chosen
	nonZero  int     // non-zero paired differences
	pairNote string  // why the U test was used though pairing was wanted, or "normal approximation"
}

// Change returns Head - Base; for a paired finding (SignedRank), the
// paired estimate Base*(Ratio-1).
func (f *Finding) Change() float64 {
	if f.Method == SignedRank {
		return f.Base * (f.Ratio - 1)
	}
	return f.Head - f.Base
}

// Percent returns the change in percent of |Base| (±Inf from 0); for a
// paired finding, (Ratio-1)*100.
func (f *Finding) Percent() float64 {
	if f.Method == SignedRank {
		return (f.Ratio - 1) * 100
	}
	switch {
	case f.Base == f.Head:
		return 0
	case f.Base == 0:
		if f.Head > 0 {
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	return (f.Head - f.Base) / math.Abs(f.Base) * 100
}

// Label names the finding's benchmark: "scenario/store", else its name.
func (f *Finding) Label() string {
	if f.Scenario != "" && f.Store != "" {
		return f.Scenario + "/" + f.Store
	}
	return f.Benchmark
}

// ProblemKind classifies a Problem.
type ProblemKind string

// The kinds of Problem (docs/gate.md, "Incomplete or doubtful data").
const (
	MissingInHead ProblemKind = "missing-in-head"
	NewInHead     ProblemKind = "new-in-head"
	MixedMachines ProblemKind = "mixed-machines"
	NotGated      ProblemKind = "not-gated"
	NoSites       ProblemKind = "no-sites"
	StoreFailed   ProblemKind = "store-failed"
	NotPaired     ProblemKind = "not-paired"
)

// A Problem is something about the inputs as a whole that the verdict
// reports besides the findings.
type Problem struct {
	Kind    ProblemKind `json:"kind"`
	Fatal   bool        `json:"fatal"`
	Message string      `json:"message"`
}

// A Verdict is what Evaluate decided: one Finding per gated metric of
// every benchmark, and the problems with the inputs.
type Verdict struct {
	// Base and Head label the inputs (their file names).
	Base string `json:"base"`
	Head string `json:"head"`
	// Policy is the policy applied, with defaults filled in.
	Policy Policy       `json:"policy"`
	Config []ConfigLine `json:"config"`
	// Findings are in unit order, then benchmark order.
	Findings []*Finding `json:"findings"`
	Problems []Problem  `json:"problems"`
	// History is main's commits the base was made of (gate --history),
	// oldest first; nil for a base run.
	History []HistoryCommit `json:"history,omitempty"`
}

// A HistoryCommit is one of main's commits in the base of a gate against
// history.
type HistoryCommit struct {
	Commit string    `json:"commit"`
	Time   time.Time `json:"time"`
}

// String is the commit's short hash and day: "1a2b3c4 2026-01-02".
func (c HistoryCommit) String() string {
	return c.Commit[:min(7, len(c.Commit))] + " " + c.Time.UTC().Format(time.DateOnly)
}

// A ConfigLine is one configuration key's values on each side.
type ConfigLine struct {
	Key  string   `json:"key"`
	Base []string `json:"base"`
	Head []string `json:"head"`
	// Differs: the sides differ, or a side holds several values.
	Differs bool `json:"differs"`
}

// Passed reports whether the gate passes: no finding or problem is
// fatal.
func (v *Verdict) Passed() bool { return len(v.Failures()) == 0 }

// Failures returns one line per reason the gate fails, empty if it
// passes.
func (v *Verdict) Failures() []string {
	var out []string
	counts := map[Status]int{}
	for _, f := range v.Findings {
		if f.Fatal {
			counts[f.Status]++
		}
	}
	for _, s := range []Status{Regressed, TooFewSamples, Missing} {
		if n := counts[s]; n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, statusPhrases[s][min(n, 2)-1]))
		}
	}
	for _, p := range v.Problems {
		if p.Fatal {
			out = append(out, p.Message)
		}
	}
	return out
}

// statusPhrases name one and several fatal findings of a status.
var statusPhrases = map[Status][2]string{
	Regressed:     {"regression", "regressions"},
	TooFewSamples: {"metric with too few samples to decide", "metrics with too few samples to decide"},
	Missing:       {"metric missing in head", "metrics missing in head"},
}

// Select returns the findings with one of the statuses.
func (v *Verdict) Select(statuses ...Status) []*Finding {
	var out []*Finding
	for _, f := range v.Findings {
		if slices.Contains(statuses, f.Status) {
			out = append(out, f)
		}
	}
	return out
}

// Regressions returns the regressed findings.
func (v *Verdict) Regressions() []*Finding { return v.Select(Regressed) }

// Improvements returns the improved findings.
func (v *Verdict) Improvements() []*Finding { return v.Select(Improved) }

// Warnings returns the messages of the problems that do not fail.
func (v *Verdict) Warnings() []string {
	var out []string
	for _, p := range v.Problems {
		if !p.Fatal {
			out = append(out, p.Message)
		}
	}
	return out
}

// Summary returns a one-line verdict: "PASS: 48 comparisons, 2 improved"
// or "FAIL: 1 regression; 2 metrics with too few samples to decide".
func (v *Verdict) Summary() string {
	if fs := v.Failures(); len(fs) > 0 {
		return "FAIL: " + strings.Join(fs, "; ")
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("%d comparisons", len(v.Findings)))
	if n := len(v.Improvements()); n > 0 {
		parts = append(parts, fmt.Sprintf("%d improved", n))
	}
	if n := len(v.Warnings()); n > 0 {
		w := "warnings"
		if n == 1 {
			w = "warning"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, w))
	}
	return "PASS: " + strings.Join(parts, ", ")
}
