package gate

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/yamlfile"
	"github.com/certbench/certbench/results"
	"go.yaml.in/yaml/v3"
)

// Units lists the units the gate can gate, in report order: every cost
// (lower-is-better unit) package results knows, tidied ("sec/op"). The
// default policy gates the first nine but cpu-sec/op (see DefaultPolicy);
// the others take a threshold from the policy. A higher-is-better unit (handshakes/s) is not gated.
var Units = gateUnits()

func gateUnits() []string {
	var out []string
	for _, u := range results.Units() {
		if u.Better == results.LowerIsBetter && !slices.Contains(out, u.Tidy) {
			out = append(out, u.Tidy)
		}
	}
	return out
}

// The default thresholds of the simulated CPU's units (docs/gate.md):
// an instruction count repeats to within a few hundredths of a percent;
// the cycle estimate adds cache misses, which vary more.
const (
	DefaultInstructionsMax = "+0.25%"
	DefaultEstCyclesMax    = "+1%"
)

// Defaults of a Policy's scalar fields.
const (
	// DefaultAlpha is the significance level of each metric's family of
	// tests.
	DefaultAlpha = 0.05
	// DefaultMinSamples is the fewest samples per side for a statistical
	// comparison: the Mann-Whitney U test cannot reach p < 0.05 with
	// fewer than 4.
	DefaultMinSamples = 4
)

// Correction is how the p-values of one metric's tests (one per
// benchmark) are corrected for multiple comparisons.
type Correction string

// The corrections.
const (
	// Holm is the Holm-Bonferroni step-down method: the chance of at
	// least one false alarm per metric stays below Alpha however many
	// benchmarks are compared. It is the default.
	Holm Correction = "holm"
	// NoCorrection tests every benchmark at Alpha: with k benchmarks,
	// up to k*Alpha false alarms per metric are expected.
	NoCorrection Correction = "none"
)

// A Threshold is the largest increase of a metric that is not a
// regression: relative to the base (a percentage) or an absolute amount
// of the unit's measure (seconds, bytes, allocations, goroutines). The
// zero Threshold allows no increase at all.
type Threshold struct {
	// Value is the allowed increase: a percentage if Relative, else an
	// amount in the base unit of Measure (seconds, not milliseconds;
	// bytes, not KiB).
	Value float64
	// Relative makes Value a percentage of the base value.
	Relative bool
	// Off means the metric is not gated.
	Off bool
	// Measure is what an absolute, non-zero Value counts: one of
	// MeasureSeconds, MeasureBytes, MeasureAllocs or MeasureGoroutines. It
	// must match the unit the threshold is set for (see MeasureOf); it is
	// empty for relative, off and zero thresholds.
	Measure string
}

// MarshalText writes t as it reads: "+10%", "+2ms", "off".
func (t Threshold) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// The measures of absolute thresholds, and the suffixes ParseThreshold
// reads for them.
const (
	// MeasureSeconds is time: ParseThreshold reads the suffixes of
	// time.ParseDuration (ns, us, µs, ms, s, m, h).
	MeasureSeconds = "s"
	// MeasureBytes is memory: suffixes B, KiB, MiB, GiB (powers of 1024)
	// and kB, MB, GB (powers of 1000).
	MeasureBytes = "B"
	// MeasureAllocs is a count of heap objects: suffix allocs (or alloc).
	MeasureAllocs = "allocs"
	// MeasureGoroutines is a count of goroutines: suffix goroutines (or
	// goroutine).
	MeasureGoroutines = "goroutines"
	// MeasureInstructions is a count of instructions: suffix
	// instructions (or instruction, instr).
	MeasureInstructions = "instructions"
	// MeasureCycles is a count of (estimated) cycles: suffix cycles (or
	// cycle).
	MeasureCycles = "cycles"
)

// MeasureOf returns the measure of an absolute threshold for unit (one of
// Units, or as a file spells it: "ns/op" is "sec/op"), or "" for a unit
// the gate does not know or that takes relative thresholds only (ratios,
// fractions, GC cycles).
func MeasureOf(unit string) string {
	info, ok := results.Info(unit)
	if !ok {
		return ""
	}
	switch u := info.Tidy; {
	case u == results.UnitAllocs:
		return MeasureAllocs
	case u == results.UnitGoroutines:
		return MeasureGoroutines
	case u == results.UnitInstructions:
		return MeasureInstructions
	case u == results.UnitEstCycles:
		return MeasureCycles
	case results.IsBytes(u):
		return MeasureBytes
	case strings.HasPrefix(u, "sec/") || strings.HasSuffix(u, "-sec") || strings.Contains(u, "-sec/"):
		return MeasureSeconds
	}
	return ""
}

