package gate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/cost"
	goldenfile "github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/results"
)

func load(t *testing.T, name string) *results.Set {
	t.Helper()
	rs, err := results.Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func evaluate(t *testing.T, base, head string, p gate.Policy) *gate.Verdict {
	t.Helper()
	v, err := gate.Evaluate(load(t, base), load(t, head), p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// find returns the finding for scenario and unit, failing if there is none.
func find(t *testing.T, v *gate.Verdict, scenario, unit string) *gate.Finding {
	t.Helper()
	for _, f := range v.Findings {
		if f.Scenario == scenario && f.Unit == unit {
			return f
		}
	}
	t.Fatalf("no finding for %s %s", scenario, unit)
	return nil
}

func statuses(v *gate.Verdict) map[gate.Status][]string {
	out := map[gate.Status][]string{}
	for _, f := range v.Findings {
		out[f.Status] = append(out[f.Status], f.Scenario+" "+f.Unit)
	}
	return out
}

func TestExactEqualPasses(t *testing.T) {
	v := evaluate(t, "base.txt", "same.txt", gate.DefaultPolicy())
	if !v.Passed() {
		t.Fatalf("same code failed the gate: %v", v.Failures())
	}
	if got := len(v.Findings); got != 12 {
		t.Errorf("%d findings, want 12 (2 benchmarks x 6 units)", got)
	}
	for _, u := range []string{"B/op", "allocs/op", "goroutines"} {
		f := find(t, v, "rotate-10-of-100", u)
		if f.Method != gate.Exact || f.Status != gate.Unchanged || f.Significant {
			t.Errorf("%s: method %s status %s significant %v, want exact unchanged", u, f.Method, f.Status, f.Significant)
		}
	}
	f := find(t, v, "rotate-10-of-100", "sec/op")
	if f.Method != gate.UTest || math.IsNaN(f.P) || f.Status != gate.Unchanged {
		t.Errorf("sec/op: %+v, want an unchanged U test", f)
	}
	if len(v.Warnings()) != 0 {
		t.Errorf("warnings %q, want none", v.Warnings())
	}
}

func TestExactOneMoreAllocationRegresses(t *testing.T) {
	v := evaluate(t, "base.txt", "alloc1.txt", gate.DefaultPolicy())
	if v.Passed() {
		t.Fatal("one more allocation per op passed the gate")
	}
	f := find(t, v, "rotate-10-of-100", "allocs/op")
	if f.Status != gate.Regressed || !f.Fatal || f.Method != gate.Exact || f.Base != 1191 || f.Head != 1192 {
		t.Errorf("allocs/op: %+v, want an exact regression 1191 -> 1192", f)
	}
	// +16 B/op is +0.02%: significant (exact) but within +2%.
	b := find(t, v, "rotate-10-of-100", "B/op")
	if b.Status != gate.Unchanged || !b.Significant || !strings.Contains(b.Note, "within +2%") {
		t.Errorf("B/op: status %s significant %v note %q, want unchanged within +2%%", b.Status, b.Significant, b.Note)
	}
	if got := v.Regressions(); len(got) != 1 {
		t.Errorf("%d regressions, want 1: %v", len(got), statuses(v))
	}
	if got := v.Failures(); len(got) != 1 || got[0] != "1 regression" {
		t.Errorf("failures %q, want [1 regression]", got)
	}
	// A threshold of one allocation lets it pass.
	p := gate.DefaultPolicy()
	p.Max["allocs/op"] = gate.MustThreshold("+1allocs")
	if v := evaluate(t, "base.txt", "alloc1.txt", p); !v.Passed() {
		t.Errorf("allocs/op=+1 still failed: %v", v.Failures())
	}
}

func TestNoisyTimeWithinThresholdPasses(t *testing.T) {
	v := evaluate(t, "base.txt", "timenoise.txt", gate.DefaultPolicy())
	if !v.Passed() {
		t.Fatalf("timing noise failed the gate: %v", v.Failures())
	}
	f := find(t, v, "rotate-10-of-100", "sec/op")
	if f.Significant {
		t.Errorf("interleaved noise called significant: p=%v", f.P)
	}
}

func TestSignificantButUnderThresholdPasses(t *testing.T) {
	v := evaluate(t, "base.txt", "timesmall.txt", gate.DefaultPolicy())
	if !v.Passed() {
		t.Fatalf("+5%% failed a +10%% gate: %v", v.Failures())
	}
	f := find(t, v, "rotate-10-of-100", "sec/op")
	if !f.Significant || f.Status != gate.Unchanged || !strings.Contains(f.Note, "within +10%") {
		t.Errorf("sec/op: significant %v status %s note %q, want significant, unchanged, within +10%%", f.Significant, f.Status, f.Note)
	}
	if math.Abs(f.Percent()-5) > 0.5 {
		t.Errorf("change %.2f%%, want about +5%%", f.Percent())
	}
	// The same change fails a +4% threshold.
	p := gate.DefaultPolicy()
	if err := p.SetMax("ns/op", gate.MustThreshold("+4%")); err != nil {
		t.Fatal(err)
	}
	if v := evaluate(t, "base.txt", "timesmall.txt", p); v.Passed() {
		t.Error("+5% passed a +4% gate")
	}
}

func TestSlowRegresses(t *testing.T) {
	v := evaluate(t, "base.txt", "timeslow.txt", gate.DefaultPolicy())
	f := find(t, v, "rotate-10-of-100", "sec/op")
	if f.Status != gate.Regressed || f.Method != gate.UTest {
		t.Fatalf("sec/op +25%%: %+v, want a U-test regression", f)
	}
	// Two benchmarks tested for sec/op: Holm doubles the smallest p-value.
	if f.AdjustedP != 2*f.P {
		t.Errorf("adjusted p %v, want 2 x %v (Holm over 2 tests)", f.AdjustedP, f.P)
	}
	if !strings.Contains(f.Note, "holm") {
		t.Errorf("note %q does not mention the correction", f.Note)
	}
}

func TestTooFewSamples(t *testing.T) {
	v := evaluate(t, "base.txt", "few.txt", gate.DefaultPolicy())
	if v.Passed() {
		t.Fatal("3 samples of varying timings passed: the gate must not pass for lack of data")
	}
	f := find(t, v, "rotate-10-of-100", "sec/op")
	if f.Status != gate.TooFewSamples || !f.Fatal || !strings.Contains(f.Note, "head has 3") {
		t.Errorf("sec/op: status %s fatal %v note %q, want fatal too-few-samples naming head's 3", f.Status, f.Fatal, f.Note)
	}
	// Counts identical within each side are exact with 3 samples.
	a := find(t, v, "rotate-10-of-100", "allocs/op")
	if a.Method != gate.Exact || a.Status != gate.Unchanged {
		t.Errorf("allocs/op: method %s status %s, want exact unchanged", a.Method, a.Status)
	}
	// min_samples: 3 decides.
	p := gate.DefaultPolicy()
	p.MinSamples = 3
	if v := evaluate(t, "base.txt", "few.txt", p); len(v.Select(gate.TooFewSamples)) != 0 {
		t.Errorf("min samples 3: still too few: %v", statuses(v))
	}
}

func TestOneSampleIsNeverExact(t *testing.T) {
	base, head := load(t, "base.txt"), load(t, "same.txt")
	base, head = trim(base, 1, ""), trim(head, 1, "") // one sample each
	v, err := gate.Evaluate(base, head, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed() {
		t.Fatal("one sample a side passed")
	}
	f := find(t, v, "rotate-10-of-100", "allocs/op")
	if f.Status != gate.TooFewSamples || !strings.Contains(f.Note, "deterministic") {
		t.Errorf("allocs/op with one sample: status %s note %q", f.Status, f.Note)
	}
}

func TestMissingInHead(t *testing.T) {
	v := evaluate(t, "base.txt", "missing.txt", gate.DefaultPolicy())
	if v.Passed() {
		t.Fatal("a benchmark missing in head passed")
	}
	fs := v.Failures()
	if len(fs) != 1 || !strings.Contains(fs[0], "lookup-1000/optimized") || !strings.Contains(fs[0], "missing in head") {
		t.Errorf("failures %q, want one naming lookup-1000/optimized as missing", fs)
	}
	p := gate.DefaultPolicy()
	p.AllowMissing = true
	v = evaluate(t, "base.txt", "missing.txt", p)
	if !v.Passed() {
		t.Fatalf("--allow-missing still failed: %v", v.Failures())
	}
	if ws := v.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], "allowed") {
		t.Errorf("warnings %q, want the missing benchmark", ws)
	}
}

func TestNewInHeadIsReportedNotGated(t *testing.T) {
	v := evaluate(t, "base.txt", "extra.txt", gate.DefaultPolicy())
	if !v.Passed() {
		t.Fatalf("an extra benchmark failed the gate: %v", v.Failures())
	}
	ws := v.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "noop-10000/optimized") || !strings.Contains(ws[0], "only in head") {
		t.Errorf("warnings %q, want noop-10000 reported as only in head", ws)
	}
	for _, f := range v.Findings {
		if f.Scenario == "noop-10000" {
			t.Errorf("finding for a benchmark with no base: %+v", f)
		}
	}
}

func TestNothingInCommonIsAnInputError(t *testing.T) {
	base := load(t, "base.txt")
	head, err := results.Read(strings.NewReader("BenchmarkOther 10 5 ns/op\n"), "other.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = gate.Evaluate(base, head, gate.DefaultPolicy())
	if !errors.Is(err, gate.ErrInput) || !strings.Contains(err.Error(), "no benchmarks in common") {
		t.Errorf("error %v, want ErrInput about no benchmarks in common", err)
	}
}

func TestMalformedFileNamesLine(t *testing.T) {
	_, err := results.Load("testdata/malformed.txt")
	if err == nil || !strings.Contains(err.Error(), "testdata/malformed.txt:8") {
		t.Errorf("error %v, want one naming testdata/malformed.txt:8", err)
	}
}

func TestMixedMachines(t *testing.T) {
	v := evaluate(t, "base.txt", "othercpu.txt", gate.DefaultPolicy())
	if !v.Passed() {
		t.Fatalf("another CPU failed without strict: %v", v.Failures())
	}
	ws := v.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], `cpu: base "AMD EPYC", head "Intel(R) Xeon(R) CPU @ 2.20GHz"`) {
		t.Errorf("warnings %q, want the cpu mismatch", ws)
	}
	p := gate.DefaultPolicy()
	p.Strict = true
	v = evaluate(t, "base.txt", "othercpu.txt", p)
	if v.Passed() {
		t.Error("another CPU passed under strict: true")
	}
	// A different certbench version is not a machine mismatch.
	v = evaluate(t, "base.txt", "golden-head.txt", p)
	for _, c := range v.Config {
		if c.Key == "certbench-version" && c.Differs {
			t.Error("certbench-version flagged as a machine difference")
		}
	}
}

