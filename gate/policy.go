package gate

import (
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// The units the gate knows. Results may carry other units; they are not
// gated.
const (
	UnitSec             = "sec/op"
	UnitBytes           = "B/op"
	UnitAllocs          = "allocs/op"
	UnitRetained        = "retained-B"
	UnitRetainedPerCert = "retained-B/cert"
	UnitGoroutines      = "goroutines"
)

// Units lists the units the gate knows, in report order.
var Units = []string{UnitSec, UnitBytes, UnitAllocs, UnitRetained, UnitRetainedPerCert, UnitGoroutines}

// CountUnits are the units that count things a fixed number of ops did
// (bytes, objects, goroutines). When every sample on each side has the
// same value, the gate compares them exactly, with no statistical test.
var CountUnits = []string{UnitBytes, UnitAllocs, UnitGoroutines}

// Defaults of a Policy's scalar fields.
const (
	// DefaultAlpha is the significance level of each metric's family of
	// tests.
	DefaultAlpha = 0.05
	// DefaultMinSamples is the fewest samples per side for a statistical
	// comparison: the Mann-Whitney U test cannot reach p < 0.05 with
	// fewer than 4.
	DefaultMinSamples = 4
	// MinExactSamples is the fewest samples per side for an exact
	// comparison: with one sample there is no evidence that the metric
	// is deterministic.
	MinExactSamples = 2
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
// regression: relative to the base (Percent) or absolute (in the unit,
// seconds for sec/op). The zero Threshold allows no increase at all.
type Threshold struct {
	// Value is the allowed increase: a percentage if Relative, else an
	// amount of the unit.
	Value float64
	// Relative makes Value a percentage of the base value.
	Relative bool
	// Off means the metric is not gated.
	Off bool
}

// ParseThreshold parses "+2%" (relative), "+0" or "+1024" (absolute, in
// the unit) or "off". The sign is optional; a threshold cannot be
// negative.
func ParseThreshold(s string) (Threshold, error) {
	t := strings.TrimSpace(s)
	if t == "off" || t == "none" {
		return Threshold{Off: true}, nil
	}
	var th Threshold
	if rest, ok := strings.CutSuffix(t, "%"); ok {
		th.Relative = true
		t = rest
	}
	t = strings.TrimPrefix(t, "+")
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") || math.IsNaN(v) || math.IsInf(v, 0) {
		return Threshold{}, fmt.Errorf("threshold %q: want +N%% (relative), +N (absolute, in the unit) or off", s)
	}
	th.Value = v
	return th, nil
}

// MustThreshold is ParseThreshold for constants; it panics on error.
func MustThreshold(s string) Threshold {
	th, err := ParseThreshold(s)
	if err != nil {
		panic(err)
	}
	return th
}

// String formats t as ParseThreshold reads it: "+2%", "+0", "off".
func (t Threshold) String() string {
	switch {
	case t.Off:
		return "off"
	case t.Relative:
		return "+" + strconv.FormatFloat(t.Value, 'g', -1, 64) + "%"
	}
	return "+" + strconv.FormatFloat(t.Value, 'g', -1, 64)
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

// ParseMax parses a --max flag value, "UNIT=THRESHOLD" such as
// "allocs/op=+0%"; "ns/op" is read as "sec/op". The unit must be one of
// Units.
func ParseMax(s string) (unit string, th Threshold, err error) {
	u, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", Threshold{}, fmt.Errorf("--max %q: want UNIT=THRESHOLD, e.g. allocs/op=+0%% or sec/op=+10%%", s)
	}
	unit, err = CheckUnit(strings.TrimSpace(u))
	if err != nil {
		return "", Threshold{}, fmt.Errorf("--max %q: %w", s, err)
	}
	th, err = ParseThreshold(v)
	if err != nil {
		return "", Threshold{}, fmt.Errorf("--max %q: %w", s, err)
	}
	return unit, th, nil
}

// CheckUnit returns unit tidied ("ns/op" becomes "sec/op"), or an error
// if the gate does not know it.
func CheckUnit(unit string) (string, error) {
	if unit == "ns/op" {
		unit = UnitSec
	}
	if !slices.Contains(Units, unit) {
		return "", fmt.Errorf("unknown unit %q (known: %s)", unit, strings.Join(Units, ", "))
	}
	return unit, nil
}

// An Override sets thresholds for the benchmarks whose scenario and store
// match its patterns (path.Match globs; empty matches anything).
type Override struct {
	Scenario string
	Store    string
	// Max maps units to their thresholds for the matching benchmarks.
	Max map[string]Threshold
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
// and adjust it; the zero Policy gates nothing.
type Policy struct {
	// Max maps units to their thresholds. A unit with no threshold is
	// not gated, except that retained-B/cert follows retained-B when it
	// has no threshold of its own.
	Max map[string]Threshold

	// Overrides refine Max for some scenarios or stores. For each
	// benchmark and unit the last matching override that sets the unit
	// wins; then Max.
	Overrides []Override

	// Alpha is the significance level of each metric's family of tests
	// (0 means DefaultAlpha).
	Alpha float64

	// MinSamples is the fewest samples per side for a statistical
	// comparison (0 means DefaultMinSamples). Fewer is a failure, not a
	// pass: see Evaluate.
	MinSamples int

	// Correction for multiple comparisons ("" means Holm).
	Correction Correction

	// AllowMissing turns benchmarks or metrics missing from head into
	// warnings instead of failures.
	AllowMissing bool

	// Strict turns a machine or Go version mismatch between base and
	// head into a failure instead of a warning.
	Strict bool
}

// DefaultPolicy returns the default thresholds: allocs/op +0%, B/op +2%,
// sec/op +10%, retained-B +2% (and retained-B/cert with it), goroutines
// +0 (absolute), with DefaultAlpha, DefaultMinSamples and Holm's
// correction.
func DefaultPolicy() Policy {
	return Policy{
		Max: map[string]Threshold{
			UnitAllocs:     MustThreshold("+0%"),
			UnitBytes:      MustThreshold("+2%"),
			UnitSec:        MustThreshold("+10%"),
			UnitRetained:   MustThreshold("+2%"),
			UnitGoroutines: MustThreshold("+0"),
		},
		Alpha:      DefaultAlpha,
		MinSamples: DefaultMinSamples,
		Correction: Holm,
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

func cloneMax(m map[string]Threshold) map[string]Threshold {
	if m == nil {
		return nil
	}
	out := make(map[string]Threshold, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// SetMax sets the top-level threshold of unit ("ns/op" is read as
// "sec/op"), as the --max flag does.
func (p *Policy) SetMax(unit string, th Threshold) error {
	unit, err := CheckUnit(unit)
	if err != nil {
		return err
	}
	if p.Max == nil {
		p.Max = make(map[string]Threshold)
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
	if unit == UnitRetainedPerCert {
		if th, ok := p.explicit(scenario, store, UnitRetained); ok {
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
	var errs []error
	if !(p.Alpha > 0 && p.Alpha < 1) {
		errs = append(errs, fmt.Errorf("alpha %v: want a level between 0 and 1", p.Alpha))
	}
	if p.MinSamples < 2 {
		errs = append(errs, fmt.Errorf("min samples %d: want at least 2", p.MinSamples))
	}
	if p.Correction != Holm && p.Correction != NoCorrection {
		errs = append(errs, fmt.Errorf("correction %q: want %q or %q", p.Correction, Holm, NoCorrection))
	}
	check := func(where string, m map[string]Threshold) {
		for u, th := range m {
			if _, err := CheckUnit(u); err != nil || u == "ns/op" {
				errs = append(errs, fmt.Errorf("%s: %v", where, fmt.Errorf("unknown unit %q (known: %s)", u, strings.Join(Units, ", "))))
			}
			if th.Value < 0 || math.IsNaN(th.Value) {
				errs = append(errs, fmt.Errorf("%s: %s: negative threshold", where, u))
			}
		}
	}
	check("max", p.Max)
	for i, o := range p.Overrides {
		for _, pat := range []string{o.Scenario, o.Store} {
			if _, err := path.Match(pat, ""); err != nil {
				errs = append(errs, fmt.Errorf("override %d: pattern %q: %v", i+1, pat, err))
			}
		}
		check(fmt.Sprintf("override %d", i+1), o.Max)
	}
	return p, errors.Join(errs...)
}