// exampleAmount is how an absolute threshold of n in measure m is
// written, for error messages.
func exampleAmount(m, n string) string {
	switch m {
	case MeasureSeconds:
		return "+" + n + "ms"
	case MeasureBytes:
		return "+" + n + "KiB"
	case MeasureAllocs, MeasureGoroutines, MeasureInstructions, MeasureCycles:
		return "+" + n + m
	}
	return "+" + n + "ms, +" + n + "KiB, +" + n + "allocs, +" + n + "goroutines or +" + n + "instructions"
}

// amounts are the suffixes of absolute thresholds: their measure and the
// factor to its base unit.
var amounts = map[string]struct {
	measure string
	factor  float64
}{
	"ns": {MeasureSeconds, 1e-9}, "us": {MeasureSeconds, 1e-6}, "µs": {MeasureSeconds, 1e-6}, "μs": {MeasureSeconds, 1e-6},
	"ms": {MeasureSeconds, 1e-3}, "s": {MeasureSeconds, 1},
	"B": {MeasureBytes, 1}, "KiB": {MeasureBytes, 1 << 10}, "MiB": {MeasureBytes, 1 << 20}, "GiB": {MeasureBytes, 1 << 30},
	"kB": {MeasureBytes, 1e3}, "MB": {MeasureBytes, 1e6}, "GB": {MeasureBytes, 1e9},
	"alloc": {MeasureAllocs, 1}, "allocs": {MeasureAllocs, 1},
	"goroutine": {MeasureGoroutines, 1}, "goroutines": {MeasureGoroutines, 1},
	"instr": {MeasureInstructions, 1}, "instruction": {MeasureInstructions, 1}, "instructions": {MeasureInstructions, 1},
	"cycle": {MeasureCycles, 1}, "cycles": {MeasureCycles, 1},
}

// thresholdSyntax splits a threshold into its number (without the
// optional leading +) and what follows it.
var thresholdSyntax = regexp.MustCompile(`^\+?((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(.*)$`)

// ParseThreshold parses a threshold as a user writes it:
//
//   - "+N%": relative, N percent of the base value;
//   - "+N" followed by the unit of an absolute amount: time ("+500ns",
//     "+1.5us" or "+1.5µs", "+10ms", "+1s"), bytes ("+512B", "+4KiB",
//     "+1MiB", "+1GiB"; "+2kB", "+2MB", "+2GB" are powers of 1000) or a
//     count ("+1allocs", "+2goroutines"); a space may separate the number
//     and its unit;
//   - "+0": no increase at all (relative and absolute agree);
//   - "off": not gated.
//
// The sign is optional; a threshold cannot be negative. A bare non-zero
// number is an error: "sec/op: 10" would mean ten seconds, not ten
// percent, so the threshold must say which it is. "m" is an error too:
// minutes to time.ParseDuration, milli in benchstat's tables. Whether an
// absolute amount fits a unit (time for sec/op, bytes for B/op and
// retained-B) is checked where the threshold is set (Policy.SetMax,
// ParseMax, ParseConfig); see MeasureOf.
func ParseThreshold(s string) (Threshold, error) {
	return parseThreshold("", s)
}