func TestNoisyCountsUseTheUTest(t *testing.T) {
	v := evaluate(t, "noisyallocs-base.txt", "noisyallocs-head.txt", gate.DefaultPolicy())
	f := find(t, v, "rotate-10-of-100", "allocs/op")
	if f.Method != gate.UTest || f.Status != gate.Unchanged {
		t.Errorf("allocs/op varying by one on both sides: method %s status %s, want an unchanged U test", f.Method, f.Status)
	}
	v = evaluate(t, "noisyallocs-base.txt", "noisyallocs-up.txt", gate.DefaultPolicy())
	f = find(t, v, "rotate-10-of-100", "allocs/op")
	if f.Method != gate.UTest || f.Status != gate.Regressed {
		t.Errorf("allocs/op up by ten, varying: method %s status %s, want a U-test regression", f.Method, f.Status)
	}
}

// TestVaryingCountResolution: a varying count that moves by less than
// gate.CountResolution is unchanged, one that moves by more regresses.
func TestVaryingCountResolution(t *testing.T) {
	side := func(allocs ...float64) *results.Set {
		var b strings.Builder
		for i, a := range allocs {
			fmt.Fprintf(&b, "round: %d\nBenchmarkChurn/scenario=lookup-1000/store=traefik-2 20000 %d ns/op %.6f allocs/op\n", i+1, 150000+i*100, a)
		}
		set, err := results.Read(strings.NewReader(b.String()), "x.txt")
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	base := side(2229.0300, 2229.0301, 2229.0300, 2229.0301, 2229.0300, 2229.0301)
	for _, tc := range []struct {
		head []float64
		want gate.Status
	}{
		{[]float64{2229.0302, 2229.0303, 2229.0302, 2229.0303, 2229.0302, 2229.0303}, gate.Unchanged}, // +0.0000001%
		{[]float64{2229.5, 2229.6, 2229.5, 2229.6, 2229.5, 2229.6}, gate.Regressed},                   // +0.02%
	} {
		v, err := gate.Evaluate(base, side(tc.head...), gate.DefaultPolicy())
		if err != nil {
			t.Fatal(err)
		}
		if f := find(t, v, "lookup-1000", "allocs/op"); f.Status != tc.want {
			t.Errorf("head %v: %s (%s), want %s", tc.head[0], f.Status, f.Note, tc.want)
		}
	}
}

func TestImprovements(t *testing.T) {
	v := evaluate(t, "base.txt", "improved.txt", gate.DefaultPolicy())
	if !v.Passed() {
		t.Fatalf("improvements failed the gate: %v", v.Failures())
	}
	var got []string
	for _, f := range v.Improvements() {
		got = append(got, f.Scenario+" "+f.Unit)
	}
	want := "lookup-1000 sec/op,rotate-10-of-100 B/op,rotate-10-of-100 allocs/op"
	if strings.Join(got, ",") != want {
		t.Errorf("improved %q, want %q", strings.Join(got, ","), want)
	}
}

func TestOverridesAndRetainedPerCertFollows(t *testing.T) {
	p := gate.DefaultPolicy()
	p.Overrides = []gate.Override{
		{Scenario: "rotate-*", Max: map[string]gate.Threshold{"sec/op": gate.MustThreshold("+30%")}},
		{Store: "optimized", Scenario: "lookup-1000", Max: map[string]gate.Threshold{"retained-B": gate.MustThreshold("off")}},
	}
	if th, ok := p.Threshold("rotate-10-of-100", "optimized", "sec/op"); !ok || th.String() != "+30%" {
		t.Errorf("rotate sec/op threshold %v %v, want +30%%", th, ok)
	}
	if th, _ := p.Threshold("lookup-1000", "optimized", "sec/op"); th.String() != "+10%" {
		t.Errorf("lookup sec/op threshold %v, want the default +10%%", th)
	}
	if th, ok := p.Threshold("rotate-10-of-100", "naive", "retained-B/cert"); !ok || th.String() != "+2%" {
		t.Errorf("retained-B/cert threshold %v %v, want +2%% from retained-B", th, ok)
	}
	if _, ok := p.Threshold("lookup-1000", "optimized", "retained-B/cert"); ok {
		t.Error("retained-B/cert gated where retained-B is off")
	}
	v := evaluate(t, "base.txt", "timeslow.txt", p)
	if !v.Passed() {
		t.Errorf("+25%% failed with a +30%% override: %v", v.Failures())
	}
}

func TestHolmVersusNoCorrection(t *testing.T) {
	p := gate.DefaultPolicy()
	p.Correction = gate.NoCorrection
	v := evaluate(t, "base.txt", "timeslow.txt", p)
	f := find(t, v, "rotate-10-of-100", "sec/op")
	if f.AdjustedP != f.P {
		t.Errorf("no correction: adjusted p %v != p %v", f.AdjustedP, f.P)
	}
}

func TestBadPolicy(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*gate.Policy)
		want string
	}{
		{"alpha", func(p *gate.Policy) { p.Alpha = 2 }, "alpha 2"},
		{"min samples", func(p *gate.Policy) { p.MinSamples = 1 }, "min_samples 1: want at least 2"},
		{"correction", func(p *gate.Policy) { p.Correction = "bonferroni" }, `correction "bonferroni"`},
		{"unit", func(p *gate.Policy) { p.Max["ms/op"] = gate.Threshold{} }, `unknown unit "ms/op"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := gate.DefaultPolicy()
			tc.edit(&p)
			_, err := gate.Evaluate(load(t, "base.txt"), load(t, "same.txt"), p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// fakeSites names sites for any benchmark.
type fakeSites struct{}

func (fakeSites) GrownSites(scenario, store, unit string, n int) ([]cost.Site, error) {
	if unit == "B/op" {
		return nil, cost.ErrNoProfiles
	}
	return []cost.Site{
		{Function: "stores/optimized.(*Store).Update", Base: 0, Head: 10},
		{Function: "crypto/x509.parseCertificate", Base: 310, Head: 311},
	}[:min(n, 2)], nil
}

func goldenVerdict(t *testing.T) *gate.Verdict {
	v := evaluate(t, "base.txt", "golden-head.txt", gate.DefaultPolicy())
	v.Base, v.Head = "base.txt", "head.txt"
	v.AddSites(fakeSites{}, 5)
	return v
}

func TestGolden(t *testing.T) {
	v := goldenVerdict(t)
	if v.Passed() {
		t.Fatal("golden verdict passed")
	}
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"golden.txt.golden", func(b *bytes.Buffer) error { return writeText(v, b) }},
		{"golden.md.golden", func(b *bytes.Buffer) error { return writeMarkdown(v, b) }},
		{"golden.json.golden", func(b *bytes.Buffer) error { return writeJSON(v, b) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			goldenfile.Check(t, filepath.Join("testdata", tc.file), b.Bytes())
		})
	}
}

func TestJSONIsValidWithNulls(t *testing.T) {
	v := goldenVerdict(t)
	var b bytes.Buffer
	if err := writeJSON(v, &b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Passed   bool   `json:"passed"`
		Findings []struct {
			Unit, Status, Method string
			P                    *float64 `json:"p"`
			Sites                []struct{ Function string }
		} `json:"findings"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != gate.JSONSchema || doc.Passed {
		t.Errorf("schema %q passed %v", doc.Schema, doc.Passed)
	}
	sawExact, sawSites := false, false
	for _, f := range doc.Findings {
		if f.Method == "exact" {
			sawExact = true
			if f.P != nil {
				t.Errorf("exact finding with p %v, want null", *f.P)
			}
		}
		if len(f.Sites) > 0 {
			sawSites = true
		}
	}
	if !sawExact || !sawSites {
		t.Errorf("exact findings %v, sites %v; want both", sawExact, sawSites)
	}
}

func TestUnreachableSignificanceIsNotAPass(t *testing.T) {
	v := evaluate(t, "four-base.txt", "four-head.txt", gate.DefaultPolicy())
	if v.Passed() {
		t.Fatal("a 25% slowdown passed with samples too few to ever be significant")
	}
	f := find(t, v, "rotate-10-of-100", "sec/op")
	if f.Status != gate.TooFewSamples || !strings.Contains(f.Note, "cannot reach p < 0.05 after holm's correction for 2 sec/op tests") ||
		!strings.Contains(f.Note, "need 5 samples a side") {
		t.Errorf("status %s note %q", f.Status, f.Note)
	}
	// Without the correction one test can reach p = 0.029: decided.
	p := gate.DefaultPolicy()
	p.Correction = gate.NoCorrection
	v = evaluate(t, "four-base.txt", "four-head.txt", p)
	if f := find(t, v, "rotate-10-of-100", "sec/op"); f.Status != gate.Regressed {
		t.Errorf("no correction: status %s note %q, want regressed", f.Status, f.Note)
	}
}

func TestMetricsMissingOrNewPerUnit(t *testing.T) {
	// Head without retained-B: those findings are Missing (fatal).
	base := load(t, "base.txt")
	head := load(t, "same.txt")
	head = trim(head, head.Samples(), "retained-B")
	v, err := gate.Evaluate(base, head, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Failures(); len(got) != 1 || got[0] != "2 metrics missing in head" {
		t.Errorf("failures %q, want 2 metrics missing in head", got)
	}
	// The other way round: retained-B only in head is reported, not gated.
	v, err = gate.Evaluate(head, base, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() || len(v.Warnings()) != 1 || !strings.Contains(v.Warnings()[0], "metrics only in head, not gated: retained-B of rotate-10-of-100/optimized") {
		t.Errorf("passed %v, warnings %q", v.Passed(), v.Warnings())
	}
	// A unit switched off is said to be, never silently skipped.
	p := gate.DefaultPolicy()
	p.Max["goroutines"] = gate.MustThreshold("off")
	v = evaluate(t, "base.txt", "same.txt", p)
	if ws := v.Warnings(); len(ws) != 1 || ws[0] != "not gated (no threshold): goroutines" {
		t.Errorf("warnings %q, want goroutines not gated", ws)
	}
}

// trim returns rs with the first n samples of each series, without the
// unit drop.
func trim(rs *results.Set, n int, drop string) *results.Set {
	out := *rs
	out.Series = nil
	for _, s := range rs.Series {
		c := *s
		c.N = min(n, s.N)
		if c.Rounds != nil {
			c.Rounds = c.Rounds[:c.N]
		}
		c.Metrics = nil
		for _, m := range s.Metrics {
			if m.Unit == drop {
				continue
			}
			k := &results.Metric{Unit: m.Unit, OrigUnit: m.OrigUnit}
			for i, v := range m.Values {
				if j := m.Sample(i); j < c.N {
					k.Values = append(k.Values, v)
					k.Samples = append(k.Samples, int32(j))
				}
			}
			c.Metrics = append(c.Metrics, k)
		}
		out.Series = append(out.Series, &c)
	}
	return &out
}

// TestOwnUnitsAreKnown: certbench's own units that the gate does not gate
// (gc-cpu-sec/op, peak-B, gc-cycles/op, ...) are listed as not gated, not
// as unknown units; a unit certbench does not know is.
func TestOwnUnitsAreKnown(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=a/store=x-2 10 %d ns/op 5 B/op %d gc-cpu-ns/op 7 peak-B 0.5 gc-cycles/op 3 widgets\n", 1000+i, 100+i)
	}
	base, err := results.Read(strings.NewReader(b.String()), "base.txt")
	if err != nil {
		t.Fatal(err)
	}
	head, err := results.Read(strings.NewReader(b.String()), "head.txt")
	if err != nil {
		t.Fatal(err)
	}
	v, err := gate.Evaluate(base, head, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, p := range v.Problems {
		if p.Kind == gate.NotGated {
			msg = p.Message
		}
	}
	for _, u := range []string{"gc-cpu-sec/op", "peak-B", "gc-cycles/op"} {
		if !strings.Contains(msg, u) || strings.Contains(msg, u+" (unknown unit)") {
			t.Errorf("%s: not-gated message %q", u, msg)
		}
	}
	if !strings.Contains(msg, "widgets (unknown unit)") {
		t.Errorf("widgets not called unknown: %q", msg)
	}
}
