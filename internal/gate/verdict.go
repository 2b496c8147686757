package gate

import (
	"fmt"
	"strings"
)

// Status is the outcome of one comparison.
type Status string

// The statuses of a Finding.
const (
	// Regressed: worse beyond the threshold, and significant (or exact).
	Regressed Status = "regressed"
	// Improved: better beyond the threshold, and significant (or exact).
	Improved Status = "improved"
	// Unchanged: no significant change beyond the threshold.
	Unchanged Status = "unchanged"
	// TooFewSamples: not exact, and fewer than MinSamples samples on a
	// side; a failure.
	TooFewSamples Status = "too-few-samples"
	// Missing: the metric is in base but not in head; a failure unless
	// AllowMissing.
	Missing Status = "missing"
)

// Method is how a Finding was decided: the rules are in docs/gate.md.
type Method string

// The methods.
const (
	// Exact: identical samples within each side, compared directly.
	Exact Method = "exact"
	// UTest: the medians, by a Mann-Whitney U test corrected per
	// Policy.Correction.
	UTest Method = "u-test"
	// SignedRank: samples paired by round (see PairedTest), by a
	// Wilcoxon signed-rank test of the log ratios head/base corrected per
	// Policy.Correction; the change is the Hodges-Lehmann estimate
	// (Finding.Ratio).
	SignedRank Method = "signed-rank"
	// NearExact: a simulated CPU's unit (results.IsSimulated): the
	// medians against the threshold, and an uncorrected U test that the
	// sides separate.
	NearExact Method = "near-exact"
	// NotCompared: nothing was compared (missing metric, too few
	// samples).
	NotCompared Method = "none"
)