// parseThreshold is ParseThreshold with the unit the threshold is for, if
// known: the hints name that unit's amounts and an amount of another
// measure is an error.
func parseThreshold(unit, s string) (Threshold, error) {
	t := strings.TrimSpace(s)
	if t == "off" || t == "none" {
		return Threshold{Off: true}, nil
	}
	want := MeasureOf(unit)
	bad := func(why string) (Threshold, error) {
		return Threshold{}, fmt.Errorf("threshold %q: %s; want +N%% (relative to the base), %s (absolute) or off", s, why, exampleAmount(want, "N"))
	}
	m := thresholdSyntax.FindStringSubmatch(t)
	if m == nil {
		if strings.HasPrefix(t, "-") {
			return bad("a threshold cannot be negative")
		}
		return bad("not a number")
	}
	num, suffix := m[1], m[2]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) {
		return bad("not a number")
	}
	var th Threshold
	switch a, ok := amounts[suffix]; {
	case suffix == "%":
		return Threshold{Value: v, Relative: true}, nil
	case suffix == "":
		if v != 0 {
			return Threshold{}, fmt.Errorf("threshold %q: a bare number is ambiguous; write +%s%% (relative to the base) or %s (absolute)",
				s, num, exampleAmount(want, num))
		}
		return Threshold{}, nil
	case suffix == "m" || suffix == "h":
		return bad(fmt.Sprintf("%q is ambiguous (minutes or hours to Go, milli in benchstat's tables): write ms or s", suffix))
	case !ok:
		return bad(fmt.Sprintf("unknown amount %q", suffix))
	default:
		th = Threshold{Value: v * a.factor, Measure: a.measure}
	}
	if th.Value == 0 {
		th.Measure = ""
	}
	if unit != "" {
		if err := th.check(unit); err != nil {
			return Threshold{}, fmt.Errorf("threshold %q: %w", s, err)
		}
	}
	return th, nil
}

// check reports whether t can be the threshold of unit.
func (t Threshold) check(unit string) error {
	switch {
	case math.IsNaN(t.Value) || math.IsInf(t.Value, 0):
		return fmt.Errorf("%s: threshold %v is not a number", unit, t.Value)
	case t.Value < 0:
		return fmt.Errorf("%s: negative threshold", unit)
	case t.Off || t.Relative || t.Value == 0:
		return nil
	case t.Measure == "":
		return fmt.Errorf("%s: absolute threshold %v has no Measure (seconds, bytes, ...)", unit, t.Value)
	case MeasureOf(unit) == "":
		return fmt.Errorf("%s takes relative thresholds only: write +N%%", unit)
	case t.Measure != MeasureOf(unit):
		return fmt.Errorf("%s is measured in %s, not %s: write +N%% or %s", unit, measureName(MeasureOf(unit)), measureName(t.Measure), exampleAmount(MeasureOf(unit), "N"))
	}
	return nil
}

func measureName(m string) string {
	switch m {
	case MeasureSeconds:
		return "time"
	case MeasureBytes:
		return "bytes"
	case MeasureAllocs:
		return "allocations"
	}
	return m
}

// MustThreshold is ParseThreshold for constants; it panics on error.
func MustThreshold(s string) Threshold {
	th, err := ParseThreshold(s)
	if err != nil {
		panic(err)
	}
	return th
}

// String formats t as ParseThreshold reads it: "+2%", "+0", "+10ms",
// "+4KiB", "+1allocs", "off".
func (t Threshold) String() string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case t.Off:
		return "off"
	case t.Relative:
		return "+" + num(t.Value) + "%"
	case t.Value == 0 || t.Measure == "":
		return "+" + num(t.Value)
	case t.Measure == MeasureSeconds:
		return "+" + scaled(t.Value, []string{"s", "ms", "µs", "ns"})
	case t.Measure == MeasureBytes:
		return "+" + scaled(t.Value, []string{"GiB", "MiB", "KiB", "B"})
	}
	return "+" + num(t.Value) + t.Measure
}

// scaled writes v with the first of suffixes (largest first; see amounts)
// in which it is at least 1, to 12 significant digits: exact for what
// ParseThreshold reads, without float noise such as 10.000000000000002.
func scaled(v float64, suffixes []string) string {
	for i, u := range suffixes {
		x := v / amounts[u].factor
		if x >= 1 || i == len(suffixes)-1 {
			return strconv.FormatFloat(x, 'g', 12, 64) + u
		}
	}
	return ""
}

// Allowed returns the largest change from base that t allows, in the
// unit. A relative threshold is taken of |base|, so that it stays
// meaningful for the rare negative base (retained heap can shrink).
func (t Threshold) Allowed(base float64) float64 {
	if t.Off {
		return math.Inf(1)
	}
	if t.Relative {
		return math.Abs(base) * t.Value / 100
	}
	return t.Value
}

// Exceeds reports whether head is worse than base by more than t allows,
// for a lower-is-better metric.
func (t Threshold) Exceeds(base, head float64) bool {
	return !t.Off && head-base > t.Allowed(base)
}

// Beats reports whether head is better than base by more than t allows
// either way: the mirror image of Exceeds.
func (t Threshold) Beats(base, head float64) bool {
	return !t.Off && base-head > t.Allowed(base)
}

