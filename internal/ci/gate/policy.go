package gate

import (
	"cmp"
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

// Units lists the units the gate can gate (lower-is-better, tidied), in report order.
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

// The default thresholds of the simulated CPU's units (docs/gate.md).
const (
	DefaultInstructionsMax = "+0.25%"
	DefaultEstCyclesMax    = "+1%"
)

// DefaultReleasedHeldMax is released-held-B's default threshold: its base
// is about 0 for a store that lets go, so a share of it would be noise.
const DefaultReleasedHeldMax = "+16KiB"

// Defaults of a Policy's scalar fields (docs/gate.md).
const (
	DefaultAlpha      = 0.05
	DefaultMinSamples = 4
	// DefaultHistoryCommits is how many of main's commits gate --history
	// judges a head against.
	DefaultHistoryCommits = 10
)

// Correction is how one metric's p-values are corrected for multiple comparisons.
type Correction string

// The corrections (docs/gate.md).
const (
	Holm         Correction = "holm"
	NoCorrection Correction = "none"
)

// A Threshold is the largest increase of a metric that is not a regression.
type Threshold struct {
	// Value is a percentage if Relative, else an amount of Measure's base unit.
	Value    float64
	Relative bool
	Off      bool // not gated
	// Measure is what an absolute, non-zero Value counts (MeasureOf the unit).
	Measure string
}

// MarshalText writes t as it reads: "+10%", "+2ms", "off".
func (t Threshold) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (t *Threshold) UnmarshalText(b []byte) error {
	th, err := ParseThreshold(string(b))
	*t = th
	return err
}

// The measures of absolute thresholds.
const (
	MeasureSeconds      = "s"
	MeasureBytes        = "B"
	MeasureAllocs       = "allocs"
	MeasureGoroutines   = "goroutines"
	MeasureInstructions = "instructions"
	MeasureCycles       = "cycles"
)

// MeasureOf returns the measure of an absolute threshold for unit, or "" if none.
func MeasureOf(unit string) string {
	info, ok := results.Info(unit)
	if !ok {
		return ""
	}
	switch u := info.Tidy; {
	case u == results.UnitAllocs:
		return MeasureAllocs
	case u == results.UnitGoroutines || u == results.UnitHeldGoroutinesPerGen || u == results.UnitReleasedHeldGoroutines:
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

// measures names each measure, its example suffix and String's scale (largest first).
var measures = map[string]struct {
	name, example string
	scale         []string
}{
	MeasureSeconds:    {"time", "ms", []string{"s", "ms", "µs", "ns"}},
	MeasureBytes:      {"bytes", "KiB", []string{"GiB", "MiB", "KiB", "B"}},
	MeasureAllocs:     {"allocations", MeasureAllocs, nil},
	MeasureGoroutines: {MeasureGoroutines, MeasureGoroutines, nil}, MeasureInstructions: {MeasureInstructions, MeasureInstructions, nil},
	MeasureCycles: {MeasureCycles, MeasureCycles, nil},
}

// exampleAmount writes an absolute threshold of n in measure m, for messages.
func exampleAmount(m, n string) string {
	if ms, ok := measures[m]; ok {
		return "+" + n + ms.example
	}
	return "+" + n + "ms, +" + n + "KiB, +" + n + "allocs, +" + n + "goroutines or +" + n + "instructions"
}

// amounts are the suffixes of absolute thresholds: measure and factor to its base unit.
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

// thresholdSyntax splits a threshold into its number and suffix.
var thresholdSyntax = regexp.MustCompile(`^\+?((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(.*)$`)

// ParseThreshold parses a threshold as docs/gate.md writes it ("+10%", "+2ms", "off").
func ParseThreshold(s string) (Threshold, error) {
	return parseThreshold("", s)
}

// parseThreshold is ParseThreshold, checking the amount fits unit if known.
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
	a, ok := amounts[suffix]
	switch {
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
	}
	th := Threshold{Value: v * a.factor, Measure: a.measure}
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

func measureName(m string) string { return cmp.Or(measures[m].name, m) }

// MustThreshold is ParseThreshold for constants; it panics on error.
func MustThreshold(s string) Threshold {
	th, err := ParseThreshold(s)
	if err != nil {
		panic(err)
	}
	return th
}

// String formats t as ParseThreshold reads it.
func (t Threshold) String() string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case t.Off:
		return "off"
	case t.Relative:
		return "+" + num(t.Value) + "%"
	case t.Value == 0 || t.Measure == "":
		return "+" + num(t.Value)
	case measures[t.Measure].scale != nil:
		return "+" + scaled(t.Value, measures[t.Measure].scale)
	}
	return "+" + num(t.Value) + t.Measure
}

// scaled writes v in the largest suffix it is at least 1 of, to 12 digits (no float noise).
func scaled(v float64, suffixes []string) string {
	for i, u := range suffixes {
		x := v / amounts[u].factor
		if x >= 1 || i == len(suffixes)-1 {
			return strconv.FormatFloat(x, 'g', 12, 64) + u
		}
	}
	return ""
}

// Allowed returns the largest change from base t allows; relative to |base|, as retained heap can be negative.
func (t Threshold) Allowed(base float64) float64 {
	if t.Off {
		return math.Inf(1)
	}
	if t.Relative {
		return math.Abs(base) * t.Value / 100
	}
	return t.Value
}

// Exceeds reports whether head is worse (higher) than base by more than t allows.
func (t Threshold) Exceeds(base, head float64) bool {
	return !t.Off && head-base > t.Allowed(base)
}

// Beats is the mirror image of Exceeds: head better by more than t.
func (t Threshold) Beats(base, head float64) bool {
	return !t.Off && base-head > t.Allowed(base)
}

// Thresholds maps units to their thresholds: the policy file's "max" and the flag --max.
type Thresholds map[string]Threshold

// UnmarshalYAML reads a mapping of unit: threshold, checking both.
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

// Set adds a threshold given as UNIT=THRESHOLD (ParseMax), once per unit.
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

// String returns the thresholds as UNIT=THRESHOLD pairs in Units order.
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

// ParseMax parses a --max value, "UNIT=THRESHOLD" such as "sec/op=+2ms".
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

// CheckUnit returns unit tidied, or an error if it is unknown or higher-is-better.
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

// An Override sets thresholds where scenario and store match its path.Match globs.
type Override struct {
	Scenario string     `yaml:"scenario,omitempty" json:"scenario,omitempty"`
	Store    string     `yaml:"store,omitempty" json:"store,omitempty"`
	Max      Thresholds `yaml:"max,omitempty" json:"max,omitempty"`
}

// Matches reports whether o applies to the benchmark of scenario and store.
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

// A Policy says what the gate calls a regression (docs/gate.md); the zero Policy
// gates nothing. The yaml tags are the policy file's keys and name gate's flags.
type Policy struct {
	Alpha                   float64    `yaml:"alpha" json:"alpha"`
	MinSamples              int        `yaml:"min_samples" json:"min_samples"`
	Correction              Correction `yaml:"correction" json:"correction"`
	Test                    TestChoice `yaml:"test" json:"test"`
	AllowMissing            bool       `yaml:"allow_missing" json:"allow_missing"`
	Strict                  bool       `yaml:"strict" json:"strict"`
	AllowDifferentCerts     bool       `yaml:"allow_different_certs" json:"allow_different_certs"`
	AllowDifferentScenarios bool       `yaml:"allow_different_scenarios" json:"allow_different_scenarios"`
	// HistoryCommits is how many of main's latest commits gate --history
	// makes the base of (docs/gate.md, "Against history").
	HistoryCommits int `yaml:"history_commits" json:"history_commits"`
	// Max maps units to thresholds; retained-B/cert follows retained-B unless set.
	Max Thresholds `yaml:"max,omitempty" json:"max,omitempty"`
	// Overrides refine Max: the last matching override that sets a unit wins.
	Overrides []Override `yaml:"overrides,omitempty" json:"overrides,omitempty"`
	// SampleTimeout is run's, not the gate's: it bounds one sample.
	SampleTimeout time.Duration `yaml:"sample_timeout,omitempty" json:"sample_timeout,omitempty"`
	// Source says where the policy came from, for the report's policy line.
	Source string `yaml:"-" json:"-"`
}

// DefaultPolicy returns the defaults of docs/gate.md. cpu-sec/op is not gated: results
// without it would make it a new metric in every comparison.
func DefaultPolicy() Policy {
	return Policy{
		Max: Thresholds{
			results.UnitAllocs:     MustThreshold("+0%"),
			results.UnitBytes:      MustThreshold("+2%"),
			results.UnitSec:        MustThreshold("+10%"),
			results.UnitRetained:   MustThreshold("+2%"),
			results.UnitGoroutines: MustThreshold("+0"),
			// The held units as retained-B and goroutines; released-held-B's
			// base is about 0, so it gets an amount (docs/gate.md).
			results.UnitHeldPerGen:             MustThreshold("+2%"),
			results.UnitHeldGoroutinesPerGen:   MustThreshold("+0"),
			results.UnitReleasedHeld:           MustThreshold(DefaultReleasedHeldMax),
			results.UnitReleasedHeldGoroutines: MustThreshold("+0"),
			results.UnitInstructions:           MustThreshold(DefaultInstructionsMax),
			results.UnitEstCycles:              MustThreshold(DefaultEstCyclesMax),
		},
		Alpha:          DefaultAlpha,
		MinSamples:     DefaultMinSamples,
		Correction:     Holm,
		Test:           AutoTest,
		HistoryCommits: DefaultHistoryCommits,
	}
}

// Clone returns a deep copy of p, for flags to adjust.
func (p Policy) Clone() Policy {
	q := p
	q.Max = maps.Clone(p.Max)
	q.Overrides = slices.Clone(p.Overrides)
	for i := range q.Overrides {
		q.Overrides[i].Max = maps.Clone(q.Overrides[i].Max)
	}
	return q
}

// Threshold returns unit's threshold for scenario and store, and whether it is gated.
func (p *Policy) Threshold(scenario, store, unit string) (Threshold, bool) {
	th, ok := p.explicit(scenario, store, unit)
	if !ok && unit == results.UnitRetainedPerCert {
		th, ok = p.explicit(scenario, store, results.UnitRetained)
	}
	return th, ok && !th.Off
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

// MinSamplesFor returns the fewest samples a side for the U test to reach p < alpha.
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
	p.Alpha, p.MinSamples = cmp.Or(p.Alpha, DefaultAlpha), cmp.Or(p.MinSamples, DefaultMinSamples)
	p.Correction, p.Test = cmp.Or(p.Correction, Holm), cmp.Or(p.Test, AutoTest)
	p.HistoryCommits = cmp.Or(p.HistoryCommits, DefaultHistoryCommits)
	return p, p.named(p.validate(false))
}

// validate checks p, each error a *yamlfile.FieldError; strict (a file) checks more.
func (p Policy) validate(strict bool) error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, yamlfile.Errorf(key, format, args...))
	}
	zero := func(def any) string { // 0 only reaches here from a file
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
	switch {
	case p.HistoryCommits == 0:
		bad("history_commits", "want at least min_samples (%d) commits%s", p.MinSamples, zero(DefaultHistoryCommits))
	case p.HistoryCommits < p.MinSamples:
		bad("history_commits", "want at least min_samples (%d): a clock's base is one value per commit", p.MinSamples)
	}
	if p.Correction != Holm && p.Correction != NoCorrection {
		bad("correction", "want %s or %s", Holm, NoCorrection)
	}
	if !slices.Contains(TestChoices, p.Test) {
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

// named renders validate's errors as the key and its value ("alpha 2: want ...").
func (p Policy) named(err error) error {
	var out []error
	for _, e := range yamlfile.Flatten(err) {
		var fe *yamlfile.FieldError
		if errors.As(e, &fe) {
			v, ok := p.setting(fe.Field)
			switch {
			case !ok || v.Kind() == reflect.Map || v.Kind() == reflect.Slice:
				e = fmt.Errorf("%s: %w", fe.Field, fe.Err)
			case v.Kind() == reflect.String:
				e = fmt.Errorf("%s %q: %w", fe.Field, v.Interface(), fe.Err)
			default:
				e = fmt.Errorf("%s %v: %w", fe.Field, v.Interface(), fe.Err)
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

// settingKeys returns the policy file key of each field of Policy.
func settingKeys() []string {
	t := reflect.TypeFor[Policy]()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
	}
	return keys
}

// SetMax sets the top-level threshold of unit, as --max does.
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