// A Finding is the comparison of one metric of one benchmark.
type Finding struct {
	// Benchmark is the benchmark's name without "Benchmark" and
	// GOMAXPROCS, e.g. "Churn/scenario=rotate-10-of-100/store=optimized";
	// Scenario and Store are its keys (empty if it has none).
	Benchmark string `json:"benchmark"`
	Scenario  string `json:"scenario"`
	Store     string `json:"store"`

	// Unit is the metric, such as "allocs/op".
	Unit string `json:"unit"`

	// Status is the outcome; Fatal reports whether it fails the gate.
	Status Status `json:"status"`
	Fatal  bool   `json:"fatal"`

	// Method says how the values were compared.
	Method Method `json:"method"`

	// Base and Head are the values compared: the common value of an
	// exact metric, otherwise the medians. NaN when missing.
	Base, Head float64 `json:"-"`

	// BaseN and HeadN are the numbers of samples.
	BaseN, HeadN int `json:"-"`

	// BaseMin, BaseMax, HeadMin and HeadMax are the ranges of the
	// samples (NaN when missing), to show the spread.
	BaseMin, BaseMax, HeadMin, HeadMax float64 `json:"-"`

	// P is the test's p-value (U or signed-rank) and AdjustedP the
	// p-value corrected for multiple comparisons within the metric; both
	// NaN unless Method is UTest or SignedRank.
	P, AdjustedP float64 `json:"-"`

	// Pairs is the number of rounds paired when Method is SignedRank
	// (zero differences included), else 0.
	Pairs int `json:"pairs"`

	// Ratio is the Hodges-Lehmann estimate of head/base from the paired
	// rounds (the exponential of the median of the Walsh averages of the
	// log ratios), and RatioLow and RatioHigh its distribution-free
	// PairConfidence interval (infinite with too few pairs); NaN unless
	// Method is SignedRank.
	Ratio, RatioLow, RatioHigh float64 `json:"-"`

	// Significant reports whether the difference is significant:
	// AdjustedP < Alpha, or, for an exact metric, any difference.
	Significant bool `json:"significant"`

	// Threshold is the threshold applied.
	Threshold Threshold `json:"threshold"`

	// Note says why, in a few words: "p=0.002 < 0.05", "within +10%",
	// "not significant (p=0.31)", "base has 3 samples, need 4".
	Note string `json:"note"`

	// Sites are the allocation sites that grew, for a regressed
	// allocs/op or B/op finding when profiles were given (see
	// Verdict.AddSites).
	Sites []Site `json:"sites"`

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

// Percent returns the change in percent of |Base|: +Inf for an increase
// from 0, NaN for 0 to 0 or when a side is missing; for a paired finding,
// (Ratio-1)*100.
func (f *Finding) Percent() float64 {
	if f.Method == SignedRank {
		return (f.Ratio - 1) * 100
	}
	switch {
	case f.Base == f.Head:
		return 0
	case f.Base == 0:
		if f.Head > 0 {
			return inf
		}
		return -inf
	}
	return (f.Head - f.Base) / abs(f.Base) * 100
}

// Label names the finding's benchmark: "scenario/store" when it has both
// keys, else the benchmark name.
func (f *Finding) Label() string {
	if f.Scenario != "" && f.Store != "" {
		return f.Scenario + "/" + f.Store
	}
	return f.Benchmark
}

// ProblemKind classifies a Problem.
type ProblemKind string

// The kinds of Problem.
const (
	// MissingInHead: a benchmark of base has no results in head (a
	// failure unless AllowMissing).
	MissingInHead ProblemKind = "missing-in-head"
	// NewInHead: a benchmark of head has no results in base; nothing to
	// compare it with (never a failure).
	NewInHead ProblemKind = "new-in-head"
	// MixedMachines: base and head (or the results within one of them)
	// differ in goos, goarch, cpu, go or gomaxprocs (a failure if
	// Strict).
	MixedMachines ProblemKind = "mixed-machines"
	// NotGated: a metric in the results has no threshold (never a
	// failure).
	NotGated ProblemKind = "not-gated"
	// NoSites: allocation sites could not be named for a regression
	// (never a failure).
	NoSites ProblemKind = "no-sites"
	// StoreFailed: a benchmark is recorded as failed (a store that
	// panicked or hung in certbench run, see results.Set.Failures): at head
	// and not at base a failure, else a warning; either way it is not
	// compared.
	StoreFailed ProblemKind = "store-failed"
	// NotPaired: the policy wanted samples paired by round, but some
	// benchmarks' rounds do not pair one-to-one, so they were compared by
	// the U test (never a failure).
	NotPaired ProblemKind = "not-paired"
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
	Policy Policy `json:"policy"`

	// Config lists the machine configuration of each side.
	Config []ConfigLine `json:"config"`

	// Findings holds one finding per benchmark and gated unit, in unit
	// order (Units) then benchmark order (as in base).
	Findings []*Finding `json:"findings"`

	// Problems lists missing or new benchmarks, machine mismatches and
	// metrics without thresholds.
	Problems []Problem `json:"problems"`
}

// A ConfigLine is one configuration key's values on each side.
type ConfigLine struct {
	Key  string   `json:"key"`
	Base []string `json:"base"`
	Head []string `json:"head"`
	// Differs reports that the sides differ, or that a side holds
	// several values.
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
			out = append(out, fmt.Sprintf("%d %s", n, statusPhrase(s, n)))
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

func statusPhrase(s Status, n int) string {
	if n == 1 {
		return statusPhrases[s][0]
	}
	return statusPhrases[s][1]
}

// Select returns the findings with one of the statuses.
func (v *Verdict) Select(statuses ...Status) []*Finding {
	var out []*Finding
	for _, f := range v.Findings {
		for _, s := range statuses {
			if f.Status == s {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// Regressions returns the regressed findings.
func (v *Verdict) Regressions() []*Finding { return v.Select(Regressed) }

// Improvements returns the improved findings.
func (v *Verdict) Improvements() []*Finding { return v.Select(Improved) }

// Warnings returns the messages of the problems that do not fail the
// gate, and of non-fatal missing metrics.
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