// Thresholds maps units to their thresholds. It is the policy file's
// "max" mapping (UnmarshalYAML, which adds to the thresholds already
// there) and the value of the repeatable flag --max UNIT=THRESHOLD (Set).
type Thresholds map[string]Threshold

// UnmarshalYAML reads a mapping of unit: threshold, checking each unit
// and that its threshold fits it; errors name the unit and its node.
func (t *Thresholds) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return yamlfile.NodeErrorf(n, "", "want a mapping of unit: threshold (such as sec/op: +10%%), found %s", yamlfile.KindName(n))
	}
	if len(n.Content) == 0 {
		return yamlfile.NodeErrorf(n, "", "empty: no threshold set; leave it out for the defaults")
	}
	var errs []error
	got, where := Thresholds{}, map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		unit, err := CheckUnit(k.Value)
		switch first, again := where[unit]; {
		case err != nil:
			errs = append(errs, yamlfile.NodeErrorf(k, k.Value, "%v", err))
		case again:
			errs = append(errs, yamlfile.NodeErrorf(k, k.Value, "sets %s again (first as %s at line %d, column %d)", unit, first.Value, first.Line, first.Column))
		case v.Kind != yaml.ScalarNode || v.Tag == "!!null":
			errs = append(errs, yamlfile.NodeErrorf(v, k.Value, "want a threshold (+N%%, %s or off), found %s", exampleAmount(MeasureOf(unit), "N"), yamlfile.KindName(v)))
		default:
			where[unit] = k
			th, err := parseThreshold(unit, v.Value)
			if err != nil {
				errs = append(errs, yamlfile.NodeErrorf(v, k.Value, "%v", err))
			}
			got[unit] = th
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if *t == nil {
		*t = Thresholds{}
	}
	maps.Copy(*t, got)
	return nil
}

// MarshalYAML writes the thresholds in the order of Units, quoted.
func (t Thresholds) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, u := range Units {
		if th, ok := t[u]; ok {
			n.Content = append(n.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Value: u},
				&yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: th.String()})
		}
	}
	return n, nil
}

// Set adds a threshold given as UNIT=THRESHOLD (see ParseMax); a unit set
// twice is an error. It makes Thresholds a pflag.Value.
func (t *Thresholds) Set(s string) error {
	unit, th, err := ParseMax(s)
	if err != nil {
		return err
	}
	if _, ok := (*t)[unit]; ok {
		return fmt.Errorf("%s is already set by an earlier --max", unit)
	}
	if *t == nil {
		*t = Thresholds{}
	}
	(*t)[unit] = th
	return nil
}

// String returns the thresholds as UNIT=THRESHOLD pairs, comma-separated,
// in the order of Units.
func (t *Thresholds) String() string {
	var parts []string
	for _, u := range Units {
		if th, ok := (*t)[u]; ok {
			parts = append(parts, u+"="+th.String())
		}
	}
	return strings.Join(parts, ",")
}

// Type names the flag's value in help texts.
func (t *Thresholds) Type() string { return "UNIT=THRESHOLD" }

// validate checks each unit and that its threshold fits it.
func (t Thresholds) validate() error {
	var errs []error
	for _, u := range slices.Sorted(maps.Keys(t)) {
		if tidy, err := CheckUnit(u); err != nil {
			errs = append(errs, yamlfile.Errorf(u, "%v", err))
		} else if tidy != u {
			errs = append(errs, yamlfile.Errorf(u, "unknown unit %q (known: %s)", u, strings.Join(Units, ", ")))
		} else if err := t[u].check(u); err != nil {
			errs = append(errs, yamlfile.Errorf(u, "%v", err))
		}
	}
	return errors.Join(errs...)
}

// ParseMax parses a --max flag value, "UNIT=THRESHOLD" such as
// "allocs/op=+0%" or "sec/op=+2ms"; "ns/op" is read as "sec/op". The unit
// must be one of Units and an absolute threshold must be an amount of its
// measure (see ParseThreshold).
func ParseMax(s string) (unit string, th Threshold, err error) {
	u, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", Threshold{}, errors.New("want UNIT=THRESHOLD, e.g. allocs/op=+0% or sec/op=+10%")
	}
	if unit, err = CheckUnit(strings.TrimSpace(u)); err != nil {
		return "", Threshold{}, err
	}
	th, err = parseThreshold(unit, v)
	return unit, th, err
}

