package gate_test

import (
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
)

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"+0%", "+0%"}, {"2%", "+2%"}, {"+2.5%", "+2.5%"}, {"+10 %", "+10%"},
		{"+0", "+0"}, {"0", "+0"}, {"+0ms", "+0"}, {" off ", "off"}, {"none", "off"},
		{"+10ms", "+10ms"}, {"10 ms", "+10ms"}, {"+0.5ms", "+500µs"}, {"+1500us", "+1.5ms"}, {"+2µs", "+2µs"},
		{"+250ns", "+250ns"}, {"+1s", "+1s"}, {"+90s", "+90s"},
		{"+512B", "+512B"}, {"+1024B", "+1KiB"}, {"+4KiB", "+4KiB"}, {"+1.5MiB", "+1.5MiB"}, {"+2kB", "+1.953125KiB"}, {"+1GiB", "+1GiB"},
		{"+1allocs", "+1allocs"}, {"+1 alloc", "+1allocs"}, {"+2goroutines", "+2goroutines"}, {"+1 goroutine", "+1goroutines"},
	} {
		th, err := gate.ParseThreshold(tc.in)
		if err != nil || th.String() != tc.want {
			t.Errorf("ParseThreshold(%q) = %v, %v; want %s", tc.in, th, err, tc.want)
			continue
		}
		// What String writes reads back the same.
		if back, err := gate.ParseThreshold(th.String()); err != nil || back != th {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %+v", th.String(), back, err, th)
		}
	}
	for _, tc := range []struct{ in, want string }{
		// A bare number used to be an absolute amount in the unit:
		// "sec/op: 10" was ten seconds and passed everything.
		{"10", "a bare number is ambiguous; write +10% (relative to the base) or +10ms, +10KiB, +10allocs, +10goroutines or +10instructions (absolute)"},
		{"+1", "a bare number is ambiguous"},
		{"1024", "a bare number is ambiguous"},
		{"-2%", "cannot be negative"},
		{"-1ms", "cannot be negative"},
		{"", "not a number"},
		{"+", "not a number"},
		{"%", "not a number"},
		{"x", "not a number"},
		{"NaN", "not a number"},
		{"+Inf%", "not a number"},
		{"+-1", "not a number"},
		{"+2%%", `unknown amount "%%"`},
		{"+1.5m", `"m" is ambiguous`},
		{"+1h", `"h" is ambiguous`},
		{"+1KB", `unknown amount "KB"`},
		{"+3 apples", `unknown amount "apples"`},
		{"+1e999%", "not a number"},
	} {
		th, err := gate.ParseThreshold(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseThreshold(%q) = %v, %v; want an error containing %q", tc.in, th, err, tc.want)
		}
	}
}