// CheckUnit returns unit tidied ("ns/op" becomes "sec/op", "cpu-ns/op"
// "cpu-sec/op"), or an error if the gate cannot gate it: a unit package
// results does not know, or one where higher is better.
func CheckUnit(unit string) (string, error) {
	info, ok := results.Info(unit)
	switch {
	case !ok:
		return "", fmt.Errorf("unknown unit %q (known: %s)", unit, strings.Join(Units, ", "))
	case info.Better != results.LowerIsBetter:
		return "", fmt.Errorf("unit %q: higher is better, and the gate gates costs only (%s)", unit, strings.Join(Units, ", "))
	}
	return info.Tidy, nil
}

// An Override sets thresholds for the benchmarks whose scenario and store
// match its patterns (path.Match globs; empty matches anything).
type Override struct {
	Scenario string `yaml:"scenario,omitempty" json:"scenario,omitempty"`
	Store    string `yaml:"store,omitempty" json:"store,omitempty"`
	// Max maps units to their thresholds for the matching benchmarks.
	Max Thresholds `yaml:"max,omitempty" json:"max,omitempty"`
}

// Matches reports whether o applies to the benchmark of scenario and
// store.
func (o Override) Matches(scenario, store string) bool {
	return glob(o.Scenario, scenario) && glob(o.Store, store)
}

func glob(pattern, name string) bool {
	if pattern == "" || pattern == "*" {
		return true
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

// A Policy says what the gate calls a regression and how it treats
// incomplete data. Make one with DefaultPolicy, ParseConfig or LoadConfig
// and adjust it; the zero Policy gates nothing. The yaml tags are the
// keys of the policy file's "gate" section (see ParseConfig), and the
// flags of certbench gate are named after them (see ResolvePolicy): a new
// setting is a new field.
type Policy struct {
	// Alpha is the significance level of each metric's family of tests
	// (0 means DefaultAlpha here; a policy file or flag must give a
	// level in (0, 1)).
	Alpha float64 `yaml:"alpha" json:"alpha"`

	// MinSamples is the fewest samples per side for a statistical
	// comparison (0 means DefaultMinSamples here; a policy file or flag
	// must give at least MinSamplesFor(Alpha)). Fewer is a failure, not a
	// pass: see Evaluate.
	MinSamples int `yaml:"min_samples" json:"min_samples"`

	// Correction for multiple comparisons ("" means Holm).
	Correction Correction `yaml:"correction" json:"correction"`

	// Test chooses the test of samples that are not exact: AutoTest
	// ("" means AutoTest), PairedTest or UnpairedTest.
	Test TestChoice `yaml:"test" json:"test"`

	// AllowMissing turns benchmarks or metrics missing from head into
	// warnings instead of failures.
	AllowMissing bool `yaml:"allow_missing" json:"allow_missing"`

	// Strict turns a machine or Go version mismatch between base and
	// head into a failure instead of a warning.
	Strict bool `yaml:"strict" json:"strict"`

	// AllowDifferentCerts gates base and head measured on different
	// certificates (certs-count or certs-fingerprint differ, see
	// shape.go) with a warning, instead of refusing them.
	AllowDifferentCerts bool `yaml:"allow_different_certs" json:"allow_different_certs"`

	// AllowDifferentScenarios gates a scenario whose definition differs
	// between base and head (its scenario-hash lines differ, see
	// shape.go) with a warning, instead of refusing them.
	AllowDifferentScenarios bool `yaml:"allow_different_scenarios" json:"allow_different_scenarios"`

	// Max maps units to their thresholds. A unit with no threshold is
	// not gated, except that retained-B/cert follows retained-B when it
	// has no threshold of its own.
	Max Thresholds `yaml:"max,omitempty" json:"max,omitempty"`

	// Overrides refine Max for some scenarios or stores. For each
	// benchmark and unit the last matching override that sets the unit
	// wins; then Max.
	Overrides []Override `yaml:"overrides,omitempty" json:"overrides,omitempty"`

	// SampleTimeout is not the gate's: it bounds one sample of certbench
	// run (run --config reads it; scripts/certbench-ci.sh passes its
	// policy), after which the store under test is taken to have hung.
	// 0 means run's default.
	SampleTimeout time.Duration `yaml:"sample_timeout,omitempty" json:"sample_timeout,omitempty"`

	// Source says where the policy came from, for the report's policy
	// line ("certbench.yaml (found in the working directory)", "built-in
	// defaults"); empty leaves it out.
	Source string `yaml:"-" json:"-"`
}

// DefaultPolicy returns the default thresholds: allocs/op +0%, B/op +2%,
// sec/op +10%, retained-B +2% (and retained-B/cert with it), goroutines
// +0 (absolute), instructions/op DefaultInstructionsMax and est-cycles/op
// DefaultEstCyclesMax (the simulated CPU's units: results without them
// leave them ungated), with DefaultAlpha, DefaultMinSamples, Holm's
// correction and AutoTest. cpu-sec/op is not gated by default: results from a
// certbench that predates it would otherwise make every comparison with
// them a new metric, and on a quiet machine it tells the same story as
// sec/op; a policy file turns it on (as this repository's certbench.yaml
// does).
func DefaultPolicy() Policy {
	return Policy{
		Max: Thresholds{
			results.UnitAllocs:       MustThreshold("+0%"),
			results.UnitBytes:        MustThreshold("+2%"),
			results.UnitSec:          MustThreshold("+10%"),
			results.UnitRetained:     MustThreshold("+2%"),
			results.UnitGoroutines:   MustThreshold("+0"),
			results.UnitInstructions: MustThreshold(DefaultInstructionsMax),
			results.UnitEstCycles:    MustThreshold(DefaultEstCyclesMax),
		},
		Alpha:      DefaultAlpha,
		MinSamples: DefaultMinSamples,
		Correction: Holm,
		Test:       AutoTest,
	}
}

// Clone returns a deep copy of p, so that flags can adjust a policy read
// from a file without changing it.
func (p Policy) Clone() Policy {
	q := p
	q.Max = cloneMax(p.Max)
	q.Overrides = make([]Override, len(p.Overrides))
	for i, o := range p.Overrides {
		o.Max = cloneMax(o.Max)
		q.Overrides[i] = o
	}
	if p.Overrides == nil {
		q.Overrides = nil
	}
	return q
}

func cloneMax(m Thresholds) Thresholds { return maps.Clone(m) }

// SetMax sets the top-level threshold of unit ("ns/op" is read as
// "sec/op"), as the --max flag does. It fails if the unit is unknown or
// th does not fit it (an absolute amount of another measure, a negative
// value).
func (p *Policy) SetMax(unit string, th Threshold) error {
	unit, err := CheckUnit(unit)
	if err != nil {
		return err
	}
	if err := th.check(unit); err != nil {
		return err
	}
	if p.Max == nil {
		p.Max = Thresholds{}
	}
	p.Max[unit] = th
	return nil
}

// Threshold returns the threshold of unit for the benchmark of scenario
// and store, and whether the unit is gated there.
func (p *Policy) Threshold(scenario, store, unit string) (Threshold, bool) {
	if th, ok := p.explicit(scenario, store, unit); ok {
		return th, !th.Off
	}
	if unit == results.UnitRetainedPerCert {
		if th, ok := p.explicit(scenario, store, results.UnitRetained); ok {
			return th, !th.Off
		}
	}
	return Threshold{}, false
}

func (p *Policy) explicit(scenario, store, unit string) (Threshold, bool) {
	for i := len(p.Overrides) - 1; i >= 0; i-- {
		o := p.Overrides[i]
		if th, ok := o.Max[unit]; ok && o.Matches(scenario, store) {
			return th, true
		}
	}
	th, ok := p.Max[unit]
	return th, ok
}

// MinSamplesFor returns the fewest samples per side with which a
// two-sided Mann-Whitney U test can reach a p-value below alpha at all
// (4 at alpha 0.05, 5 at 0.01), and at least results.MinExactSamples. A smaller
// MinSamples would change nothing: Evaluate reports such comparisons as
// TooFewSamples anyway. It returns 0 if alpha is not in (0, 1).
func MinSamplesFor(alpha float64) int {
	if !(alpha > 0 && alpha < 1) {
		return 0
	}
	n := results.MinExactSamples
	for minP(n, n) >= alpha {
		n++
	}
	return n
}

// withDefaults fills zero fields and checks the policy.
func (p Policy) withDefaults() (Policy, error) {
	if p.Alpha == 0 {
		p.Alpha = DefaultAlpha
	}
	if p.MinSamples == 0 {
		p.MinSamples = DefaultMinSamples
	}
	if p.Correction == "" {
		p.Correction = Holm
	}
	if p.Test == "" {
		p.Test = AutoTest
	}
	return p, p.named(p.validate(false), func(key string) string { return key })
}

// validate checks p, each error a *yamlfile.FieldError naming the field by
// its key. A policy file or flags are held to more (strict): min_samples
// at least MinSamplesFor(alpha), and no override that sets nothing or
// matches every benchmark.
func (p Policy) validate(strict bool) error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, yamlfile.Errorf(key, format, args...))
	}
	zero := func(def any) string { // 0 only reaches here from a file or flag
		return fmt.Sprintf(" (0 is not the default: leave it out for %v)", def)
	}
	switch {
	case p.Alpha == 0:
		bad("alpha", "want a significance level between 0 and 1 (exclusive), such as %v%s", DefaultAlpha, zero(DefaultAlpha))
	case !(p.Alpha > 0 && p.Alpha < 1):
		bad("alpha", "want a significance level between 0 and 1 (exclusive), such as %v", DefaultAlpha)
	}
	least := results.MinExactSamples
	if strict && p.Alpha > 0 && p.Alpha < 1 {
		least = MinSamplesFor(p.Alpha)
	}
	switch {
	case p.MinSamples == 0:
		bad("min_samples", "want at least %d%s", least, zero(DefaultMinSamples))
	case p.MinSamples < results.MinExactSamples:
		bad("min_samples", "want at least %d", least)
	case p.MinSamples < least:
		bad("min_samples", "the U test cannot reach p < %g with fewer than %d samples a side; want at least %d", p.Alpha, least, least)
	}
	if p.Correction != Holm && p.Correction != NoCorrection {
		bad("correction", "want %s or %s", Holm, NoCorrection)
	}
	if _, err := ParseTestChoice(string(p.Test)); err != nil {
		bad("test", "want auto, paired or unpaired")
	}
	if p.SampleTimeout < 0 {
		bad("sample_timeout", "want a time such as 10m (leave it out for run's default)")
	}
	errs = append(errs, yamlfile.Within("max", p.Max.validate()))
	for i, o := range p.Overrides {
		at := fmt.Sprintf("overrides[%d]", i)
		for key, pat := range map[string]string{"scenario": o.Scenario, "store": o.Store} {
			if _, err := path.Match(pat, ""); err != nil {
				bad(at+"."+key, "%v", err)
			}
		}
		switch {
		case !strict:
		case len(o.Max) == 0:
			bad(at, "no max: the override sets nothing")
		case (o.Scenario == "" || o.Scenario == "*") && (o.Store == "" || o.Store == "*"):
			bad(at, "matches every benchmark (no scenario or store pattern); put its thresholds under gate.max")
		}
		errs = append(errs, yamlfile.Within(at+".max", o.Max.validate()))
	}
	return errors.Join(errs...)
}