func TestParseMax(t *testing.T) {
	for _, tc := range []struct{ in, unit, want string }{
		{"ns/op=+10%", "sec/op", "+10%"},
		{"sec/op=+2ms", "sec/op", "+2ms"},
		{"B/op=+1KiB", "B/op", "+1KiB"},
		{"retained-B/cert=+100B", "retained-B/cert", "+100B"},
		{"allocs/op=+1allocs", "allocs/op", "+1allocs"},
		{"goroutines=+0", "goroutines", "+0"},
		{"goroutines=+1goroutines", "goroutines", "+1goroutines"},
		{"sec/op=off", "sec/op", "off"},
	} {
		unit, th, err := gate.ParseMax(tc.in)
		if err != nil || unit != tc.unit || th.String() != tc.want {
			t.Errorf("ParseMax(%q) = %q %v %v; want %s %s", tc.in, unit, th, err, tc.unit, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"sec/op=10", `threshold "10": a bare number is ambiguous; write +10% (relative to the base) or +10ms (absolute)`},
		{"B/op=2", "write +2% (relative to the base) or +2KiB (absolute)"},
		{"allocs/op=+3", "write +3% (relative to the base) or +3allocs (absolute)"},
		{"goroutines=1", "or +1goroutines (absolute)"},
		{"B/op=+1ms", "B/op is measured in bytes, not time: write +N% or +NKiB"},
		{"sec/op=+1KiB", "sec/op is measured in time, not bytes"},
		{"allocs/op=+1goroutines", "allocs/op is measured in allocations, not goroutines"},
		{"retained-B=+1allocs", "retained-B is measured in bytes, not allocations"},
		{"sec/op=+1m", `"m" is ambiguous`},
		{"allocs/op", "want UNIT=THRESHOLD"},
		{"ms/op=+1%", `unknown unit "ms/op"`},
		{"B/op=lots", `threshold "lots": not a number; want +N% (relative to the base), +NKiB (absolute) or off`},
	} {
		if _, _, err := gate.ParseMax(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseMax(%q): error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestSetMaxChecksTheMeasure(t *testing.T) {
	p := gate.DefaultPolicy()
	for _, tc := range []struct {
		unit string
		th   gate.Threshold
		want string
	}{
		{"sec/op", gate.MustThreshold("+1KiB"), "sec/op is measured in time, not bytes"},
		{"sec/op", gate.Threshold{Value: 10}, "absolute threshold 10 has no Measure"},
		{"B/op", gate.Threshold{Value: -1, Relative: true}, "negative threshold"},
		{"ms/op", gate.MustThreshold("+1%"), `unknown unit "ms/op"`},
	} {
		if err := p.SetMax(tc.unit, tc.th); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetMax(%s, %+v): error %v, want %q", tc.unit, tc.th, err, tc.want)
		}
	}
	if th, _ := p.Threshold("s", "t", "sec/op"); th.String() != "+10%" {
		t.Errorf("a rejected SetMax changed sec/op to %v", th)
	}
	// The same mistakes in a policy built in Go fail Evaluate.
	p.Max["sec/op"] = gate.Threshold{Value: 10}
	if _, err := gate.Evaluate(load(t, "base.txt"), load(t, "same.txt"), p); err == nil || !strings.Contains(err.Error(), "has no Measure") {
		t.Errorf("Evaluate with a bare absolute threshold: error %v", err)
	}
}

// An absolute time threshold is an amount of time, not of seconds: +1ms
// allows timeslow.txt's +25% of ~1ms, +100us does not.
func TestAbsoluteTimeThreshold(t *testing.T) {
	for _, tc := range []struct {
		max  string
		pass bool
	}{
		{"sec/op=+1ms", true},
		{"sec/op=+100us", false},
		{"ns/op=+100µs", false},
	} {
		p := gate.DefaultPolicy()
		unit, th, err := gate.ParseMax(tc.max)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetMax(unit, th); err != nil {
			t.Fatal(err)
		}
		v := evaluate(t, "base.txt", "timeslow.txt", p)
		if v.Passed() != tc.pass {
			t.Errorf("--max %s: passed %v, want %v: %v", tc.max, v.Passed(), tc.pass, v.Failures())
		}
	}
}

func TestThresholdExceeds(t *testing.T) {
	// Relative thresholds apply to |base|; absolute ones in the unit.
	rel, abs := gate.MustThreshold("+10%"), gate.MustThreshold("+5allocs")
	for _, tc := range []struct {
		th         gate.Threshold
		base, head float64
		exceeds    bool
	}{
		{rel, 100, 110, false}, {rel, 100, 110.1, true}, {rel, -100, -89, true}, {rel, 0, 1, true}, {rel, 0, 0, false},
		{abs, 100, 105, false}, {abs, 100, 105.5, true}, {gate.MustThreshold("+0%"), 1191, 1192, true},
		{gate.MustThreshold("+2ms"), 0.010, 0.0119, false}, {gate.MustThreshold("+2ms"), 0.010, 0.0121, true},
		{gate.MustThreshold("+1KiB"), 1000, 2024, false}, {gate.MustThreshold("+1KiB"), 1000, 2025, true},
	} {
		if got := tc.th.Exceeds(tc.base, tc.head); got != tc.exceeds {
			t.Errorf("%v.Exceeds(%v, %v) = %v", tc.th, tc.base, tc.head, got)
		}
	}
}

func TestMinSamplesFor(t *testing.T) {
	if got := gate.MinSamplesFor(gate.DefaultAlpha); got != gate.DefaultMinSamples {
		t.Errorf("MinSamplesFor(%v) = %d, want the documented DefaultMinSamples %d", gate.DefaultAlpha, got, gate.DefaultMinSamples)
	}
	// A stricter level needs more samples; a looser one never fewer than
	// an exact comparison needs.
	if a, b := gate.MinSamplesFor(0.01), gate.MinSamplesFor(gate.DefaultAlpha); a <= b {
		t.Errorf("MinSamplesFor(0.01) = %d, not more than MinSamplesFor(0.05) = %d", a, b)
	}
	if got := gate.MinSamplesFor(0.99); got != results.MinExactSamples {
		t.Errorf("MinSamplesFor(0.99) = %d, want %d", got, results.MinExactSamples)
	}
	for _, a := range []float64{0, 1, -1} {
		if got := gate.MinSamplesFor(a); got != 0 {
			t.Errorf("MinSamplesFor(%v) = %d, want 0", a, got)
		}
	}
}