// named renders the errors of validate for a policy that was not read
// from a file: each names its setting with name(key), followed by the
// value of a scalar setting ("alpha 2: want ...", "--alpha 2: want ...").
func (p Policy) named(err error, name func(key string) string) error {
	var out []error
	for _, e := range yamlfile.Flatten(err) {
		var fe *yamlfile.FieldError
		if errors.As(e, &fe) {
			v, ok := p.setting(fe.Field)
			switch {
			case !ok || v.Kind() == reflect.Map || v.Kind() == reflect.Slice:
				e = fmt.Errorf("%s: %w", name(fe.Field), fe.Err)
			case v.Kind() == reflect.String:
				e = fmt.Errorf("%s %q: %w", name(fe.Field), v.Interface(), fe.Err)
			default:
				e = fmt.Errorf("%s %v: %w", name(fe.Field), v.Interface(), fe.Err)
			}
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// setting returns the field of p whose policy file key is key.
func (p *Policy) setting(key string) (reflect.Value, bool) {
	i := slices.Index(settingKeys(), key)
	if i < 0 || key == "-" {
		return reflect.Value{}, false
	}
	return reflect.ValueOf(p).Elem().Field(i), true
}

// settingKeys returns the policy file key of each field of Policy, in
// order ("-" for Source).
func settingKeys() []string {
	t := reflect.TypeFor[Policy]()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
	}
	return keys
}
